/**
 * Single sign-on with an OpenID provider: the sign-in page's button, the redirect and callback
 * (/api/auth/sso/*), and Settings → Single sign-on (/api/settings/sso) — docs/api.md "Single sign-on".
 */
import { z } from 'zod';
import { id, instant, role, SAFE_NAME, SAFE_NAME_MESSAGE } from './common.js';

/** Whether the sign-in page shows "Sign in with <name>". */
export const ssoOptions = z.object({ enabled: z.boolean(), name: z.string().nullable() }).meta({ id: 'SsoOptions' });
export type SsoOptions = z.infer<typeof ssoOptions>;

/** Signed out of Argus; where to send the browser to sign out at the provider too, if anywhere. */
export const ssoSignOut = z.object({ redirect: z.string().nullable() }).meta({ id: 'SsoSignOut' });
export type SsoSignOut = z.infer<typeof ssoSignOut>;

export const ssoStartQuery = z.object({
  /** Where to land after signing in: a path on this site only. */
  returnTo: z.string().max(2000).optional(),
});

export const ssoCallbackQuery = z.object({
  code: z.string().max(4096).optional(),
  state: z.string().max(512).optional(),
  error: z.string().max(200).optional(),
  error_description: z.string().max(2000).optional(),
  iss: z.string().max(2000).optional(),
});

/** A provider group and what its members get in Argus. */
export const groupMapping = z
  .object({
    group: z.string().trim().min(1, 'is required').max(200).regex(SAFE_NAME, SAFE_NAME_MESSAGE),
    role,
    /** The customers an OPERATOR or VIEWER of this group may see (an ADMIN sees all). */
    customerIds: z.array(id).max(1000).default([]),
  })
  .meta({ id: 'SsoGroupMapping' });
export type GroupMappingEntry = z.infer<typeof groupMapping>;

/** The latest "Test sign-in" of this administrator: what the provider sent, and what the mapping makes of it. */
export const ssoTestResult = z
  .object({
    at: instant,
    /** The ID token's claims (never the token); null when the provider or the token check refused. */
    claims: z.record(z.string(), z.unknown()).nullable(),
    /** The groups found in the groups claim. */
    groups: z.array(z.string()),
    /** The role the mapping gives; null: this person would be refused (`refused` says why). */
    role: role.nullable(),
    customerIds: z.array(id),
    refused: z.string().nullable(),
  })
  .meta({ id: 'SsoTestResult' });
export type SsoTestResult = z.infer<typeof ssoTestResult>;

export const ssoTest = z.object({ result: ssoTestResult.nullable() }).meta({ id: 'SsoTest' });
export type SsoTest = z.infer<typeof ssoTest>;

export const localSignInBody = z
  .object({
    /** true: only break-glass administrators may sign in with a password. */
    restricted: z.boolean(),
  })
  .strict()
  .meta({ id: 'SsoLocalSignIn' });
export type LocalSignInRequest = z.input<typeof localSignInBody>;

export const groupMappingsBody = z
  .object({ mappings: z.array(groupMapping).max(500) })
  .meta({ id: 'SsoGroupMappings' });
export type GroupMappingsRequest = z.input<typeof groupMappingsBody>;

export const ssoSettings = z
  .object({
    configured: z.boolean(),
    /** Set by environment variables (OIDC_*): shown read-only. */
    source: z.literal('environment'),
    issuer: z.string().nullable(),
    clientId: z.string().nullable(),
    scopes: z.array(z.string()),
    groupsClaim: z.string().nullable(),
    buttonName: z.string().nullable(),
    linkVerifiedEmail: z.boolean(),
    createUsers: z.boolean(),
    /** Password sign-in refused to all but break-glass administrators (only while single sign-on is configured). */
    localSignInRestricted: z.boolean(),
    /** The redirect URI to register at the provider. */
    callbackUrl: z.string(),
    /** `environment`: set by OIDC_GROUP_MAP (read-only here); `console`: edited in Settings. */
    mappingSource: z.enum(['console', 'environment']),
    mappings: z.array(groupMapping),
  })
  .meta({ id: 'SsoSettings' });
export type SsoSettings = z.infer<typeof ssoSettings>;
