/**
 * Compression, refresh and retention policies with if-not-exists semantics (docs/operations.md "Start-up sequence"):
 * an existing policy is never rewritten when a variable changes; the operator is told how to replace it.
 */
import { query, type StepContext } from './context.js';
import { compressionSettings } from './hypertable.js';
import { ROLLUPS, type Rollup } from './rollups.js';

interface Policy {
  /** Job procedure and relation as timescaledb_information.jobs names them. */
  proc: 'policy_compression' | 'policy_refresh_continuous_aggregate' | 'policy_retention';
  relation: string;
  /** Job config key → wanted interval. */
  wanted: Record<string, string>;
  variables: string;
  removeSql: string;
  addSql: string;
  addBindings: string[];
}

const LABEL: Record<Policy['proc'], string> = {
  policy_compression: 'compression',
  policy_refresh_continuous_aggregate: 'refresh',
  policy_retention: 'retention',
};

async function ensurePolicy({ knex, report }: StepContext, policy: Policy): Promise<void> {
  const label = `${LABEL[policy.proc]} policy of ${policy.relation}`;
  const [job] = await query<{ job_id: number; config: Record<string, unknown> | null }>(
    knex,
    `SELECT job_id, config FROM timescaledb_information.jobs
      WHERE proc_name = ? AND hypertable_schema = current_schema() AND hypertable_name = ?`,
    [policy.proc, policy.relation],
  );
  if (!job) {
    await knex.raw(policy.addSql, policy.addBindings);
    report.info(`Added the ${label} (${describe(policy.wanted)})`);
    return;
  }
  const differences: string[] = [];
  for (const [key, wanted] of Object.entries(policy.wanted)) {
    const current = job.config?.[key];
    const [row] = await query<{ differs: boolean }>(
      knex,
      // compared as intervals: '1 day' and '24:00:00' are the same policy
      'SELECT ?::interval IS DISTINCT FROM ?::interval AS differs',
      [typeof current === 'string' ? current : null, wanted],
    );
    if (row?.differs) differences.push(`${key} ${String(current)} (configured: ${wanted})`);
  }
  if (differences.length) {
    report.warn(
      `The existing ${label} is kept: ${differences.join(', ')}. Policies are not rewritten when ` +
        `${policy.variables} changes; to apply the new value run ${policy.removeSql} and restart the app.`,
    );
  }
}

function describe(values: Record<string, string>): string {
  return Object.entries(values)
    .map(([key, value]) => `${key} ${value}`)
    .join(', ');
}

export async function ensureCompressionPolicy(context: StepContext): Promise<void> {
  const compressAfter = context.retention.compressAfter.text;
  await ensurePolicy(context, {
    proc: 'policy_compression',
    relation: 'metrics',
    wanted: { compress_after: compressAfter },
    variables: 'METRICS_COMPRESS_AFTER',
    removeSql: "SELECT remove_compression_policy('metrics');",
    addSql: "SELECT add_compression_policy('metrics', compress_after => ?::interval, if_not_exists => true)",
    addBindings: [compressAfter],
  });
}

/**
 * The refresh window must stay inside raw retention: refreshing a range whose raw chunks were
 * dropped deletes the rollup rows of that range. It starts one bucket inside the shorter of raw and
 * rollup retention (the bucket containing the window start may be refreshed whole). The rollup's
 * retention is taken only when clearly shorter: a month is 28 to 31 days, but compares as 30.
 */
export async function ensureRefreshPolicy(context: StepContext, rollup: Rollup): Promise<string | null> {
  const { knex, retention, report } = context;
  const kept = rollup.retention(retention).text;
  const [window] = await query<{ start_offset: string; wide_enough: boolean }>(
    knex,
    `SELECT justify_hours(start_offset)::text AS start_offset, start_offset >= end_offset + 2 * width AS wide_enough
       FROM (SELECT CASE WHEN kept + INTERVAL '2 days' < raw THEN kept ELSE raw END - width AS start_offset,
                    end_offset, width
               FROM (VALUES (?::interval, ?::interval, ?::interval, ?::interval)) AS v (raw, kept, width, end_offset)) w`,
    [retention.rawRetention.text, kept, rollup.width, rollup.endOffset],
  );
  if (!window?.wide_enough) {
    // TimescaleDB refuses a window shorter than the end offset plus two buckets
    report.warn(
      `No refresh policy for ${rollup.view}: METRICS_RAW_RETENTION (${retention.rawRetention.text}) or ` +
        `${rollup.retentionVariable} (${kept}) is shorter than ${rollup.endOffset} + 3 × ${rollup.width}; ` +
        'its newest buckets stay real-time only.',
    );
    return null;
  }
  await ensurePolicy(context, {
    proc: 'policy_refresh_continuous_aggregate',
    relation: rollup.view,
    wanted: { start_offset: window.start_offset, end_offset: rollup.endOffset },
    variables: `METRICS_RAW_RETENTION or ${rollup.retentionVariable}`,
    removeSql: `SELECT remove_continuous_aggregate_policy('${rollup.view}');`,
    addSql: `SELECT add_continuous_aggregate_policy(?::regclass, start_offset => ?::interval,
               end_offset => ?::interval, schedule_interval => ?::interval, if_not_exists => true)`,
    addBindings: [rollup.view, window.start_offset, rollup.endOffset, rollup.schedule],
  });
  return window.start_offset;
}

/**
 * The rollups are compressed too: uncompressed they dominate the disk (`npm run bench -- disk
 * --real`). metrics_1h: a chunk is compressed a day after it leaves the refresh window, so its
 * refreshes never meet a compressed chunk. metrics_5m: at `Rollup.compressAfter`, inside the
 * window; a late report's refresh then rewrites its buckets inside a compressed chunk, which
 * TimescaleDB 2.28 does (the real tier tests it; the embedded 2.23 accepts the policy too). The
 * view stays real-time and reads compressed chunks like any others. Not when the rollup is not kept
 * past that point (nothing would be compressed) or has no refresh policy.
 */
export async function ensureRollupCompression(
  context: StepContext,
  rollup: Rollup,
  refreshStartOffset: string | null,
): Promise<void> {
  const { knex, retention } = context;
  if (refreshStartOffset === null) return;
  const kept = rollup.retention(retention).text;
  const [after] = await query<{ past_window: string; sooner: string | null; worth_it: boolean }>(
    knex,
    `SELECT justify_hours(?::interval + INTERVAL '1 day')::text AS past_window,
            CASE WHEN ?::interval < ?::interval THEN justify_hours(?::interval)::text END AS sooner,
            ?::interval + INTERVAL '1 day' < ?::interval AS worth_it`,
    [refreshStartOffset, rollup.compressAfter, refreshStartOffset, rollup.compressAfter, refreshStartOffset, kept],
  );
  if (!after?.worth_it) return;
  const compressAfter = after.sooner ?? after.past_window;
  await ensureRollupCompressionSettings(context, rollup, compressAfter);
  const policy = (value: string): Policy => ({
    proc: 'policy_compression',
    relation: rollup.view,
    wanted: { compress_after: value },
    variables: `METRICS_RAW_RETENTION or ${rollup.retentionVariable}`,
    removeSql: `SELECT remove_compression_policy('${rollup.view}');`,
    addSql: 'SELECT add_compression_policy(?::regclass, compress_after => ?::interval, if_not_exists => true)',
    addBindings: [rollup.view, value],
  });
  if (after.sooner === null) return ensurePolicy(context, policy(after.past_window));
  await replaceOwnPastWindowPolicy(context, rollup, after.past_window, after.sooner);
  await ensurePolicy(context, policy(after.sooner));
}

/**
 * An installation set up when the rollup was compressed only past its refresh window has the policy
 * this step added then (compress_after exactly window + 1 day, as no operator writes it): it is
 * replaced by the sooner one. Any other value is the operator's and is kept (ensurePolicy warns).
 */
async function replaceOwnPastWindowPolicy(
  { knex, report }: StepContext,
  rollup: Rollup,
  pastWindow: string,
  sooner: string,
): Promise<void> {
  const [own] = await query<{ job_id: number }>(
    knex,
    `SELECT job_id FROM timescaledb_information.jobs
      WHERE proc_name = 'policy_compression' AND hypertable_schema = current_schema() AND hypertable_name = ?
        AND (config->>'compress_after')::interval = ?::interval`,
    [rollup.view, pastWindow],
  );
  if (!own) return;
  await knex.raw('SELECT remove_compression_policy(?::regclass)', [rollup.view]);
  report.info(`${rollup.view} is compressed after ${sooner} from now on (was ${pastWindow}, past its refresh window)`);
}

/**
 * One compressed segment per system and series set, its buckets in order (as the raw table's): a
 * chart decompresses only its system's rows, and the same series' values of consecutive buckets lie
 * next to one another, where the compression finds what repeats. TimescaleDB's default for a
 * continuous aggregate (no segment, ordered by bucket, then system) puts one bucket of every system
 * in a segment: every chart of a system decompressed the whole fleet's segments of its range, and
 * with many systems the same series' previous bucket lay too far back for the compression to use it.
 */
export const ROLLUP_COMPRESS_SEGMENTBY = 'system_id, set_id';
export const ROLLUP_COMPRESS_ORDERBY = 'bucket DESC';

/**
 * Enables a rollup's compression with those settings, or moves one compressed with others to them:
 * chunks compressed from then on take the new settings, chunks compressed before keep theirs and
 * stay readable (tested on the real extension).
 */
async function ensureRollupCompressionSettings(
  { knex, report }: StepContext,
  rollup: Rollup,
  compressAfter: string,
): Promise<void> {
  const [state] = await query<{ compression_enabled: boolean; schema: string; hypertable: string }>(
    knex,
    `SELECT compression_enabled, materialization_hypertable_schema AS schema,
            materialization_hypertable_name AS hypertable
       FROM timescaledb_information.continuous_aggregates
      WHERE view_schema = current_schema() AND view_name = ?`,
    [rollup.view],
  );
  if (!state) return;
  const alter = `ALTER MATERIALIZED VIEW ${rollup.view} SET (timescaledb.compress = true,
                   timescaledb.compress_segmentby = '${ROLLUP_COMPRESS_SEGMENTBY}',
                   timescaledb.compress_orderby = '${ROLLUP_COMPRESS_ORDERBY}')`;
  if (!state.compression_enabled) {
    await knex.raw(alter);
    report.info(`${rollup.view} is compressed from now on (chunks older than ${compressAfter})`);
    return;
  }
  const current = await compressionSettings(knex, state.schema, state.hypertable);
  if (current.segmentBy === ROLLUP_COMPRESS_SEGMENTBY && current.orderBy === ROLLUP_COMPRESS_ORDERBY) return;
  await knex.raw(alter);
  report.info(
    `${rollup.view} compression now segments by ${ROLLUP_COMPRESS_SEGMENTBY} and orders by ` +
      `${ROLLUP_COMPRESS_ORDERBY} (was ${current.segmentBy || 'nothing'} / ${current.orderBy}); ` +
      'chunks compressed before keep their settings',
  );
}

export async function ensureRetentionPolicies(
  context: StepContext,
  rollups: readonly Rollup[] = ROLLUPS,
): Promise<void> {
  const targets = [
    { relation: 'metrics', dropAfter: context.retention.rawRetention.text, variable: 'METRICS_RAW_RETENTION' },
    ...rollups.map((rollup) => ({
      relation: rollup.view,
      dropAfter: rollup.retention(context.retention).text,
      variable: rollup.retentionVariable,
    })),
  ];
  for (const target of targets) {
    await ensurePolicy(context, {
      proc: 'policy_retention',
      relation: target.relation,
      wanted: { drop_after: target.dropAfter },
      variables: target.variable,
      removeSql: `SELECT remove_retention_policy('${target.relation}');`,
      addSql: 'SELECT add_retention_policy(?::regclass, drop_after => ?::interval, if_not_exists => true)',
      addBindings: [target.relation, target.dropAfter],
    });
  }
}
