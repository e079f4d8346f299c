/**
 * `npm run bench -- checks`: the server's checks runner with 2,000 HTTP checks at 30 s (each a GET
 * with a keyword) against an HTTP server in a child process on loopback, in a throwaway database,
 * for `--seconds`. Prints runs per second, how many ran at once at most, the runner process's CPU,
 * its event-loop delay (what ingest and the live channel would feel in the same process), and the
 * response times stored. Figures only.
 *
 *   node --import tsx ops/bench/checks.ts [--checks 2000] [--interval 30] [--seconds 75]
 *
 * The checks agents run, sent with their reports: `-- checks --agents` (checks-agents.ts).
 */
import { spawn } from 'node:child_process';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { checksPolicy } from '../../backend/src/checks/policy.js';
import { createChecksRepo } from '../../backend/src/checks/repo.js';
import { createCheckRunner } from '../../backend/src/checks/runner.js';
import { systemClock } from '../../backend/src/lib/clock.js';
import { createSecretBox } from '../../backend/src/lib/secret-box.js';
import { createCustomer } from '../../backend/src/testing/accounts.js';
import { createTestDatabase } from '../../backend/src/testing/database.js';
import { captureLogger } from '../../backend/src/testing/logger.js';
import { freePort } from '../../backend/src/testing/net.js';

export async function benchChecks(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      checks: { type: 'string', default: '2000' },
      interval: { type: 'string', default: '30' },
      seconds: { type: 'string', default: '75' },
    },
  });
  const count = Number(values.checks);
  const interval = Number(values.interval);
  const port = await freePort();
  const target = spawn(
    process.execPath,
    ['-e', `require('http').createServer((q, s) => s.end('<p>welcome to the shop</p>')).listen(${port}, '127.0.0.1')`],
    { stdio: 'ignore' },
  );
  const db = await createTestDatabase();
  const { log } = captureLogger();
  try {
    const repo = createChecksRepo(db.knex);
    const customerId = await createCustomer(db.knex, 'Bench');
    await db.knex.transaction(async (trx) => {
      for (let i = 0; i < count; i++)
        await repo.insert(
          {
            customerId,
            clusterId: null,
            name: `shop ${i}`,
            type: 'http',
            settings: {
              type: 'http',
              url: `http://127.0.0.1:${port}/`,
              method: 'GET',
              expectedStatuses: '200-299',
              keyword: 'welcome',
              keywordIsRegex: false,
              keywordAbsent: false,
              followRedirects: true,
              verifyTls: true,
              headers: [],
            },
            sealedHeaders: null,
            intervalS: interval,
            timeoutS: 10,
            retries: 1,
            retryIntervalS: 20,
            maxResponseMs: null,
            locations: ['argus'],
            quorum: null,
            enabled: true,
          },
          trx,
        );
    });
    const box = createSecretBox({ settingsEncryptionKey: null, authSecret: 'b'.repeat(40) }, log);
    const runner = createCheckRunner({ repo, box, clock: systemClock, log, policy: checksPolicy(true) });
    const loop = monitorEventLoopDelay({ resolution: 10 });
    await runner.reload();
    loop.enable();
    const cpu = process.cpuUsage();
    const started = performance.now();
    runner.start();
    let most = 0;
    const seconds = Number(values.seconds);
    for (let s = 0; s < seconds; s++) {
      await new Promise((resolve) => setTimeout(resolve, 1000));
      most = Math.max(most, runner.figures().running);
    }
    await runner.stop();
    const elapsed = (performance.now() - started) / 1000;
    const used = process.cpuUsage(cpu);
    loop.disable();
    const runs = await db.knex('metric_samples').where({ name: 'check.up' }).count<{ n: string }[]>({ n: '*' });
    const times = await db.knex.raw<{ rows: { p50: number; p99: number; down: string }[] }>(
      `SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY value) AS p50,
              percentile_cont(0.99) WITHIN GROUP (ORDER BY value) AS p99,
              (SELECT count(*) FROM metric_samples WHERE name = 'check.up' AND value = 0) AS down
         FROM metric_samples WHERE name = 'check.response_ms'`,
    );
    const stored = Number(runs[0]?.n ?? 0);
    const t = times.rows[0];
    console.log(`checks: ${count} HTTP checks at ${interval} s, ${elapsed.toFixed(0)} s`);
    console.log(
      `  runs stored: ${stored} (${(stored / elapsed).toFixed(1)}/s; expected ${(count / interval).toFixed(1)}/s), failed: ${t?.down}`,
    );
    console.log(`  at once at most: ${most}`);
    console.log(
      `  runner process CPU: ${(((used.user + used.system) / 1e6 / elapsed) * 100).toFixed(1)} % of one core`,
    );
    console.log(
      `  event-loop delay: p50 ${(loop.percentile(50) / 1e6).toFixed(1)} ms, p99 ${(loop.percentile(99) / 1e6).toFixed(1)} ms, max ${(loop.max / 1e6).toFixed(1)} ms`,
    );
    console.log(`  response time stored: p50 ${t?.p50?.toFixed(1)} ms, p99 ${t?.p99?.toFixed(1)} ms`);
  } finally {
    target.kill();
    await db.drop();
  }
}
