/**
 * Notification channels and routing policies on the wire (/api/notification-channels,
 * /api/notification-policies) — docs/api.md "Notification channels and routing". The request
 * bodies are backend/src/channels/schema.ts (the target check needs the webhook URL rules). A URL
 * target and a channel's secret are write-only: answers carry `targetHint` and `hasSecret`.
 */
import { z } from 'zod';
import { id, instant, severity } from './common.js';

export const channelType = z.enum(['email', 'webhook', 'slack', 'teams', 'discord', 'ntfy']);
export type ChannelType = z.infer<typeof channelType>;

export const notificationChannel = z
  .object({
    id,
    name: z.string(),
    type: channelType,
    /** null: a global channel (ADMIN); otherwise the customer it belongs to. */
    customerId: id.nullable(),
    customerName: z.string().nullable(),
    /** E-mail channels only (`accounts` or the addresses); null for URL types, whose URL holds a token. */
    target: z.string().nullable(),
    /** Scheme and host of a URL target (`https://hooks.slack.com/…`), or the e-mail target. */
    targetHint: z.string(),
    hasSecret: z.boolean(),
    minSeverity: severity,
    enabled: z.boolean(),
    createdAt: instant,
    updatedAt: instant,
  })
  .meta({ id: 'NotificationChannel' });
export type NotificationChannel = z.infer<typeof notificationChannel>;

/**
 * The outcomes of "Send test", and nothing more (docs/decisions.md "One outbound address policy"):
 * no body of the answer, and one `unreachable` for a name that does not resolve and a connection
 * refused, reset or timed out, so the answers draw no map of a network's ports.
 */
export const CHANNEL_TEST_OUTCOMES = [
  'delivered',
  'refused by policy',
  /** No answer: the name, the connection, TLS or the time ran out. */
  'failed: unreachable',
  /** The target answered with a status other than 2xx (in `status`). */
  'failed: rejected',
  'failed: e-mail switched off',
  'failed: mail server error',
  /** The stored URL or secret no longer opens (the key changed): enter it again. */
  'failed: target unreadable',
] as const;
export type ChannelTestOutcome = (typeof CHANNEL_TEST_OUTCOMES)[number];

/** What one `test` event (no retries) came to. */
export const channelTestResult = z
  .object({
    /** `outcome === 'delivered'`. */
    ok: z.boolean(),
    outcome: z.enum(CHANNEL_TEST_OUTCOMES),
    /** The HTTP status of a URL target, when it answered. */
    status: z.number().int().nullable(),
  })
  .meta({ id: 'ChannelTestResult' });
export type ChannelTestResult = z.infer<typeof channelTestResult>;

const minutes = z.number().int().min(1).max(10080).nullable();

export const notificationPolicy = z
  .object({
    /** null: the global policy. */
    customerId: id.nullable(),
    customerName: z.string().nullable(),
    /** false: the customer has no policy of its own; the global one applies (and is what is shown). */
    custom: z.boolean(),
    routes: z.array(z.object({ minSeverity: severity, channelIds: z.array(id) })),
    repeatMinutes: minutes,
    escalateAfterMinutes: minutes,
    escalateChannelIds: z.array(id),
    /** null: never saved. */
    updatedAt: instant.nullable(),
  })
  .meta({ id: 'NotificationPolicy' });
export type NotificationPolicy = z.infer<typeof notificationPolicy>;
