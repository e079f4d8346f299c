/**
 * SQL the live channel needs beyond other features' services: the open-alert counts of
 * `alerts.counts`, the rights of every open connection in one statement per ping round, and the
 * fingerprint that tells the ping whether any snapshot can have changed.
 */
import type { Knex } from 'knex';
import type { AlertCounts } from '../../../contracts/live.js';
import type { Role } from '../lib/access.js';

/** What the credentials and accounts of the open connections are now. */
export interface RightsNow {
  liveSessions: ReadonlySet<string>;
  usableTokens: ReadonlySet<number>;
  /** Enabled accounts only; a disabled or deleted one is missing. */
  accounts: ReadonlyMap<number, { role: Role; customerIds: ReadonlySet<number> }>;
}

export interface RightsQuery {
  sessionIds: readonly string[];
  tokenIds: readonly number[];
  userIds: readonly number[];
}

/**
 * The same rules as sessions.isLive (not expired, not past its absolute expiry, second factor
 * done), tokens.isUsable (not revoked, not expired, account enabled) and users.principalFor
 * (enabled; an ADMIN's grants do not matter), for many at once: the live tests of revocation,
 * expiry, disabling, role and grant changes hold both to them.
 */
const RIGHTS_NOW = `
  SELECT 's' AS kind, s.id AS key, NULL::text AS role, NULL::int[] AS customers
    FROM sessions s
   WHERE s.id = ANY(?::text[]) AND s.expires_at > ? AND s.absolute_expires_at > ? AND s.stage = 'full'
  UNION ALL
  SELECT 't', t.id::text, NULL, NULL
    FROM api_tokens t JOIN users u ON u.id = t.user_id
   WHERE t.id = ANY(?::int[]) AND t.revoked_at IS NULL AND (t.expires_at IS NULL OR t.expires_at > ?)
     AND NOT u.disabled
  UNION ALL
  SELECT 'u', u.id::text, u.role,
         CASE WHEN u.role = 'ADMIN' THEN '{}'::int[]
              ELSE coalesce((SELECT array_agg(g.customer_id) FROM user_customer_grants g WHERE g.user_id = u.id), '{}')
         END
    FROM users u
   WHERE u.id = ANY(?::int[]) AND NOT u.disabled`;

/**
 * Everything a snapshot shows, folded into one value: the systems' listed columns, the names of
 * customers and clusters, and the open alerts. Unchanged between two pings → no snapshot is recomputed.
 */
const FLEET_FINGERPRINT = `
  SELECT
    (SELECT concat_ws(':', count(*), sum(hashtext(concat_ws('|', id, name, hostname, status, customer_id, cluster_id,
             last_seen_at, agent_version, os))::bigint)) FROM systems) AS systems,
    (SELECT concat_ws(':', count(*), sum(hashtext(concat_ws('|', id, name))::bigint)) FROM customers) AS customers,
    (SELECT concat_ws(':', count(*), sum(hashtext(concat_ws('|', id, name, customer_id))::bigint)) FROM clusters) AS clusters,
    (SELECT concat_ws(':', count(*), sum(hashtext(concat_ws('|', id, system_id, customer_id, severity,
             acknowledged_at))::bigint)) FROM alerts WHERE state = 'open') AS alerts`;

export interface FleetFingerprint {
  /** The systems list's own rows (systems, customer and cluster names). */
  fleet: string;
  /** Open alerts (both snapshots show them). */
  alerts: string;
}

export function createLiveRepo(db: Knex) {
  return {
    /** The rights of many connections in one statement (see RIGHTS_NOW). */
    async rightsNow(query: RightsQuery, now: Date): Promise<RightsNow> {
      const { rows } = (await db.raw(RIGHTS_NOW, [
        [...query.sessionIds],
        now,
        now,
        [...query.tokenIds],
        now,
        [...query.userIds],
      ])) as { rows: { kind: 's' | 't' | 'u'; key: string; role: Role | null; customers: number[] | null }[] };
      const liveSessions = new Set<string>();
      const usableTokens = new Set<number>();
      const accounts = new Map<number, { role: Role; customerIds: ReadonlySet<number> }>();
      for (const row of rows) {
        if (row.kind === 's') liveSessions.add(row.key);
        else if (row.kind === 't') usableTokens.add(Number(row.key));
        else accounts.set(Number(row.key), { role: row.role as Role, customerIds: new Set(row.customers ?? []) });
      }
      return { liveSessions, usableTokens, accounts };
    },

    async fleetFingerprint(): Promise<FleetFingerprint> {
      const { rows } = (await db.raw(FLEET_FINGERPRINT)) as { rows: Record<string, string>[] };
      const row = rows[0] ?? {};
      return { fleet: [row['systems'], row['customers'], row['clusters']].join('/'), alerts: String(row['alerts']) };
    },

    /** Open alerts of the visible customers (null: all of them). */
    async openAlertCounts(visible: ReadonlySet<number> | null): Promise<AlertCounts> {
      const query = db('alerts')
        .where('state', 'open')
        .first(
          db.raw('count(*)::int AS open'),
          db.raw("count(*) FILTER (WHERE severity = 'CRITICAL')::int AS critical"),
          db.raw("count(*) FILTER (WHERE severity = 'WARNING')::int AS warning"),
          db.raw("count(*) FILTER (WHERE severity = 'INFO')::int AS info"),
          db.raw('count(*) FILTER (WHERE acknowledged_at IS NULL)::int AS unacknowledged'),
        );
      if (visible) query.whereIn('customer_id', [...visible]);
      const row = (await query) as AlertCounts | undefined;
      return {
        open: row?.open ?? 0,
        critical: row?.critical ?? 0,
        warning: row?.warning ?? 0,
        info: row?.info ?? 0,
        unacknowledged: row?.unacknowledged ?? 0,
      };
    },

    /** The customer of each of these systems (a system that no longer exists is left out). */
    async customersOfSystems(ids: readonly number[]): Promise<Map<number, number>> {
      // one array parameter: a mass outage changes 10,000 systems at once (one bind parameter each breaks at 65,535)
      const rows = await db('systems')
        .whereRaw('id = ANY(?::int[])', [[...ids]])
        .select<{ id: number; customer_id: number }[]>('id', 'customer_id');
      return new Map(rows.map((row) => [row.id, row.customer_id]));
    },
  };
}

export type LiveRepo = ReturnType<typeof createLiveRepo>;
