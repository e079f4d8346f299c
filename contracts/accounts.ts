/**
 * Accounts on the wire: users (/api/users), the own account (/api/account), API tokens
 * (/api/tokens), the authenticator (/api/account/totp) and the password reset
 * (/api/auth/password/*) — docs/api.md "Accounts". Passwords appear only in request bodies.
 */
import { z } from 'zod';
import { id, instant, role, SAFE_NAME, SAFE_NAME_MESSAGE } from './common.js';

/** The least severe alert an account is e-mailed about; 'NONE' switches alert e-mails off. */
export const notifyLevel = z.enum(['INFO', 'WARNING', 'CRITICAL', 'NONE']);
export type NotifyLevel = z.infer<typeof notifyLevel>;

// --- the account fields that setup, sign-in and user management validate alike ---

export const accountEmail = z.string().trim().toLowerCase().max(254).email('must be an e-mail address');
export const accountUsername = z
  .string()
  .trim()
  .min(2, 'must be at least 2 characters')
  .max(64)
  .regex(/^[A-Za-z0-9._-]+$/, 'may contain letters, digits, dot, dash and underscore')
  .nullish();
// the password rule itself (length in bytes, not the e-mail) is checked by the users service
export const accountPassword = z.string().max(1024);
const accountName = z.string().trim().min(1, 'is required').max(200).regex(SAFE_NAME, SAFE_NAME_MESSAGE);
const customerIds = z.array(z.number().int().positive()).max(10_000);

export const createUserBody = z
  .object({
    email: accountEmail,
    username: accountUsername,
    name: accountName,
    role,
    password: accountPassword,
    customerIds: customerIds.default([]),
  })
  .meta({ id: 'CreateUser' });
export type NewUser = z.input<typeof createUserBody>;

export const updateUserBody = z
  .object({
    email: accountEmail.optional(),
    username: accountUsername,
    name: accountName.optional(),
    role: role.optional(),
    disabled: z.boolean().optional(),
    customerIds: customerIds.optional(),
    password: accountPassword.optional(),
    /** An administrator who may always sign in with a password, even when password sign-in is refused. */
    breakGlass: z.boolean().optional(),
  })
  .strict()
  .meta({ id: 'UpdateUser' });
export type UserChanges = z.input<typeof updateUserBody>;

/** The own account (PATCH /api/account): no role, no grants, no password. */
export const profileBody = z
  .object({
    email: accountEmail.optional(),
    username: accountUsername,
    name: accountName.optional(),
    notifyMinSeverity: notifyLevel.optional(),
  })
  .strict()
  .meta({ id: 'UpdateProfile' });
export type ProfileChanges = z.input<typeof profileBody>;

export const passwordChangeBody = z
  .object({
    currentPassword: z.string().min(1, 'is required').max(1024),
    newPassword: accountPassword,
  })
  .meta({ id: 'ChangePassword' });
export type PasswordChange = z.input<typeof passwordChangeBody>;

/** An account as every answer shows it (never its password or authenticator secret). */
export const user = z
  .object({
    id,
    email: z.string(),
    username: z.string().nullable(),
    name: z.string(),
    role,
    disabled: z.boolean(),
    /** Whether an authenticator app is its second factor. */
    totpEnabled: z.boolean(),
    /**
     * How it signs in. `local`: a password; `sso`: the identity provider only (no password of its
     * own, and the provider's second factor, not Argus's); `both`.
     */
    source: z.enum(['local', 'sso', 'both']),
    notifyMinSeverity: notifyLevel,
    /** The customers granted to an OPERATOR or VIEWER (an ADMIN sees all; its list is not used). */
    customerIds: z.array(id),
    createdAt: instant,
  })
  .meta({ id: 'User' });
export type User = z.infer<typeof user>;

/** An account in the users list: also how it signs in, and when it last did. */
export const userListItem = user
  .extend({
    /** May always sign in with a password, even when password sign-in is refused to others. */
    breakGlass: z.boolean(),
    /** The last sign-in, with a password or through the provider; null: never since this was recorded. */
    lastSignInAt: instant.nullable(),
  })
  .meta({ id: 'UserListItem' });
export type UserListItem = z.infer<typeof userListItem>;

/** The answer of the routes that create or change one account. */
export const userAnswer = z.object({ user }).meta({ id: 'UserAnswer' });
export type UserAnswer = z.infer<typeof userAnswer>;

// --- API tokens (a browser session manages them; a token never does) ---

export const createTokenBody = z
  .object({
    name: z.string().trim().min(1, 'is required').max(100).regex(SAFE_NAME, SAFE_NAME_MESSAGE),
    expiresAt: z.iso.datetime({ offset: true }).nullish(),
  })
  .meta({ id: 'CreateApiToken', example: { name: 'backup script', expiresAt: '2027-01-01T00:00:00.000Z' } });
export type NewApiTokenRequest = z.input<typeof createTokenBody>;

export const apiToken = z
  .object({
    id,
    name: z.string(),
    createdAt: instant,
    expiresAt: instant.nullable(),
    lastUsedAt: instant.nullable(),
    revokedAt: instant.nullable(),
    /** Derived: revoked wins over expired. Revoked and expired tokens stay listed. */
    status: z.enum(['active', 'revoked', 'expired']),
  })
  .meta({ id: 'ApiToken' });
export type ApiToken = z.infer<typeof apiToken>;

/** The token's value is in this answer only: it is stored hashed and never shown again. */
export const newApiToken = apiToken
  .extend({ token: z.string().meta({ description: '`argus_` and 43 base62 characters; shown once' }) })
  .meta({ id: 'NewApiToken' });
export type NewApiToken = z.infer<typeof newApiToken>;

// --- the authenticator app (second factor) ---

export const totpCodeBody = z
  .object({
    code: z
      .string()
      .trim()
      .regex(/^\d{6}$/, 'must be the 6-digit code'),
  })
  .meta({ id: 'TotpCode' });
export type TotpCode = z.input<typeof totpCodeBody>;
export const totpPasswordBody = z
  .object({ password: z.string().min(1, 'is required').max(1024) })
  .meta({ id: 'TotpDisable' });
export type TotpDisable = z.input<typeof totpPasswordBody>;

/** What the authenticator app needs to start: the secret, as text, as an otpauth: URL and as a QR code. */
export const totpEnrolment = z
  .object({
    secret: z.string(),
    otpauthUrl: z.string(),
    /** A PNG data: URL of the otpauth URL. */
    qrDataUrl: z.string(),
  })
  .meta({ id: 'TotpEnrolment' });
export type TotpEnrolment = z.infer<typeof totpEnrolment>;

// --- the password reset (public) ---

export const forgotPasswordBody = z
  .object({
    email: z.string({ error: 'is required' }).trim().min(1, 'is required').max(320, 'is too long'),
  })
  .meta({ id: 'ForgotPassword' });
export type ForgotPassword = z.input<typeof forgotPasswordBody>;

export const resetPasswordBody = z
  .object({
    token: z.string({ error: 'is required' }).min(1, 'is required').max(512, 'is too long'),
    // the password rule itself (bytes, not the e-mail or username) is checked by the service
    password: z.string({ error: 'is required' }).max(1024, 'is too long'),
  })
  .meta({ id: 'ResetPassword' });
export type ResetPassword = z.input<typeof resetPasswordBody>;
