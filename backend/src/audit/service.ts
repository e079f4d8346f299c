/**
 * The audit log (docs/api.md "Audit log"): every write through the API or console stores one row in the
 * transaction of the change, with its secrets sealed (redact.ts) and, for an update, only the
 * fields that changed. ADMIN reads every row; an OPERATOR the rows of its granted customers.
 */
import type { Knex } from 'knex';
import { visibleTo, type Principal } from '../lib/access.js';
import type { AuditActor, AuditEntry, AuditTrail } from '../lib/audit-trail.js';
import type { Clock } from '../lib/clock.js';
import { Forbidden, Invalid } from '../lib/errors.js';
import type { AuditEntry as AuditEntryJson, AuditPage } from '../../../contracts/audit.js';
import { changedFields, redact } from './redact.js';
import type { AuditFilters, AuditRepo, AuditRow } from './repo.js';

/** One row as GET /api/audit-log answers it (contracts/audit.ts). */
export type AuditItem = AuditEntryJson;

const item = (row: AuditRow): AuditItem => ({
  id: row.id,
  at: row.at.toISOString(),
  actor: { type: row.actorType, id: row.actorId, name: row.actorName },
  address: row.address,
  action: row.action,
  target: { type: row.targetType, id: row.targetId },
  customerId: row.customerId,
  before: row.before as AuditItem['before'],
  after: row.after as AuditItem['after'],
});

/** Opaque to clients: base64url of the last row's time and id. */
export function encodeCursor(row: { at: Date; id: number }): string {
  return Buffer.from(JSON.stringify([row.at.toISOString(), row.id])).toString('base64url');
}

export function decodeCursor(cursor: string): { at: Date; id: number } {
  try {
    const [at, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as [unknown, unknown];
    const date = new Date(String(at));
    if (typeof at === 'string' && !Number.isNaN(date.getTime()) && Number.isSafeInteger(id) && (id as number) > 0)
      return { at: date, id: id as number };
  } catch {
    // falls through to the 400
  }
  throw new Invalid('cursor: not a cursor this endpoint gave', { field: 'cursor' });
}

export function createAuditService({ repo, clock }: { repo: AuditRepo; clock: Clock }) {
  const trail: AuditTrail = {
    async record(trx: Knex, actor: AuditActor, entry: AuditEntry): Promise<void> {
      let before = entry.before ? (redact(entry.before) as Record<string, unknown>) : null;
      let after = entry.after ? (redact(entry.after) as Record<string, unknown>) : null;
      if (entry.before && entry.after) ({ before, after } = changedFields(entry.before, entry.after));
      await repo.insert(
        {
          at: clock.now(),
          actorType: actor.type,
          actorId: actor.id,
          actorName: actor.name,
          address: actor.address,
          action: entry.action,
          targetType: entry.targetType,
          targetId: entry.targetId === undefined || entry.targetId === null ? null : String(entry.targetId),
          customerId: entry.customerId ?? null,
          before,
          after,
        },
        trx,
      );
    },
    async recordAlone(actor: AuditActor, entry: AuditEntry): Promise<void> {
      await repo.transaction((trx) => trail.record(trx, actor, entry));
    },
  };

  return {
    ...trail,

    async list(
      principal: Principal,
      filters: Omit<AuditFilters, 'after'> & { cursor?: string | undefined },
      limit: number,
    ): Promise<AuditPage> {
      if (principal.role === 'VIEWER') throw new Forbidden('Your role does not allow this');
      const { cursor, ...rest } = filters;
      const rows = await repo.list(
        { ...rest, after: cursor ? decodeCursor(cursor) : undefined },
        visibleTo(principal),
        limit + 1,
      );
      const page = rows.slice(0, limit);
      const last = page.at(-1);
      return { items: page.map(item), nextCursor: rows.length > limit && last ? encodeCursor(last) : null };
    },

    /** Rows older than the retention (AUDIT_RETENTION), for the hourly housekeeping. */
    async purge(retentionMs: number): Promise<number> {
      return repo.purgeOlderThan(new Date(clock.now().getTime() - retentionMs));
    },
  };
}

export type AuditService = ReturnType<typeof createAuditService>;
