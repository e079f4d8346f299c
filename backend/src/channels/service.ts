/**
 * Notification channels (docs/api.md "Notification channels and routing"): ADMIN manages
 * every channel; an OPERATOR the channels of customers granted to it and reads the global ones. A
 * URL target and the signing secret are sealed at rest and never answered.
 */
import { randomUUID } from 'node:crypto';
import type { Bus } from '../bus/bus.js';
import { publishChange, reachOfCustomer } from '../bus/changes.js';
import { canSeeCustomer, canWriteCustomer, visibleTo, type Principal } from '../lib/access.js';
import type { AuditActor, AuditTrail } from '../lib/audit-trail.js';
import type { Clock } from '../lib/clock.js';
import { Forbidden, Invalid, NotFound, TooMany } from '../lib/errors.js';
import type { Logger } from '../lib/logger.js';
import type { SecretBox } from '../lib/secret-box.js';
import type { Mailer } from '../mail/mailer.js';
import type { RateLimiter } from '../ratelimit/rate-limiter.js';
import { places } from '../secrets/places.js';
import type { ChannelTestOutcome, ChannelTestResult } from '../../../contracts/channels.js';
import type { NotificationFacts } from './payloads.js';
import type { ChannelRow, ChannelsRepo } from './repo.js';
import { checkTarget, targetHint, type ChannelChanges, type ChannelInput } from './schema.js';
import { sendToChannel, type OpenedChannel, type SendFailure } from './send.js';

export function channelView(row: ChannelRow) {
  return {
    id: row.id,
    name: row.name,
    type: row.type,
    customerId: row.customerId,
    customerName: row.customerName,
    // a URL holds the service's token: write-only
    target: row.type === 'email' ? row.target : null,
    targetHint: row.targetHint,
    hasSecret: row.secret !== null,
    minSeverity: row.minSeverity,
    enabled: row.enabled,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}
export type ChannelView = ReturnType<typeof channelView>;

/** Opens a stored channel for sending; null when its sealed values do not open (key changed). */
export function openChannel(box: SecretBox, row: Pick<ChannelRow, 'id' | 'type' | 'target' | 'secret'>) {
  const target = row.type === 'email' ? row.target : box.open(row.target, places.channelTarget(row.id));
  const secret = row.secret === null ? null : box.open(row.secret, places.channelSecret(row.id));
  if (target === null || (row.secret !== null && secret === null)) return null;
  return { type: row.type, target, secret } satisfies OpenedChannel;
}

export interface ChannelsDeps {
  repo: ChannelsRepo;
  box: SecretBox;
  bus: Bus;
  clock: Clock;
  log: Logger;
  mailer: Mailer;
  allowPrivateWebhooks: boolean;
  authUrl: string;
  audit: AuditTrail;
  /** "Send test" per account and per channel: a test is a person checking a channel, not a probe. */
  testLimits: { perAccount: RateLimiter; perChannel: RateLimiter };
}

/** The limits of "Send test" (assembly.ts builds their limiters): a few per channel, more per account. */
export const CHANNEL_TEST_LIMITS = {
  perAccount: { name: 'channel-test-account', points: 20, durationSeconds: 3600, window: 'an hour' },
  perChannel: { name: 'channel-test-channel', points: 5, durationSeconds: 300, window: '5 minutes' },
} as const;

/** How "Send test" words a failure: the category only (the detail goes to the server's log). */
const TEST_OUTCOME: Record<SendFailure, ChannelTestOutcome> = {
  policy: 'refused by policy',
  unreachable: 'failed: unreachable',
  http: 'failed: rejected',
  'mail off': 'failed: e-mail switched off',
  'mail failed': 'failed: mail server error',
};

/** What the audit log keeps of a channel: target and secret only as "[sealed]" (redact.ts). */
const channelFacts = (row: ChannelRow) => ({
  name: row.name,
  type: row.type,
  customerId: row.customerId,
  target: row.target,
  targetHint: row.targetHint,
  secret: row.secret,
  minSeverity: row.minSeverity,
  enabled: row.enabled,
});

export function createChannelsService(deps: ChannelsDeps) {
  const { repo, box, bus, clock, audit } = deps;

  async function visibleChannel(principal: Principal, id: number): Promise<ChannelRow> {
    const row = await repo.find(id);
    if (!row || (row.customerId !== null && !canSeeCustomer(principal, row.customerId)))
      throw new NotFound('No such notification channel');
    return row;
  }

  async function writableChannel(principal: Principal, id: number): Promise<ChannelRow> {
    const row = await visibleChannel(principal, id);
    mayWrite(principal, row.customerId);
    return row;
  }

  function mayWrite(principal: Principal, customerId: number | null): void {
    if (customerId === null ? principal.role !== 'ADMIN' : !canWriteCustomer(principal, customerId))
      throw new Forbidden(
        customerId === null ? 'Only an admin may change a global channel' : 'You may not change this customer',
      );
  }

  // an e-mail target is addresses, not a credential: kept plain
  const sealTarget = (id: number, type: ChannelRow['type'], target: string) =>
    type === 'email' ? target : box.seal(target, places.channelTarget(id));
  const sealSecret = (id: number, secret: string | null | undefined) =>
    secret ? box.seal(secret, places.channelSecret(id)) : null;
  const changed = (id: number, customerId: number | null) =>
    publishChange(bus, { topic: 'channels', ids: [id], reach: reachOfCustomer(customerId) });

  /** Counts one test against both limits (the account's first: a refusal there spends nothing of the channel's). */
  async function withinTestLimits(userId: number, channelId: number): Promise<void> {
    const { perAccount, perChannel } = deps.testLimits;
    const account = await perAccount.consume(String(userId));
    if (!account.allowed)
      throw new TooMany(
        account.retryAfterSeconds,
        `Too many channel tests from this account (at most ${perAccount.points} in ${CHANNEL_TEST_LIMITS.perAccount.window}): try again later`,
      );
    const channel = await perChannel.consume(String(channelId));
    if (!channel.allowed)
      throw new TooMany(
        channel.retryAfterSeconds,
        `Too many tests of this channel (at most ${perChannel.points} in ${CHANNEL_TEST_LIMITS.perChannel.window}): try again later`,
      );
  }

  return {
    async list(principal: Principal, customerId?: number): Promise<ChannelView[]> {
      return (await repo.list(visibleTo(principal), customerId)).map(channelView);
    },

    async get(principal: Principal, id: number): Promise<ChannelView> {
      return channelView(await visibleChannel(principal, id));
    },

    async create(actor: AuditActor, principal: Principal, input: ChannelInput): Promise<ChannelView> {
      if (input.customerId !== null) {
        if (!canSeeCustomer(principal, input.customerId) || (await repo.customerName(input.customerId)) === null)
          throw new Invalid('customerId: no such customer', { field: 'customerId' });
      }
      mayWrite(principal, input.customerId);
      const checked = checkTarget(input.type, input.target) as { ok: string };
      const created = await repo.transaction(async (trx) => {
        const id = await repo.insert(
          {
            name: input.name,
            type: input.type,
            customerId: input.customerId,
            targetHint: targetHint(input.type, checked.ok),
            minSeverity: input.minSeverity,
            enabled: input.enabled,
          },
          (newId) => ({ target: sealTarget(newId, input.type, checked.ok), secret: sealSecret(newId, input.secret) }),
          trx,
        );
        const row = (await repo.find(id, trx)) as ChannelRow;
        await audit.record(trx, actor, {
          action: 'channel.create',
          targetType: 'channel',
          targetId: id,
          customerId: input.customerId,
          after: channelFacts(row),
        });
        return row;
      });
      await changed(created.id, input.customerId);
      return channelView(created);
    },

    async update(actor: AuditActor, principal: Principal, id: number, changes: ChannelChanges): Promise<ChannelView> {
      const current = await writableChannel(principal, id);
      let target: { target?: string; targetHint?: string } = {};
      if (changes.target !== undefined) {
        const checked = checkTarget(current.type, changes.target);
        if (typeof checked === 'string') throw new Invalid(`target: ${checked}`, { field: 'target' });
        target = {
          target: sealTarget(id, current.type, checked.ok),
          targetHint: targetHint(current.type, checked.ok),
        };
      }
      const updated = await repo.transaction(async (trx) => {
        await repo.update(
          id,
          {
            name: changes.name,
            minSeverity: changes.minSeverity,
            enabled: changes.enabled,
            ...target,
            ...(changes.secret === undefined ? {} : { secret: sealSecret(id, changes.secret) }),
          },
          trx,
        );
        const row = (await repo.find(id, trx)) as ChannelRow;
        await audit.record(trx, actor, {
          action: 'channel.update',
          targetType: 'channel',
          targetId: id,
          customerId: current.customerId,
          before: channelFacts(current),
          after: channelFacts(row),
        });
        return row;
      });
      await changed(id, current.customerId);
      return channelView(updated);
    },

    async remove(actor: AuditActor, principal: Principal, id: number): Promise<void> {
      const current = await writableChannel(principal, id);
      const policies = await repo.transaction(async (trx) => {
        const touched = await repo.delete(id, trx);
        await audit.record(trx, actor, {
          action: 'channel.delete',
          targetType: 'channel',
          targetId: id,
          customerId: current.customerId,
          before: channelFacts(current),
        });
        return touched;
      });
      await changed(id, current.customerId);
      for (const customerId of new Set(policies))
        await publishChange(bus, { topic: 'policies', ids: [customerId ?? 0], reach: reachOfCustomer(customerId) });
    },

    /**
     * Sends one `test` event now (no retries), within the limits per account and per channel, and
     * audits it. An e-mail channel's test goes to the caller's own address only (never a relay to
     * the channel's list). Answers the outcome and the HTTP status, never what the target said.
     */
    async test(actor: AuditActor, principal: Principal, id: number): Promise<ChannelTestResult> {
      const row = await writableChannel(principal, id);
      await withinTestLimits(principal.userId, id);
      const opened = openChannel(box, row);
      const now = clock.now();
      const result = opened
        ? await sendToChannel(
            opened.type === 'email' ? { ...opened, target: principal.email } : opened,
            sampleFacts(now, deps.authUrl),
            { mailer: deps.mailer, allowPrivate: deps.allowPrivateWebhooks, deliveryId: randomUUID(), now },
          )
        : null;
      const answer: ChannelTestResult = {
        ok: result?.ok === true,
        outcome: !result ? 'failed: target unreadable' : result.failure ? TEST_OUTCOME[result.failure] : 'delivered',
        status: result?.status ?? null,
      };
      await audit.recordAlone(actor, {
        action: 'channel.test',
        targetType: 'channel',
        targetId: id,
        customerId: row.customerId,
        after: { outcome: answer.outcome, status: answer.status },
      });
      deps.log.info(
        { channel: id, type: row.type, outcome: answer.outcome, status: answer.status, detail: result?.error ?? null },
        'Channel test sent',
      );
      return answer;
    },
  };
}

export type ChannelsService = ReturnType<typeof createChannelsService>;

/** A made-up alert for "Send test": recognisable, and clearly not a real one. */
function sampleFacts(now: Date, authUrl: string): NotificationFacts {
  return {
    event: 'test',
    alert: {
      id: 0,
      ruleKey: 'argus.test',
      ruleName: 'Test notification',
      severity: 'INFO',
      state: 'open',
      instance: '',
      value: null,
      message: 'This is a test from Argus: the channel works.',
      startedAt: now.toISOString(),
      resolvedAt: null,
      acknowledgedAt: null,
      ackUntil: null,
    },
    system: { id: 0, name: 'example-host', hostname: 'example-host' },
    customer: { id: 0, name: 'Argus' },
    url: `${authUrl}/alerts`,
  };
}
