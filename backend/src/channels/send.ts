/**
 * One send of one event to one channel, whatever its type: URL types through the webhook delivery
 * (SSRF checks, signature, 10 s, no redirects), e-mail through the mailer. The answer says whether a
 * later attempt may succeed; it never holds the target or the secret.
 */
import type { Mailer } from '../mail/mailer.js';
import { channelMail, channelRequest, type NotificationFacts } from './payloads.js';
import type { ChannelType } from './schema.js';
import { deliverWebhook, type WebhookFailure } from './webhook.js';

export interface OpenedChannel {
  type: ChannelType;
  /** Opened: a URL, or e-mail addresses separated by commas. */
  target: string;
  secret: string | null;
}

/** Why a send failed: the webhook's categories, or the mailer switched off or failing. */
export type SendFailure = WebhookFailure | 'mail off' | 'mail failed';

export interface SendResult {
  ok: boolean;
  /** null when it went. */
  failure: SendFailure | null;
  status: number | null;
  /** The detail, for the delivery log and the server's log (never for "Send test"). */
  error: string | null;
  retry: boolean;
}

export interface SendOptions {
  mailer: Mailer;
  allowPrivate: boolean;
  deliveryId: string;
  now: Date;
  timeoutMs?: number;
}

export async function sendToChannel(
  channel: OpenedChannel,
  facts: NotificationFacts,
  options: SendOptions,
): Promise<SendResult> {
  if (channel.type === 'email') {
    if (!(await options.mailer.isEnabled()))
      return {
        ok: false,
        failure: 'mail off',
        status: null,
        error: 'E-mail is switched off (Settings → Mail)',
        retry: true,
      };
    try {
      await options.mailer.send({ to: channel.target, ...channelMail(facts) });
      return { ok: true, failure: null, status: null, error: null, retry: false };
    } catch (error) {
      return { ok: false, failure: 'mail failed', status: null, error: (error as Error).message, retry: true };
    }
  }
  const request = channelRequest(channel.type, channel.target, facts);
  const result = await deliverWebhook(
    {
      url: request.url,
      event: facts.event,
      body: request.body,
      secret: channel.secret,
      deliveryId: options.deliveryId,
      now: options.now,
    },
    { allowPrivate: options.allowPrivate, ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}) },
  );
  return result.ok
    ? { ok: true, failure: null, status: result.status, error: null, retry: false }
    : { ok: false, failure: result.failure, status: result.status, error: result.error, retry: result.retry };
}
