/**
 * Sends the channel outbox: after each evaluation run (and after an acknowledgement),
 * outside any transaction. Channels are served side by side, each one's deliveries in order, so a
 * target that hangs for its 10 s costs only its own queue; three failures in a row end that
 * channel's turn until the next pass. A 5xx, 429, timeout or network error is retried after 30 s,
 * 2, 5, 10 and 15 minutes (docs/api.md "Webhook contract"), by the passes of later runs; anything
 * else is final. Nothing goes for a suppressed system or a disabled channel, or later than an hour.
 */
import type { SecretBox } from '../lib/secret-box.js';
import type { Clock } from '../lib/clock.js';
import type { Logger } from '../lib/logger.js';
import type { Mailer } from '../mail/mailer.js';
import type { NotificationFacts } from '../channels/payloads.js';
import { sendToChannel } from '../channels/send.js';
import { openChannel } from '../channels/service.js';
import { RETRY_DELAYS_MS } from '../channels/webhook.js';
import type { DeliveriesRepo, DueDelivery } from './deliveries-repo.js';
import type { DeliveryResult, SystemRef } from './types.js';

const STALE_MS = 60 * 60_000;
const PER_PASS = 500;
const CHANNELS_AT_ONCE = 8;
const GIVE_UP_AFTER = 3;

export interface ChannelSenderDeps {
  repo: DeliveriesRepo;
  box: SecretBox;
  mailer: Mailer;
  clock: Clock;
  log: Logger;
  authUrl: string;
  allowPrivateWebhooks: boolean;
  /** Tests shorten the 10 s. */
  timeoutMs?: number;
}

export function factsOf(due: DueDelivery, authUrl: string): NotificationFacts {
  const iso = (d: Date | null) => d?.toISOString() ?? null;
  return {
    event: due.event,
    alert: {
      ...due.alert,
      startedAt: due.alert.startedAt.toISOString(),
      resolvedAt: iso(due.alert.resolvedAt),
      acknowledgedAt: iso(due.alert.acknowledgedAt),
      ackUntil: iso(due.alert.ackUntil),
    },
    system: { id: due.system.id, name: due.system.name, hostname: due.system.hostname },
    customer: due.customer,
    url: `${authUrl}/alerts/${due.alert.id}`,
    incident: due.incident,
  };
}

export function createChannelSender(deps: ChannelSenderDeps) {
  const { repo, clock, log } = deps;

  /** One delivery attempt; true when it went. */
  async function attempt(due: DueDelivery, suppressed: (system: SystemRef) => boolean): Promise<boolean | null> {
    const now = clock.now();
    const drop = async (reason: string) => {
      await repo.markDropped(due.id, reason);
      return null;
    };
    if (!due.channel.enabled) return drop('channel disabled');
    if (now.getTime() - due.createdAt.getTime() > STALE_MS) return drop('too old to send');
    const system = { id: due.system.id, customerId: due.customer.id, clusterId: due.system.clusterId };
    if (suppressed(system)) return drop('suppressed');
    const channel = openChannel(deps.box, due.channel);
    if (!channel) {
      await repo.markFailed(
        due.id,
        { status: null, error: 'The stored target does not open (key changed?)' },
        now,
        null,
      );
      return false;
    }
    const result = await sendToChannel(channel, factsOf(due, deps.authUrl), {
      mailer: deps.mailer,
      allowPrivate: deps.allowPrivateWebhooks,
      deliveryId: due.deliveryId,
      now,
      ...(deps.timeoutMs ? { timeoutMs: deps.timeoutMs } : {}),
    });
    const done = clock.now();
    if (result.ok) {
      await repo.markSent(due.id, result.status, done);
      return true;
    }
    const delay = result.retry ? RETRY_DELAYS_MS[due.attempts] : undefined;
    await repo.markFailed(
      due.id,
      { status: result.status, error: result.error ?? 'failed' },
      done,
      delay === undefined ? null : new Date(done.getTime() + delay),
    );
    log.warn(
      {
        delivery: due.deliveryId,
        alert: due.alert.id,
        channel: due.channel.id,
        attempt: due.attempts + 1,
        status: result.status,
      },
      `Notification not delivered: ${result.error ?? 'failed'}`,
    );
    return false;
  }

  return {
    async pass(suppressed: (system: SystemRef) => boolean): Promise<DeliveryResult> {
      const result: DeliveryResult = { sent: 0, failed: 0, dropped: 0 };
      const byChannel = new Map<number, DueDelivery[]>();
      for (const due of await repo.due(clock.now(), PER_PASS)) {
        const queue = byChannel.get(due.channel.id) ?? [];
        queue.push(due);
        byChannel.set(due.channel.id, queue);
      }
      const queues = [...byChannel.values()];
      const worker = async () => {
        for (let queue = queues.shift(); queue; queue = queues.shift()) {
          let failuresInRow = 0;
          for (const due of queue) {
            const outcome = await attempt(due, suppressed);
            if (outcome === null) result.dropped += 1;
            else if (outcome) {
              result.sent += 1;
              failuresInRow = 0;
            } else {
              result.failed += 1;
              if (++failuresInRow >= GIVE_UP_AFTER) break;
            }
          }
        }
      };
      await Promise.all(Array.from({ length: Math.min(CHANNELS_AT_ONCE, queues.length) }, worker));
      return result;
    },
  };
}

export type ChannelSender = ReturnType<typeof createChannelSender>;
