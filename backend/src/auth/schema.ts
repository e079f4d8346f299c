import { z } from 'zod';
import { emailSchema as email, passwordSchema as password, usernameSchema as username } from '../users/fields.js';

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
