/**
 * SQL of the evaluation run that reads what the agents sent: the latest values (`system_latest`, one
 * statement for all systems), silence, reboots and agent events. Each function takes the run's
 * transaction as its last argument; `metrics` (history) is never read (the bench prints the plans).
 */
import type { Knex } from 'knex';
import { conditionRanges } from './ranges.js';
import { customerBindings, globToLike, ofCustomer, type FleetPart } from './repo.js';
import type { AgentEvent, AlertRule, LatestSample, Reboot, Severity, SystemInfo, SystemStatus } from './types.js';

/**
 * Reporting systems silent since `cutoff` become OFFLINE (offline alerts on) or
 * STANDBY (off); a silent system whose flag changed moves between the two. The
 * WHERE is re-checked on each row, so a report committing meanwhile wins.
 */
/** The longest announced restart Argus waits out (a planned disconnect, ≤ 10 minutes). */
export const MAX_RESTART_GRACE_S = 600;
/** An `agent.restarting` event whose message names no grace. */
export const DEFAULT_RESTART_GRACE_S = 300;

function toSample(r: Record<string, unknown>): LatestSample {
  return {
    systemId: r['system_id'] as number,
    name: r['name'] as string,
    instance: r['instance'] as string,
    value: r['value'] as number,
    time: r['time'] as Date,
  };
}

export function createObservationsRepo(db: Knex) {
  return {
    /**
     * Systems silent since before `cutoff` turn OFFLINE (STANDBY without offline alerts), unless their
     * agent announced a restart or update (`agent.restarting`, the grace in seconds as the message
     * itself or as `grace=<seconds>` in it, 5 minutes when it names none, at most 10) with its last
     * report and the grace has not run out at `now`.
     */
    async markSilentSystems(
      cutoff: Date,
      now: Date,
      part: FleetPart = null,
      trx: Knex = db,
    ): Promise<{ id: number; from: SystemStatus; to: SystemStatus }[]> {
      const result = await trx.raw<{ rows: { id: number; from: SystemStatus; to: SystemStatus }[] }>(
        `UPDATE systems s SET status = CASE WHEN s.offline_alerts THEN 'OFFLINE' ELSE 'STANDBY' END
           FROM systems old
          WHERE old.id = s.id AND s.last_seen_at < ? AND ${ofCustomer('s.customer_id')}
            AND (s.status IN ('ONLINE', 'WARNING', 'CRITICAL')
                 OR (s.status = 'OFFLINE' AND NOT s.offline_alerts)
                 OR (s.status = 'STANDBY' AND s.offline_alerts))
            AND NOT EXISTS (
              SELECT 1 FROM agent_events e
               WHERE e.system_id = s.id AND e.type = 'agent.restarting'
                 AND e.time >= s.last_seen_at - interval '1 minute'
                 AND e.time + make_interval(secs => least(?, coalesce((regexp_match(e.message, '(^|grace=)([0-9]{1,6})'))[2]::int, ?))) > ?)
          RETURNING s.id, old.status AS "from", s.status AS "to"`,
        [cutoff, ...customerBindings(part), MAX_RESTART_GRACE_S, DEFAULT_RESTART_GRACE_S, now],
      );
      return result.rows;
    },
    /**
     * Fresh samples (time ≥ freshSince) on which at least one enabled metric rule's
     * condition holds, respecting the rule's metric, glob and scope. One statement
     * over system_latest for all systems, conditions as value ranges (ranges.ts) in
     * a hash join; JS then applies the overrides exactly (a superset is fine). Only the
     * names are unnested, the rest read by position: unnesting all four arrays (the
     * metric_latest view) cost ~25 % more at 10,000 systems × 60 series.
     * Scoped rules are joined on (metric, system) for the systems in their scope.
     */
    async firingCandidates(
      freshSince: Date,
      rules: readonly AlertRule[],
      systems: Iterable<Pick<SystemInfo, 'id' | 'customerId' | 'clusterId'>>,
      trx: Knex = db,
    ): Promise<LatestSample[]> {
      const global = {
        metric: [] as string[],
        lo: [] as number[],
        hi: [] as number[],
        pattern: [] as (string | null)[],
      };
      const scoped = { ...structuredClone(global), systemId: [] as number[] };
      const list = [...systems];
      for (const rule of rules) {
        if (rule.kind !== 'metric' || !rule.metric || !rule.operator || rule.threshold === null) continue;
        const inScope = rule.scope
          ? list.filter((s) =>
              rule.scope?.type === 'system'
                ? s.id === rule.scope.id
                : rule.scope?.type === 'cluster'
                  ? s.clusterId === rule.scope.id
                  : s.customerId === rule.scope?.id,
            )
          : null;
        for (const [lo, hi] of conditionRanges({
          operator: rule.operator,
          threshold: rule.threshold,
          absolute: rule.absolute,
        })) {
          const pattern = globToLike(rule.instanceGlob);
          if (!inScope) {
            global.metric.push(rule.metric);
            global.lo.push(lo);
            global.hi.push(hi);
            global.pattern.push(pattern);
            continue;
          }
          for (const system of inScope) {
            scoped.metric.push(rule.metric);
            scoped.lo.push(lo);
            scoped.hi.push(hi);
            scoped.pattern.push(pattern);
            scoped.systemId.push(system.id);
          }
        }
      }
      if (!global.metric.length && !scoped.metric.length) return [];
      const result = await trx.raw<{ rows: Record<string, unknown>[] }>(
        `WITH g AS (
           SELECT * FROM unnest(?::text[], ?::float8[], ?::float8[], ?::text[]) AS g(metric, lo, hi, pattern)
         ), s AS (
           SELECT * FROM unnest(?::text[], ?::float8[], ?::float8[], ?::text[], ?::int[]) AS s(metric, lo, hi, pattern, system_id)
         )
         SELECT l.system_id, u.name, l.instances[u.k] AS instance, l.vals[u.k] AS value, l.times[u.k] AS time
           FROM system_latest l, unnest(l.names) WITH ORDINALITY AS u(name, k) JOIN g ON g.metric = u.name
          WHERE l.times[u.k] >= ? AND l.vals[u.k] BETWEEN g.lo AND g.hi
            AND (g.pattern IS NULL OR l.instances[u.k] LIKE g.pattern)
         UNION
         SELECT l.system_id, s.metric, l.instances[k], l.vals[k], l.times[k]
           FROM s JOIN system_latest l USING (system_id), unnest(array_positions(l.names, s.metric)) AS k
          WHERE l.times[k] >= ? AND l.vals[k] BETWEEN s.lo AND s.hi AND (s.pattern IS NULL OR l.instances[k] LIKE s.pattern)`,
        [
          global.metric,
          global.lo,
          global.hi,
          global.pattern,
          scoped.metric,
          scoped.lo,
          scoped.hi,
          scoped.pattern,
          scoped.systemId,
          freshSince,
          freshSince,
        ] as Knex.RawBinding[],
      );
      return result.rows.map(toSample);
    },
    /** The newest sample of the given series (open alerts' series), whatever its age. */
    async latestOf(
      series: readonly { systemId: number; name: string; instance: string }[],
      trx: Knex = db,
    ): Promise<LatestSample[]> {
      if (!series.length) return [];
      const result = await trx.raw<{ rows: Record<string, unknown>[] }>(
        `SELECT ml.system_id, ml.name, ml.instance, ml.value, ml.time
           FROM unnest(?::int[], ?::text[], ?::text[]) AS k(system_id, name, instance)
           JOIN metric_latest ml USING (system_id, name, instance)`,
        [series.map((s) => s.systemId), series.map((s) => s.name), series.map((s) => s.instance)],
      );
      return result.rows.map(toSample);
    },
    /**
     * Derived reboots: systems whose newest `uptime.s` went down since the sample the
     * previous run saw, or whose boot time (sample time − uptime) moved on by more
     * than 5 minutes (a reboot during a longer outage). Remembers the newest sample.
     */
    async detectReboots(part: FleetPart = null, trx: Knex = db): Promise<Reboot[]> {
      const result = await trx.raw<{ rows: Record<string, unknown>[] }>(
        // the uptime's position in each system's arrays (db/migrations/0018): unnesting every series
        // of 10,000 systems to find one cost ~160 ms a run
        `WITH cur AS (
           SELECT system_id, vals[p] AS value, times[p] AS time
             FROM system_latest, array_position(names, 'uptime.s') AS p
            WHERE p IS NOT NULL
              AND (?::int IS NULL OR system_id IN (SELECT id FROM systems WHERE customer_id = ?))
         ), saved AS (
           INSERT INTO evaluation_uptime (system_id, uptime, sample_time)
           SELECT system_id, value, time FROM cur
           ON CONFLICT (system_id) DO UPDATE SET uptime = excluded.uptime, sample_time = excluded.sample_time
           WHERE excluded.sample_time > evaluation_uptime.sample_time
         )
         SELECT cur.system_id, cur.value AS uptime, cur.time, prev.uptime AS previous
           FROM cur JOIN evaluation_uptime prev USING (system_id)
          WHERE cur.time > prev.sample_time
            AND (cur.value < prev.uptime
                 OR cur.time - make_interval(secs => cur.value)
                    > prev.sample_time - make_interval(secs => prev.uptime) + interval '5 minutes')`,
        customerBindings(part),
      );
      return result.rows.map((r) => ({
        systemId: r['system_id'] as number,
        uptime: r['uptime'] as number,
        previousUptime: r['previous'] as number,
        sampleTime: r['time'] as Date,
      }));
    },
    /** Agent events received since `since` that no run has evaluated yet. */
    async unseenEvents(since: Date, part: FleetPart = null, trx: Knex = db): Promise<AgentEvent[]> {
      const result = await trx.raw<{ rows: Record<string, unknown>[] }>(
        `SELECT e.id, e.system_id, e.time, e.type, e.severity, e.message, e.received_at
           FROM agent_events e
          WHERE e.received_at >= ?
            AND NOT EXISTS (SELECT 1 FROM evaluation_seen_events s WHERE s.event_id = e.id)
            AND (?::int IS NULL OR e.system_id IN (SELECT id FROM systems WHERE customer_id = ?))
          ORDER BY e.id`,
        [since, ...customerBindings(part)],
      );
      return result.rows.map((r) => ({
        id: Number(r['id']),
        systemId: r['system_id'] as number,
        time: r['time'] as Date,
        type: r['type'] as string,
        severity: r['severity'] as Severity,
        message: r['message'] as string,
        receivedAt: r['received_at'] as Date,
      }));
    },
    async markEventsSeen(events: readonly AgentEvent[], forgetBefore: Date, trx: Knex = db): Promise<void> {
      if (events.length) {
        await trx.raw(
          `INSERT INTO evaluation_seen_events (event_id, received_at)
           SELECT * FROM unnest(?::bigint[], ?::timestamptz[]) ON CONFLICT DO NOTHING`,
          [events.map((e) => e.id), events.map((e) => e.receivedAt)],
        );
      }
      await trx('evaluation_seen_events').where('received_at', '<', forgetBefore).delete();
    },
    /** What each of these script checks last said (`script_checks`), keyed `<system id>\u0000<check name>`. */
    async scriptCheckMessages(
      checks: readonly { systemId: number; name: string }[],
      trx: Knex = db,
    ): Promise<Map<string, string>> {
      const { rows } = await trx.raw<{ rows: { system_id: number; name: string; message: string }[] }>(
        `SELECT c.system_id, c.name, c.message
           FROM script_checks c
           JOIN unnest(?::int[], ?::text[]) AS raised(system_id, name) USING (system_id, name)`,
        [checks.map((c) => c.systemId), checks.map((c) => c.name)],
      );
      return new Map(rows.map((row) => [`${row.system_id}\u0000${row.name}`, row.message]));
    },
  };
}

export type ObservationsRepo = ReturnType<typeof createObservationsRepo>;
