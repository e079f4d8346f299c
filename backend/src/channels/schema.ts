/**
 * What a notification channel and a routing policy may be (docs/api.md "Notification channels and
 * routing"). The target is checked for its type: a URL type takes an http(s) URL without
 * credentials; `email` takes `accounts` or a list of addresses.
 */
import { z } from 'zod';
import { SAFE_NAME, SAFE_NAME_MESSAGE } from '../../../contracts/common.js';
import { MAX_INT_ID } from '../lib/ids.js';
import { parseWebhookUrl } from './webhook.js';

export const CHANNEL_TYPES = ['email', 'webhook', 'slack', 'teams', 'discord', 'ntfy'] as const;
export type ChannelType = (typeof CHANNEL_TYPES)[number];
export const SEVERITIES = ['INFO', 'WARNING', 'CRITICAL'] as const;
export type Severity = (typeof SEVERITIES)[number];

/** The e-mail target meaning "every account that may see the alert" (the behaviour before channels). */
export const ACCOUNTS_TARGET = 'accounts';
const MAX_ADDRESSES = 50;
const ADDRESS = /^[^\s@,;<>]+@[^\s@,;<>]+\.[^\s@,;<>]+$/;

const id = z
  .number({ error: 'must be an id' })
  .int('must be an id')
  .positive('must be an id')
  .max(MAX_INT_ID, 'must be an id');
const severity = z.enum(SEVERITIES, { error: 'must be INFO, WARNING or CRITICAL' });
const name = z
  .string({ error: 'must be a string' })
  .trim()
  .min(1, 'is required')
  .max(100, 'is too long')
  .regex(SAFE_NAME, SAFE_NAME_MESSAGE);
const target = z.string({ error: 'must be a string' }).trim().min(1, 'is required').max(2000, 'is too long');
const secret = z.string({ error: 'must be a string' }).min(1, 'must not be empty').max(200, 'is too long');

/** The addresses of an e-mail target, or the problem with them. */
export function emailAddresses(raw: string): string[] | string {
  const addresses = raw
    .split(/[,;\s]+/)
    .map((a) => a.trim())
    .filter(Boolean);
  if (addresses.length === 0) return 'is required';
  if (addresses.length > MAX_ADDRESSES) return `at most ${MAX_ADDRESSES} addresses`;
  const bad = addresses.find((a) => !ADDRESS.test(a) || a.length > 254);
  return bad ? `${bad} is not an e-mail address` : addresses;
}

/** The target in its stored form, or the problem with it (named for the `target` field). */
export function checkTarget(type: ChannelType, raw: string): string | { ok: string } {
  if (type === 'email') {
    if (raw.toLowerCase() === ACCOUNTS_TARGET) return { ok: ACCOUNTS_TARGET };
    const addresses = emailAddresses(raw);
    return typeof addresses === 'string' ? addresses : { ok: addresses.join(', ') };
  }
  const url = parseWebhookUrl(raw);
  return typeof url === 'string' ? `must be a URL: ${url}` : { ok: url.href };
}

/** What answers show of a URL target: its scheme and host, never the path that holds the token. */
export function targetHint(type: ChannelType, stored: string): string {
  if (type === 'email') return stored;
  const url = parseWebhookUrl(stored);
  return typeof url === 'string' ? '' : `${url.protocol}//${url.host}/…`;
}

export const channelSchema = z
  .object({
    name,
    type: z.enum(CHANNEL_TYPES, { error: `must be one of ${CHANNEL_TYPES.join(', ')}` }),
    target,
    secret: secret.nullable().optional(),
    minSeverity: severity.default('INFO'),
    enabled: z.boolean({ error: 'must be true or false' }).default(true),
    customerId: id.nullable().default(null),
  })
  .strict()
  .superRefine((input, ctx) => {
    const checked = checkTarget(input.type, input.target);
    if (typeof checked === 'string') ctx.addIssue({ code: 'custom', path: ['target'], message: checked });
  });
export type ChannelInput = z.infer<typeof channelSchema>;

export const channelChangesSchema = z
  .object({
    name: name.optional(),
    target: target.optional(),
    secret: secret.nullable().optional(),
    minSeverity: severity.optional(),
    enabled: z.boolean({ error: 'must be true or false' }).optional(),
  })
  .strict();
export type ChannelChanges = z.infer<typeof channelChangesSchema>;

const minutes = z
  .number({ error: 'must be 1 to 10080 minutes or null' })
  .int('must be 1 to 10080 minutes or null')
  .min(1, 'must be 1 to 10080 minutes or null')
  .max(10080, 'must be 1 to 10080 minutes or null')
  .nullable();
const channelIds = z.array(id, { error: 'must be a list of channel ids' }).max(50, 'at most 50 channels');

export const policySchema = z
  .object({
    routes: z
      .array(z.object({ minSeverity: severity, channelIds }).strict(), { error: 'must be a list of routes' })
      .max(20, 'at most 20 routes'),
    repeatMinutes: minutes.default(null),
    escalateAfterMinutes: minutes.default(null),
    escalateChannelIds: channelIds.default([]),
  })
  .strict();
export type PolicyInput = z.infer<typeof policySchema>;

export const listQuerySchema = z.object({ customer: z.coerce.number().pipe(id).optional() });
