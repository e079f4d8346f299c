/**
 * `npm run bench [-- ingest|charts|compression|live|live-console|console-scale|evaluate|overview|status-page|replay|checks]`: prints figures, passes or fails nothing. Runs against the
 * real PostgreSQL and Redis of this machine, in a throwaway database.
 * - health: requests/s and latency percentiles of GET /api/health at a fixed concurrency
 * - metrics insert: rows/s of multi-row inserts into `metrics` (the group-commit path's floor)
 */
import { performance } from 'node:perf_hooks';
import { startTestServer, testConfig } from '../../backend/src/testing/app.js';
import { createTestDatabase } from '../../backend/src/testing/database.js';
import { percentile } from './statistics.js';

async function benchHealth(url: string, total: number, concurrency: number): Promise<void> {
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) {
        next += 1;
        const t0 = performance.now();
        const response = await fetch(`${url}/api/health`);
        await response.arrayBuffer();
        latencies.push(performance.now() - t0);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  console.log(
    `health: ${total} requests, concurrency ${concurrency}: ${(total / seconds).toFixed(0)} req/s, ` +
      `p50 ${percentile(latencies, 50).toFixed(1)} ms, p99 ${percentile(latencies, 99).toFixed(1)} ms`,
  );
}

async function benchInsert(db: Awaited<ReturnType<typeof createTestDatabase>>, batches: number, rowsPerBatch: number) {
  const names = ['cpu.usage_pct', 'mem.used_pct', 'load.1', 'disk.used_pct', 'net.rx_bps'];
  const base = Date.now() - 3600_000;
  const started = performance.now();
  const [set] = (
    (await db.knex.raw('SELECT metric_series_set_id(?::text[], ?::text[]) AS id', [names, names.map(() => '')])) as {
      rows: { id: number }[];
    }
  ).rows;
  for (let b = 0; b < batches; b++) {
    // one row per report of every name: rowsPerBatch samples a batch
    const rows = Array.from({ length: Math.ceil(rowsPerBatch / names.length) }, (_, i) => ({
      time: new Date(base + b * 1000 + Math.floor(i / 50)),
      system_id: (i % 50) + 1,
      set_id: set?.id,
      vals: names.map(() => Math.random() * 100),
    }));
    await db.knex('metrics').insert(rows).onConflict(['system_id', 'time']).ignore();
  }
  const seconds = (performance.now() - started) / 1000;
  console.log(
    `metrics insert: ${batches} batches of ${rowsPerBatch} rows: ${((batches * rowsPerBatch) / seconds).toFixed(0)} rows/s`,
  );
}

async function benchBasics(): Promise<void> {
  const db = await createTestDatabase();
  const server = await startTestServer(testConfig(db.url, { DATABASE_POOL_MAX: '20' }));
  try {
    await benchHealth(server.url, 200, 10); // warm-up
    await benchHealth(server.url, 5000, 50);
    await benchInsert(db, 200, 1000);
    console.log(`memory: rss ${(process.memoryUsage().rss / 1048576).toFixed(0)} MiB (bench process incl. server)`);
  } finally {
    await server.stop();
    await db.drop();
  }
}

// `npm run bench` runs the basics; `npm run bench -- ingest [options]` the ingest benchmark
const [which, ...rest] = process.argv.slice(2);
if (which === 'ingest') await (await import('./ingest.js')).benchIngest(rest);
else if (which === 'agent') await (await import('./agent.js')).benchAgent(rest);
else if (which === 'charts' && rest.includes('--real')) await (await import('./charts-real.js')).benchChartsReal(rest);
else if (which === 'charts') await (await import('./charts.js')).benchCharts(rest);
else if (which === 'evaluate') await (await import('./evaluate.js')).benchEvaluate(rest);
else if (which === 'live') await (await import('./live.js')).benchLive(rest);
else if (which === 'compression' && rest.includes('--real'))
  await (await import('./compression-real.js')).benchCompressionReal(rest);
else if (which === 'compression') await (await import('./compression.js')).benchCompression(rest);
else if (which === 'disk') await (await import('./disk-real.js')).benchDiskReal(rest);
else if (which === 'console-scale') await (await import('./console-scale.js')).benchConsoleScale(rest);
else if (which === 'live-console') await (await import('./live-console.js')).benchLiveConsole(rest);
else if (which === 'replay' && rest.includes('--costs'))
  await (await import('./replay-costs.js')).benchReplayCosts(rest);
else if (which === 'replay') await (await import('./replay.js')).benchReplay(rest);
else if (which === 'overview') await (await import('./overview.js')).benchOverview(rest);
else if (which === 'status-page') await (await import('./status-page.js')).benchStatusPage(rest);
else if (which === 'checks' && rest.includes('--agents'))
  await (await import('./checks-agents.js')).benchAgentChecks(rest);
else if (which === 'checks') await (await import('./checks.js')).benchChecks(rest);
else if (which === 'processes') await (await import('./proc-reads.js')).benchProcReads(rest);
else if (which === 'search') await (await import('./search-containers.js')).benchSearch(rest);
else await benchBasics();
