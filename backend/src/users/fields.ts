/** The account fields that setup, sign-in and user management validate alike. */
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

export { email as emailSchema, username as usernameSchema, password as passwordSchema };
