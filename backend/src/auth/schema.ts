import { z } from 'zod';

const email = z.string().trim().toLowerCase().max(254).email('must be an e-mail address');
const username = z
  .string()
  .trim()
  .min(2, 'must be at least 2 characters')
  .max(64)
  .regex(/^[A-Za-z0-9._-]+$/, 'may contain letters, digits, dot, dash and underscore')
  .nullish();
// the password rule itself (length in bytes, not the e-mail) is checked by the users service
const password = z.string().max(1024);

export const setupSchema = z.object({
  name: z.string().trim().min(1, 'is required').max(200),
  email,
  // a form sends an empty field for "no username"
  username: z.preprocess((value) => (value === '' ? null : value), username),
  password,
});

export const loginSchema = z.object({
  identifier: z.string().trim().min(1, 'is required').max(254),
  password: z.string().min(1, 'is required').max(1024),
  code: z.string().trim().max(16).optional(),
  trustDevice: z.boolean().optional(),
});

export { email as emailSchema, username as usernameSchema, password as passwordSchema };
