/**
 * `npm run bench -- compression`: bytes per stored sample in
 * `metrics` before and after TimescaleDB compression (segmented by system and
 * metric, as db/timescale.ts configures it), on the WASM TimescaleDB build.
 * Samples come from the agent simulator's hosts (the full catalogue, drifting
 * values rounded to 2 decimals like a real agent's), one report every 30 s.
 *
 *   node --import tsx ops/bench/run.ts compression [--systems 10] [--hours 24]
 */
import { parseArgs } from 'node:util';
import { performance } from 'node:perf_hooks';
import { pino } from 'pino';
import { loadRetentionConfig } from '../../backend/src/config.js';
import { createKnex } from '../../db/connection.js';
import { startEmbeddedTimescale } from '../../db/embedded.js';
import { runMigrations } from '../../db/migrate.js';
import { setupTimescale } from '../../db/timescale.js';
import { loadSimulatedSamples } from './simulated-load.js';

export async function benchCompression(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: { systems: { type: 'string', default: '10' }, hours: { type: 'string', default: '24' } },
  });
  const systems = Number(values.systems);
  const hours = Number(values.hours);
  const embedded = await startEmbeddedTimescale({ log: pino({ level: 'silent' }) });
  const knex = createKnex({ url: embedded.url, poolMax: 1 });
  try {
    await runMigrations(knex);
    const outcome = await setupTimescale(knex, loadRetentionConfig({}), pino({ level: 'silent' }));
    if (!outcome.ok) throw new Error(`TimescaleDB step failed: ${outcome.messages.join('; ')}`);

    const started = performance.now();
    const { rows } = await loadSimulatedSamples(knex, { systems, hours });
    const loadSeconds = (performance.now() - started) / 1000;

    const size = async () => {
      const result = await knex.raw<{ rows: { bytes: string }[] }>(`SELECT hypertable_size('metrics') AS bytes`);
      return Number(result.rows[0]?.bytes ?? 0);
    };
    const plain = await size();
    const compressStarted = performance.now();
    await knex.raw(`SELECT compress_chunk(c, if_not_compressed => true) FROM show_chunks('metrics') c`);
    const compressSeconds = (performance.now() - compressStarted) / 1000;
    const compressed = await size();
    console.log(
      `compression (WASM TimescaleDB): ${systems} simulated hosts × ${hours} h every 30 s = ${rows} samples ` +
        `(loaded in ${loadSeconds.toFixed(0)} s); uncompressed ${(plain / rows).toFixed(1)} B/sample incl. the dedupe index, ` +
        `compressed ${(compressed / rows).toFixed(1)} B/sample (segment by system_id, set_id; ` +
        `${(plain / compressed).toFixed(1)}× smaller, compressed in ${compressSeconds.toFixed(0)} s)`,
    );
  } finally {
    await knex.destroy();
    await embedded.close();
  }
}
