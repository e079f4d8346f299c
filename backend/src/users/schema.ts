import { z } from 'zod';
import { emailSchema, passwordSchema, usernameSchema } from './fields.js';

const role = z.enum(['ADMIN', 'OPERATOR', 'VIEWER']);
const customerIds = z.array(z.number().int().positive()).max(10_000);
/** The least severe alert an account is e-mailed about; 'NONE' switches alert e-mails off. */
const notifyLevel = z.enum(['INFO', 'WARNING', 'CRITICAL', 'NONE']);

export const createUserSchema = z.object({
  email: emailSchema,
  username: usernameSchema,
  name: z.string().trim().min(1, 'is required').max(200),
  role,
  password: passwordSchema,
  customerIds: customerIds.default([]),
});

export const updateUserSchema = z
  .object({
    email: emailSchema.optional(),
    username: usernameSchema,
    name: z.string().trim().min(1, 'is required').max(200).optional(),
    role: role.optional(),
    disabled: z.boolean().optional(),
    customerIds: customerIds.optional(),
    password: passwordSchema.optional(),
  })
  .strict();

export const profileSchema = z
  .object({
    email: emailSchema.optional(),
    username: usernameSchema,
    name: z.string().trim().min(1, 'is required').max(200).optional(),
    notifyMinSeverity: notifyLevel.optional(),
  })
  .strict();

export const passwordChangeSchema = z.object({
  currentPassword: z.string().min(1, 'is required').max(1024),
  newPassword: passwordSchema,
});

export const idParam = z.coerce.number().int().positive();
