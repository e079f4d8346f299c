/** SQL of the clusters' enrolment figures and an ADMIN's one-hour raise of a cluster's limit. */
import type { Knex } from 'knex';
import type { Visible } from '../lib/access.js';
import { transactionOf } from '../lib/transaction.js';

export interface EnrollmentRaiseRow {
  hourlyLimit: number;
  expiresAt: Date;
  raisedBy: string | null;
}

export interface ClusterEnrollmentRow {
  clusterId: number;
  customerId: number;
  raise: EnrollmentRaiseRow | null;
  enrolledLastHour: number;
  refusedHosts: number;
  refusedAttempts: number;
  refusedForLimit: number;
  refusedOtherCustomer: number;
  lastRefusedAt: Date | null;
}

const HOUR_MS = 3600_000;

export function createEnrollmentRepo(db: Knex) {
  return {
    transaction: transactionOf(db),

    /** One row per visible cluster: the raise running at `now` and the last hour's figures. */
    async listClusterEnrollment(visible: Visible, now: Date): Promise<ClusterEnrollmentRow[]> {
      const since = new Date(now.getTime() - HOUR_MS);
      const query = db('clusters as c')
        .leftJoin('cluster_enrollment_raises as r', function joinRunningRaise() {
          this.on('r.cluster_id', 'c.id').andOn('r.expires_at', '>', db.raw('?', [now]));
        })
        .select(
          'c.id',
          'c.customer_id',
          'r.hourly_limit',
          'r.expires_at',
          'r.raised_by',
          db.raw(
            "(SELECT count(*)::int FROM systems s WHERE s.cluster_id = c.id AND s.kind = 'agent' AND s.created_at > ?) AS enrolled",
            [since],
          ),
          db.raw(
            `(SELECT json_build_object(
                'hosts', count(*)::int,
                'attempts', coalesce(sum(f.attempts), 0)::int,
                'limit', (count(*) FILTER (WHERE f.reason = 'hourly-limit'))::int,
                'other', (count(*) FILTER (WHERE f.reason = 'other-customer'))::int,
                'last', max(f.last_at))
              FROM cluster_enrollment_refusals f WHERE f.cluster_id = c.id AND f.last_at > ?) AS refused`,
            [since],
          ),
        )
        .orderBy('c.id');
      if (visible) query.whereIn('c.customer_id', [...visible]);
      const rows = (await query) as Record<string, unknown>[];
      return rows.map((row) => {
        const refused = row['refused'] as {
          hosts: number;
          attempts: number;
          limit: number;
          other: number;
          last: string | null;
        };
        return {
          clusterId: row['id'] as number,
          customerId: row['customer_id'] as number,
          raise:
            row['hourly_limit'] === null
              ? null
              : {
                  hourlyLimit: row['hourly_limit'] as number,
                  expiresAt: row['expires_at'] as Date,
                  raisedBy: row['raised_by'] as string | null,
                },
          enrolledLastHour: row['enrolled'] as number,
          refusedHosts: refused.hosts,
          refusedAttempts: refused.attempts,
          refusedForLimit: refused.limit,
          refusedOtherCustomer: refused.other,
          lastRefusedAt: refused.last === null ? null : new Date(refused.last),
        };
      });
    },

    async findRaise(clusterId: number, now: Date, q: Knex = db): Promise<EnrollmentRaiseRow | null> {
      const row = await q('cluster_enrollment_raises')
        .where({ cluster_id: clusterId })
        .where('expires_at', '>', now)
        .first();
      return row ? { hourlyLimit: row.hourly_limit, expiresAt: row.expires_at, raisedBy: row.raised_by } : null;
    },

    /** The cluster's raise from `now` for an hour; a running raise is replaced. */
    async putRaise(
      clusterId: number,
      input: { hourlyLimit: number; now: Date; raisedBy: string | null },
      q: Knex = db,
    ): Promise<void> {
      await q('cluster_enrollment_raises')
        .insert({
          cluster_id: clusterId,
          hourly_limit: input.hourlyLimit,
          expires_at: new Date(input.now.getTime() + HOUR_MS),
          raised_at: input.now,
          raised_by: input.raisedBy,
        })
        .onConflict('cluster_id')
        .merge();
    },
  };
}

export type EnrollmentRepo = ReturnType<typeof createEnrollmentRepo>;
