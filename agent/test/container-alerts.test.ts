/**
 * From the engine to the alert: `argus-agent run`'s loop with the real collectors reports to a real
 * Argus, whose agent settings (made in the console) point it at the real Docker engine and at a
 * watched process pattern; the evaluation endpoint, called as the scheduler does, raises the default
 * container and process alerts and resolves them. A container stopped by the test and one removed
 * raise nothing. The cluster's overrides set `for` to 0 where the defaults wait a minute or two.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ensureDefaultRules } from '../../db/seed-rules.js';
import { useTestServer } from '../../backend/src/testing/app.js';
import { signedInAs } from '../../backend/src/testing/http.js';
import { startInProcessAgent } from './in-process-agent.js';
import { docker, ENGINE_SOCKET, ensureTinyImage, TINY_IMAGE } from './container-engine.js';
import { until } from './link.js';

const WEBHOOK_SECRET = 'container-alerts-webhook-secret-0123456789';
const CRON_SECRET = 'container-alerts-cron-secret-0123456789';
const tag = randomBytes(3).toString('hex');
const name = (role: string) => `argus-ca-${tag}-${role}`;
const pattern = `argus-watch-${tag}`;

interface OpenAlert {
  ruleKey: string;
  instance: string;
}

describe('container and process alerts, from the engine to the evaluation', () => {
  const fixture = useTestServer({ WEBHOOK_SECRET, CRON_SECRET });
  let dir: string;
  let enrollment: string;
  let admin: Awaited<ReturnType<typeof signedInAs>>;
  let watched: ChildProcess | null = null;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'argus-container-alerts-'));
    await ensureDefaultRules(fixture.db.knex);
    await ensureTinyImage();
    admin = await signedInAs(fixture.server.url, fixture.db.knex, 'ADMIN');
    const customer = await admin.post('/api/customers', { name: 'Containers GmbH' });
    const cluster = await admin.post('/api/clusters', { customerId: customer.body.id, name: 'docker-hosts' });
    enrollment = cluster.body.enrollmentKey;
    const scope = { type: 'cluster', id: cluster.body.id };
    for (const [key, value] of [
      ['containers.socket', ENGINE_SOCKET],
      ['processes', pattern],
    ])
      assert.equal((await admin.post('/api/agent-settings', { scope, key, value })).status, 201);
    for (const [key, metric, operator, threshold] of [
      ['container.unhealthy', 'container.healthy', '==', 0],
      ['process.not_running', 'processes.count', '==', 0],
    ] as const) {
      const override = await admin.post('/api/alert-rules', {
        key,
        name: `${key} at once`,
        severity: 'CRITICAL',
        metric,
        operator,
        threshold,
        forSeconds: 0,
        scope,
      });
      assert.equal(override.status, 201, JSON.stringify(override.body));
    }
    const run = (role: string, ...args: string[]) => docker('run', '-d', '--name', name(role), ...args);
    await run(
      'health',
      ...['--health-cmd', 'test -f /tmp/ok', '--health-interval', '1s', '--health-retries', '1'],
      ...[TINY_IMAGE, 'sh', '-c', ': > /tmp/ok; sleep 5; rm /tmp/ok; sleep 600'],
    );
    await run('loop', '--restart', 'always', TINY_IMAGE, 'sh', '-c', 'sleep 1; exit 3');
    await run('stopped', TINY_IMAGE, 'sleep', '600');
    await run('removed', TINY_IMAGE, 'sleep', '600');
  });
  after(async () => {
    watched?.kill('SIGKILL');
    const ids = await docker('ps', '-aq', '--filter', `name=argus-ca-${tag}`);
    if (ids) await docker('rm', '-f', ...ids.split('\n'));
    await rm(dir, { recursive: true, force: true });
  });

  it('raises exited, unhealthy, crash loop and not running; resolves them; a stop or a removal raises nothing', async () => {
    const { running, stop, logs } = await startInProcessAgent({
      serverUrl: fixture.server.url,
      webhookSecret: WEBHOOK_SECRET,
      enrollment,
      dir,
    });
    const raisedEver = new Set<string>();
    let lastOpen = new Set<string>();
    const waitFor = (what: string, check: () => Promise<boolean>, ms: number) =>
      until(what, check, ms).catch((error: Error) => {
        throw new Error(`${error.message}; open: ${[...lastOpen].join(', ')}; agent log: ${logs.join(' | ')}`);
      });
    const evaluate = async (): Promise<Set<string>> => {
      const run = await fetch(`${fixture.server.url}/api/cron/evaluate-alerts`, {
        method: 'POST',
        headers: { authorization: `Bearer ${CRON_SECRET}` },
      });
      assert.equal(run.status, 200);
      const open = (await admin.get('/api/alerts?state=open')).body as OpenAlert[];
      const keys = new Set(open.map((a) => `${a.ruleKey} ${a.instance.replace(`argus-ca-${tag}-`, '')}`));
      for (const key of keys) raisedEver.add(key);
      lastOpen = keys;
      return keys;
    };
    try {
      // started once the agent reads the engine (its settings came with the first answer): the agent
      // follows it from its start, and it crashes once; started again, it stays up (its file system
      // keeps the marker)
      await waitFor(
        'the agent reading the engine',
        async () => !!(await fixture.db.knex('metric_samples').where({ name: 'container.running' }).first()),
        60_000,
      );
      await docker(
        ...['run', '-d', '--name', name('crash'), TINY_IMAGE, 'sh', '-c'],
        'test -f /tmp/ran && sleep 600; : > /tmp/ran; sleep 3; exit 2',
      );
      let stopped = false;
      await waitFor(
        'the container and process alerts',
        async () => {
          const open = await evaluate();
          if (!stopped && open.has('container.unhealthy health')) {
            await docker('stop', '-t', '1', name('stopped'));
            await docker('rm', '-f', name('removed'));
            stopped = true;
          }
          return (
            ['container.exited crash', 'container.unhealthy health', 'container.crash_loop loop'].every((k) =>
              open.has(k),
            ) && open.has(`process.not_running ${pattern}`)
          );
        },
        90_000,
      );

      // the watched process starts, the crashed container is started again: both resolve
      await symlink('/bin/sh', join(dir, pattern));
      watched = spawn(join(dir, pattern), ['-c', 'sleep 600'], { stdio: 'ignore' });
      await docker('start', name('crash'));
      await waitFor(
        'the process and the container back',
        async () => {
          const open = await evaluate();
          return !open.has(`process.not_running ${pattern}`) && !open.has('container.exited crash');
        },
        60_000,
      );
    } finally {
      stop.abort();
      await running;
    }
    const aboutStoppedOrRemoved = [...raisedEver].filter((k) => / (stopped|removed)$/.test(k));
    assert.deepEqual(aboutStoppedOrRemoved, [], 'stopped by a request or removed: no alert');
    // before the first answer brought the settings, the agent looked at the default socket, and said so
    assert.ok(!logs.some((line) => line.includes(ENGINE_SOCKET)), logs.join('\n'));
  });
});
