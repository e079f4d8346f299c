/**
 * The way in: the first account (/api/setup), sign-in and sign-out, the current account and the
 * CSRF token (/api/auth/*) — docs/api.md "Public" and "Authentication".
 */
import { z } from 'zod';
import { role, id, SAFE_NAME, SAFE_NAME_MESSAGE } from './common.js';
import { accountEmail, accountPassword, accountUsername, user } from './accounts.js';

export const setupBody = z
  .object({
    name: z.string().trim().min(1, 'is required').max(200).regex(SAFE_NAME, SAFE_NAME_MESSAGE),
    email: accountEmail,
    // a form sends an empty field for "no username"
    username: z
      .preprocess((value) => (value === '' ? null : value), accountUsername)
      .meta({
        description: 'Empty or null: no username',
        // typed here: the console compiles this file without zod-openapi, which types `override`
        override: ({ jsonSchema }: { jsonSchema: { anyOf?: unknown[] } }) => {
          jsonSchema.anyOf = [{ type: 'string', maxLength: 0 }, ...(jsonSchema.anyOf ?? [])];
        },
      }),
    password: accountPassword,
  })
  .meta({ id: 'Setup' });
/** A form's empty `username` means none (the server reads '' as null). */
export type SetupRequest = z.input<typeof setupBody>;

export const loginBody = z
  .object({
    /** The e-mail address or the username. */
    identifier: z.string().trim().min(1, 'is required').max(254),
    password: z.string().min(1, 'is required').max(1024),
    /** The second factor, when the first answer asked for one. */
    code: z.string().trim().max(16).optional(),
    /** After a second factor: skip it on this browser for 30 days. */
    trustDevice: z.boolean().optional(),
  })
  .meta({ id: 'Login' });
export type Credentials = z.input<typeof loginBody>;

/** What the sign-in page needs to know before anyone is signed in. */
export const authOptions = z
  .object({
    /** No account exists yet: the console shows the setup form. */
    setupNeeded: z.boolean(),
    /** SMTP is on: "forgot password" and e-mailed sign-in codes work. */
    mailEnabled: z.boolean(),
  })
  .meta({ id: 'AuthOptions' });
export type AuthOptions = z.infer<typeof authOptions>;

/** The first administrator, made by POST /api/setup (sign in next). */
export const setupAccount = z.object({ id, email: z.string(), role }).meta({ id: 'SetupAccount' });

/** With a session cookie, every write carries this token as `X-CSRF-Token`. */
export const csrfAnswer = z.object({ csrfToken: z.string() }).meta({ id: 'CsrfToken' });
export type CsrfAnswer = z.infer<typeof csrfAnswer>;

/** Signed in: the session cookie is set, and this is its CSRF token. */
export const signedIn = z.object({ user, csrfToken: z.string() }).meta({ id: 'SignedIn' });
/** Password right, a second factor is due: send the same body again with `code`. */
export const secondFactorDue = z.object({ secondFactor: z.enum(['totp', 'email']) }).meta({ id: 'SecondFactorDue' });
export type SecondFactor = z.infer<typeof secondFactorDue>['secondFactor'];
export const loginAnswer = z.union([signedIn, secondFactorDue]).meta({ id: 'LoginAnswer' });
export type LoginAnswer = z.infer<typeof loginAnswer>;

export const meAnswer = z.object({ user }).meta({ id: 'Me' });
export type MeAnswer = z.infer<typeof meAnswer>;
