/**
 * Request bodies of the settings routes. The inferred types are the service's
 * input types; parseInput turns a refusal into a 400 naming the field.
 */
import { z } from 'zod';

// No whitespace or control characters: a host name or an IP literal, nothing to inject into SMTP.
const HOST = /^[^\s\p{Cc}]+$/u;
// The sender name goes into a mail header: line breaks there would let it add headers.
const NO_CONTROL = /^[^\p{Cc}]*$/u;
const PORT = 'must be a whole number from 1 to 65535';

export const smtpSettingsSchema = z
  .object({
    enabled: z.boolean({ error: 'must be true or false' }),
    host: z
      .string({ error: 'must be a string' })
      .trim()
      .max(253, 'is too long')
      .refine((host) => host === '' || HOST.test(host), 'must not contain spaces or control characters'),
    port: z.number({ error: PORT }).int(PORT).min(1, PORT).max(65535, PORT),
    encryption: z.enum(['tls', 'starttls', 'none'], { error: 'must be "tls", "starttls" or "none"' }),
    user: z
      .string({ error: 'must be a string' })
      .max(320, 'is too long')
      .regex(NO_CONTROL, 'must not contain control characters')
      .default(''),
    /** Absent: keep the stored one; '': remove it; anything else: replace it. */
    password: z.string({ error: 'must be a string' }).max(1024, 'is too long').optional(),
    fromAddress: z.string({ error: 'must be a string' }).trim().max(320, 'is too long'),
    fromName: z
      .string({ error: 'must be a string' })
      .trim()
      .max(200, 'is too long')
      .regex(NO_CONTROL, 'must not contain control characters')
      .default(''),
  })
  .superRefine((value, ctx) => {
    // A switched-off block may stay half filled in; one that sends mail must be complete.
    if (!value.enabled) return;
    if (value.host === '') ctx.addIssue({ code: 'custom', path: ['host'], message: 'is required to enable SMTP' });
    if (!z.email().safeParse(value.fromAddress).success) {
      ctx.addIssue({ code: 'custom', path: ['fromAddress'], message: 'must be an e-mail address' });
    }
  });

export type SmtpSettingsInput = z.infer<typeof smtpSettingsSchema>;

export const smtpTestSchema = z.object({
  to: z.email({ error: 'must be an e-mail address' }).max(320, 'is too long').optional(),
});
