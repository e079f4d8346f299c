/**
 * SQL of the evaluation run (`createRunRepo`): each function takes the run's transaction as its
 * last argument (the pool when none is given; the lock needs one). Latest values come from `metric_latest` in one statement for all systems; `metrics`
 * (history) is never read (the bench prints the plans).
 */
import { escapeLike } from '../lib/like.js';
import type { Knex } from 'knex';
import { ALERT_COLUMNS, alertOfRow, type Alert } from '../alerts/alert-json.js';
import { scheduleOfRow } from '../maintenance/schedule.js';
import type { CustomerInfo, MaintenanceWindow } from './suppression.js';
import type {
  AlertRule,
  EventRule,
  NewAlert,
  OpenAlert,
  PendingCondition,
  Scope,
  ScopeType,
  SystemInfo,
  SystemStatus,
} from './types.js';

// shared by every Argus process; only one run at a time (overlapping calls wait)
export const EVALUATION_LOCK_KEY = 7_411_005;

const RETURNING_ALERT = ALERT_COLUMNS.join(', ');

/** An open alert's row with its hold (`evaluation_event_holds`) and flapping marks. */
function openAlertOfRow(row: Record<string, unknown>): OpenAlert {
  return {
    ...alertOfRow(row),
    ruleKind: row['rule_kind'] as OpenAlert['ruleKind'],
    holdUntil: row['hold_until'] as Date | null,
    flappingSince: row['flapping_since'] as Date | null,
    clearSince: row['clear_since'] as Date | null,
  };
}

function scopeOf(row: { scope_type: string | null; scope_id: number | null }): Scope | null {
  return row.scope_type && row.scope_id !== null ? { type: row.scope_type as ScopeType, id: row.scope_id } : null;
}

/** A LIKE pattern for an instance glob (`*` → `%`, `?` → `_`, the rest literal), or null for "any". */
export function globToLike(glob: string | null): string | null {
  if (!glob) return null;
  return escapeLike(glob).replace(/\*/g, '%').replace(/\?/g, '_');
}

const rows = <T>(result: { rows: T[] }) => result.rows;

/**
 * The part of the fleet a run evaluates: every customer (null), or one (a run that failed is
 * evaluated again customer by customer, so one customer's failing work does not stop the rest).
 * `ofCustomer(column)` is a condition with two bindings, `customerBindings(part)`.
 */
export type FleetPart = number | null;
export const ofCustomer = (column: string) => `(?::int IS NULL OR ${column} = ?)`;
export const customerBindings = (part: FleetPart): [number | null, number | null] => [part, part];

export function createRunRepo(db: Knex) {
  return {
    async lockRun(lockTimeoutMs: number, trx: Knex.Transaction): Promise<void> {
      await trx.raw(`SET LOCAL lock_timeout = ${Math.max(1, Math.floor(lockTimeoutMs))}`);
      await trx.raw('SELECT pg_advisory_xact_lock(?)', [EVALUATION_LOCK_KEY]);
    },
    async loadAlertRules(trx: Knex = db): Promise<AlertRule[]> {
      const list = await trx('alert_rules').select('*');
      return list.map((r) => ({
        key: r.key,
        name: r.name,
        kind: r.kind,
        severity: r.severity,
        enabled: r.enabled,
        scope: scopeOf(r),
        metric: r.metric,
        instanceGlob: r.instance_glob,
        operator: r.operator,
        threshold: r.threshold,
        absolute: r.absolute,
        forSeconds: r.for_seconds,
        horizonSeconds: r.horizon_seconds,
      }));
    },
    async loadEventRules(trx: Knex = db): Promise<EventRule[]> {
      const list = await trx('event_rules').select('*');
      return list.map((r) => ({
        key: r.key,
        name: r.name,
        severity: r.severity,
        enabled: r.enabled,
        scope: scopeOf(r),
        eventType: r.event_type,
        messagePattern: r.message_pattern,
        minEventSeverity: r.min_event_severity,
        derived: r.derived,
        holdSeconds: r.hold_seconds,
      }));
    },
    async loadCustomers(trx: Knex = db): Promise<CustomerInfo[]> {
      const list = await trx('customers').select('id', 'active', 'time_zone');
      return list.map((r) => ({ id: r.id, active: r.active, timeZone: r.time_zone }));
    },
    async loadMaintenanceWindows(trx: Knex = db): Promise<MaintenanceWindow[]> {
      const list = await trx('maintenance_windows').select('*');
      return list.map((r) => ({
        customerId: r.customer_id,
        scopeType: r.scope_type,
        scopeId: r.scope_id,
        schedule: scheduleOfRow(r),
      }));
    },
    async loadSystems(part: FleetPart = null, trx: Knex = db): Promise<SystemInfo[]> {
      const list = await trx('systems')
        .whereRaw(ofCustomer('customer_id'), customerBindings(part))
        .select('id', 'customer_id', 'cluster_id', 'status', 'last_seen_at', 'offline_alerts');
      return list.map((r) => ({
        id: r.id,
        customerId: r.customer_id,
        clusterId: r.cluster_id,
        status: r.status,
        lastSeenAt: r.last_seen_at,
        offlineAlerts: r.offline_alerts,
      }));
    },
    async loadClusterIds(trx: Knex = db): Promise<number[]> {
      return (await trx('clusters').select('id')).map((r) => r.id as number);
    },
    async loadOpenAlerts(part: FleetPart = null, trx: Knex = db): Promise<OpenAlert[]> {
      return rows(
        await trx.raw<{ rows: Record<string, unknown>[] }>(
          `SELECT ${ALERT_COLUMNS.map((c) => `a.${c}`).join(', ')}, a.rule_kind, h.hold_until, a.flapping_since, a.clear_since
             FROM alerts a LEFT JOIN evaluation_event_holds h ON h.alert_id = a.id
            WHERE a.state = 'open' AND ${ofCustomer('a.customer_id')}`,
          customerBindings(part),
        ),
      ).map(openAlertOfRow);
    },
    async loadPending(trx: Knex = db): Promise<PendingCondition[]> {
      const list = await trx('alert_pending').select('*');
      return list.map((r) => ({ ruleKey: r.rule_key, systemId: r.system_id, instance: r.instance, since: r.since }));
    },
    /** When the previous run happened (null before the first). */
    async lastRunAt(trx: Knex = db): Promise<Date | null> {
      const row = await trx('app_settings').where({ key: 'evaluation_last_run' }).first('value');
      return row ? new Date(row.value as string) : null;
    },
    async saveLastRunAt(at: Date, trx: Knex = db): Promise<void> {
      await trx('app_settings')
        .insert({ key: 'evaluation_last_run', value: JSON.stringify(at.toISOString()), updated_at: at })
        .onConflict('key')
        .merge(['value', 'updated_at']);
    },
    /** Pending conditions start over (after a gap in runs longer than the outage tolerance). */
    async restartPending(now: Date, trx: Knex = db): Promise<void> {
      await trx('alert_pending').update({ since: now });
    },
    /**
     * One statement whatever the count: the columns as arrays (one bind parameter each, not one per row).
     * `incidentsOf` names an alert's cluster and fleet incidents, decided before (no second write).
     */
    async insertAlerts(
      alerts: readonly NewAlert[],
      now: Date,
      incidentsOf: (alert: NewAlert) => { cluster: number | null; fleet: number | null },
      trx: Knex = db,
    ): Promise<Alert[]> {
      if (!alerts.length) return [];
      const incidents = alerts.map(incidentsOf);
      const { rows: inserted } = await trx.raw<{ rows: Record<string, unknown>[] }>(
        `INSERT INTO alerts (rule_key, rule_kind, system_id, customer_id, instance, severity, state, value, message,
                             started_at, incident_id, fleet_incident_id)
         SELECT t.rule_key, t.rule_kind, t.system_id, t.customer_id, t.instance, t.severity, 'open', t.value, t.message,
                ?, t.incident_id, t.fleet_incident_id
           FROM unnest(?::text[], ?::text[], ?::int[], ?::int[], ?::text[], ?::text[], ?::float8[], ?::text[],
                       ?::bigint[], ?::bigint[])
                AS t(rule_key, rule_kind, system_id, customer_id, instance, severity, value, message,
                     incident_id, fleet_incident_id)
         RETURNING ${RETURNING_ALERT}`,
        [
          now,
          alerts.map((a) => a.ruleKey),
          alerts.map((a) => a.ruleKind),
          alerts.map((a) => a.systemId),
          alerts.map((a) => a.customerId),
          alerts.map((a) => a.instance),
          alerts.map((a) => a.severity),
          // unnest() takes NULLs inside the array: no value
          alerts.map((a) => a.value) as number[],
          alerts.map((a) => a.message),
          incidents.map((i) => i.cluster) as number[],
          incidents.map((i) => i.fleet) as number[],
        ],
      );
      return inserted.map(alertOfRow);
    },
    async resolveAlerts(ids: readonly number[], now: Date, trx: Knex = db): Promise<Alert[]> {
      if (!ids.length) return [];
      const { rows: resolved } = await trx.raw<{ rows: Record<string, unknown>[] }>(
        `UPDATE alerts SET state = 'resolved', resolved_at = ?
          WHERE id = ANY(?::bigint[]) AND state = 'open'
          RETURNING ${RETURNING_ALERT}`,
        [now, [...ids]],
      );
      return resolved.map(alertOfRow);
    },
    async setHolds(holds: readonly { alertId: number; holdUntil: Date }[], trx: Knex = db): Promise<void> {
      if (!holds.length) return;
      await trx.raw(
        `INSERT INTO evaluation_event_holds (alert_id, hold_until)
         SELECT * FROM unnest(?::bigint[], ?::timestamptz[])
         ON CONFLICT (alert_id) DO UPDATE SET hold_until = excluded.hold_until`,
        [holds.map((h) => h.alertId), holds.map((h) => h.holdUntil)],
      );
    },
    async startPending(conditions: readonly PendingCondition[], trx: Knex = db): Promise<void> {
      if (!conditions.length) return;
      await trx.raw(
        `INSERT INTO alert_pending (rule_key, system_id, instance, since)
         SELECT * FROM unnest(?::text[], ?::int[], ?::text[], ?::timestamptz[]) ON CONFLICT DO NOTHING`,
        [
          conditions.map((c) => c.ruleKey),
          conditions.map((c) => c.systemId),
          conditions.map((c) => c.instance),
          conditions.map((c) => c.since),
        ],
      );
    },
    async endPending(conditions: readonly PendingCondition[], trx: Knex = db): Promise<void> {
      if (!conditions.length) return;
      await trx.raw(
        `DELETE FROM alert_pending p USING unnest(?::text[], ?::int[], ?::text[]) AS k(rule_key, system_id, instance)
          WHERE p.rule_key = k.rule_key AND p.system_id = k.system_id AND p.instance = k.instance`,
        [conditions.map((c) => c.ruleKey), conditions.map((c) => c.systemId), conditions.map((c) => c.instance)],
      );
    },
    /**
     * WARNING/CRITICAL follow each reporting system's worst open alert (ONLINE when
     * none); OFFLINE, STANDBY and PENDING are left alone. `worst` lists the systems
     * with an open WARNING or CRITICAL alert.
     */
    async applyAlertStatuses(
      worst: readonly { systemId: number; status: 'WARNING' | 'CRITICAL' }[],
      part: FleetPart = null,
      trx: Knex = db,
    ): Promise<{ id: number; status: SystemStatus }[]> {
      const result = await trx.raw<{ rows: { id: number; status: SystemStatus }[] }>(
        `WITH w AS (SELECT * FROM unnest(?::int[], ?::text[]) AS w(id, next)),
         touched AS (SELECT id FROM systems WHERE status IN ('WARNING', 'CRITICAL') UNION SELECT id FROM w)
         UPDATE systems s SET status = coalesce(w.next, 'ONLINE')
           FROM touched t LEFT JOIN w ON w.id = t.id
          WHERE s.id = t.id AND s.status IN ('ONLINE', 'WARNING', 'CRITICAL')
            AND s.status <> coalesce(w.next, 'ONLINE') AND ${ofCustomer('s.customer_id')}
          RETURNING s.id, s.status`,
        [worst.map((w) => w.systemId), worst.map((w) => w.status), ...customerBindings(part)],
      );
      return result.rows;
    },
    /** Current statuses of some systems (after this run's changes, inside its transaction). */
    async statusesOf(ids: readonly number[], trx: Knex = db): Promise<Map<number, SystemStatus>> {
      if (!ids.length) return new Map();
      const list = await trx('systems')
        .whereRaw('id = ANY(?::int[])', [[...ids]])
        .select('id', 'status');
      return new Map(list.map((r) => [r.id as number, r.status as SystemStatus]));
    },
    /**
     * What the health endpoint shows of the latest run (app_settings `evaluation_outcome`): when, how
     * many customers failed ('all': the whole run), and when a run last evaluated every customer.
     */
    async saveRunOutcome(outcome: { at: Date; failed: number | 'all' }, trx: Knex = db): Promise<void> {
      const at = outcome.at.toISOString();
      const value = { at, failed: outcome.failed, ...(outcome.failed === 0 ? { lastCompleteAt: at } : {}) };
      await trx.raw(
        `INSERT INTO app_settings (key, value, updated_at) VALUES ('evaluation_outcome', ?::jsonb, ?)
         ON CONFLICT (key) DO UPDATE SET updated_at = excluded.updated_at,
           value = excluded.value || jsonb_build_object('lastCompleteAt',
             coalesce(excluded.value->'lastCompleteAt', app_settings.value->'lastCompleteAt'))`,
        [JSON.stringify(value), outcome.at],
      );
    },
  };
}

export type RunRepo = ReturnType<typeof createRunRepo>;
