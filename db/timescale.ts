/**
 * Start-up step 3 (docs/operations.md "Start-up sequence"): configure the time-series storage on every boot.
 * Idempotent; raw SQL; never throws: a failure is logged as one line and the app still starts.
 * Order matters on the first run: the rollups are backfilled before the retention policy exists, so a
 * converted table's old raw history reaches metrics_1h before the policy drops it.
 */
import type { Knex } from 'knex';
import type { RetentionConfig } from './environment.js';
import type { Logger } from './logger.js';
import { reason, Report, type StepContext } from './timescale/context.js';
import { ensureCompressionSettings, ensureExtension, ensureHypertable } from './timescale/hypertable.js';
import {
  ensureCompressionPolicy,
  ensureRefreshPolicy,
  ensureRetentionPolicies,
  ensureRollupCompression,
} from './timescale/policies.js';
import { dropEmptyLegacy } from './timescale/legacy.js';
import { backfillRollups, ensureRollups, ROLLUPS } from './timescale/rollups.js';

export { FAILURE_PREFIX } from './timescale/context.js';
export { BACKFILL_MARKER } from './timescale/rollups.js';

export interface TimescaleOutcome {
  /** Every part is in place (existing policies with other values included: they are kept on purpose). */
  ok: boolean;
  /** The timescaledb extension exists on the server and is created in the database. */
  extension: boolean;
  /** `metrics` is a hypertable. */
  hypertable: boolean;
  /** Size of the plain `metrics` table when its conversion was refused (METRICS_MAX_MIGRATE_BYTES). */
  refusedBytes: number | null;
  /** Rollups created by this run. */
  createdRollups: string[];
  /** The one-time backfill ran in this run. */
  backfilled: boolean;
  /** Every line the step logged, in order. */
  messages: string[];
}

export async function setupTimescale(knex: Knex, retention: RetentionConfig, log: Logger): Promise<TimescaleOutcome> {
  const report = new Report(log);
  const context: StepContext = { knex, retention, report };
  const outcome: TimescaleOutcome = {
    ok: false,
    extension: false,
    hypertable: false,
    refusedBytes: null,
    createdRollups: [],
    backfilled: false,
    messages: report.messages,
  };
  try {
    const extension = await ensureExtension(context);
    if (!extension.available) {
      report.failure(
        extension.notPreloaded
          ? 'the timescaledb extension is installed on this PostgreSQL server but not loaded: add timescaledb ' +
              'to shared_preload_libraries and restart PostgreSQL'
          : 'the timescaledb extension is not available on this PostgreSQL server',
      );
      return outcome;
    }
    outcome.extension = true;
    const table = await ensureHypertable(context);
    if (!table.hypertable) {
      outcome.refusedBytes = table.refusedBytes;
      return outcome;
    }
    outcome.hypertable = true;
  } catch (error) {
    report.failure(reason(error));
    return outcome;
  }

  // The parts below are independent: one failing does not keep the others from being set up.
  let failed = false;
  const part = async (name: string, run: () => Promise<void>): Promise<boolean> => {
    try {
      await run();
      return true;
    } catch (error) {
      failed = true;
      report.failure(`${name}: ${reason(error)}`);
      return false;
    }
  };
  const rollupsReady = await part('rollups', async () => {
    outcome.createdRollups = await ensureRollups(context);
  });
  if (rollupsReady) {
    await part('backfill', async () => {
      outcome.backfilled = await backfillRollups(context, outcome.createdRollups);
    });
  }
  await part('compression', async () => {
    await ensureCompressionSettings(context);
    await ensureCompressionPolicy(context);
  });
  if (rollupsReady) {
    for (const rollup of ROLLUPS) {
      let startOffset: string | null = null;
      const refreshed = await part(`refresh policy of ${rollup.view}`, async () => {
        startOffset = await ensureRefreshPolicy(context, rollup);
      });
      if (refreshed)
        await part(`compression of ${rollup.view}`, () => ensureRollupCompression(context, rollup, startOffset));
    }
  }
  await part('retention policies', () => ensureRetentionPolicies(context, rollupsReady ? ROLLUPS : []));
  await part('per-sample rows of before the upgrade', async () => {
    await dropEmptyLegacy(context);
  });

  outcome.ok = !failed;
  if (outcome.ok) report.info('TimescaleDB storage is set up (hypertable, compression, rollups, policies)');
  return outcome;
}
