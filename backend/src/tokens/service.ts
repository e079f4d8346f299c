/**
 * Personal API tokens (docs/protocol.md "API tokens"): `argus_` + 43 base62
 * characters (≥ 256 bits), shown once, only a hash stored; status derived from
 * revoked / expired; revoked and expired tokens stay listed.
 */
import type { Bus } from '../bus/bus.js';
import type { AuditActor, AuditTrail } from '../lib/audit-trail.js';
import type { Clock } from '../lib/clock.js';
import { randomBase62, sha256 } from '../lib/crypto.js';
import { Invalid, NotFound } from '../lib/errors.js';
import type { TokenRow, TokensRepo } from './repo.js';
import type { ApiToken } from '../../../contracts/accounts.js';

export const TOKEN_PREFIX = 'argus_';
const TOKEN_FORMAT = /^argus_[0-9A-Za-z]{43}$/;
// last used is refreshed at most every few minutes (docs/protocol.md "API tokens")
export const LAST_USED_REFRESH_MS = 5 * 60_000;

/** A token as answers show it (contracts/accounts.ts), never its value. */
export type TokenView = ApiToken;
export type TokenStatus = ApiToken['status'];

export function createTokensService({
  repo,
  clock,
  bus,
  audit,
}: {
  repo: TokensRepo;
  clock: Clock;
  bus?: Pick<Bus, 'publish'>;
  audit: AuditTrail;
}) {
  function view(row: TokenRow): TokenView {
    const now = clock.now();
    const status: TokenStatus = row.revokedAt
      ? 'revoked'
      : row.expiresAt && row.expiresAt <= now
        ? 'expired'
        : 'active';
    return {
      id: row.id,
      name: row.name,
      createdAt: row.createdAt.toISOString(),
      expiresAt: row.expiresAt?.toISOString() ?? null,
      lastUsedAt: row.lastUsedAt?.toISOString() ?? null,
      revokedAt: row.revokedAt?.toISOString() ?? null,
      status,
    };
  }

  return {
    async create(
      actor: AuditActor,
      userId: number,
      name: string,
      expiresAt: Date | null,
    ): Promise<TokenView & { token: string }> {
      const now = clock.now();
      if (expiresAt && expiresAt <= now) throw new Invalid('expiresAt: must be in the future', { field: 'expiresAt' });
      const token = TOKEN_PREFIX + randomBase62(43);
      const row = await repo.transaction(async (trx) => {
        const inserted = await repo.insert(userId, name, sha256(token), expiresAt, now, trx);
        await audit.record(trx, actor, {
          action: 'token.create',
          targetType: 'token',
          targetId: inserted.id,
          after: { name, userId, expiresAt },
        });
        return inserted;
      });
      return { ...view(row), token };
    },

    async list(userId: number): Promise<TokenView[]> {
      return (await repo.listByUser(userId)).map(view);
    },

    async revoke(actor: AuditActor, userId: number, id: number): Promise<TokenView> {
      const row = await repo.findOwned(userId, id);
      if (!row) throw new NotFound('No such token');
      if (!row.revokedAt) {
        await repo.transaction(async (trx) => {
          await repo.revoke(id, clock.now(), trx);
          await audit.record(trx, actor, { action: 'token.revoke', targetType: 'token', targetId: id });
        });
        // open live sockets of this token close with 4401 at once (docs/protocol.md "API tokens": takes effect at once)
        await bus?.publish('rights', { userId });
      }
      return view((await repo.findOwned(userId, id)) as TokenRow);
    },

    /** Whether token `id` still works (not revoked, not expired, account enabled). */
    async isUsable(id: number): Promise<boolean> {
      return repo.isUsable(id, clock.now());
    },

    /** The account a presented token belongs to, or null. Malformed values never reach the database. */
    async verify(presented: string): Promise<{ tokenId: number; userId: number } | null> {
      if (!TOKEN_FORMAT.test(presented)) return null;
      const now = clock.now();
      const found = await repo.findUsable(sha256(presented), now);
      if (!found) return null;
      await repo.touchLastUsed(found.id, now, LAST_USED_REFRESH_MS);
      return { tokenId: found.id, userId: found.userId };
    },
  };
}

export type TokensService = ReturnType<typeof createTokensService>;
