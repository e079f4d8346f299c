/**
 * `argus-agent run`'s loop against a real Argus behind a link the test cuts: reports made while the
 * server is unreachable wait in the on-disk buffer and all arrive, once each and in order, when it
 * is back; the agent never stops collecting meanwhile.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { useTestServer } from '../../backend/src/testing/app.js';
import { signedInAs } from '../../backend/src/testing/http.js';
import { openBuffer } from '../src/buffer.js';
import { createCollector } from '../src/collect.js';
import { parseConfig } from '../src/config.js';
import { hostFacts } from '../src/facts.js';
import { localHost } from '../src/host.js';
import { loadIdentity } from '../src/identity.js';
import { loadSettings } from '../src/settings-file.js';
import { backoffMs, runAgent } from '../src/runner.js';
import { cuttableLink, until } from './link.js';

const WEBHOOK_SECRET = 'agent-runner-webhook-secret-0123456789abc';

describe('argus-agent run', () => {
  const fixture = useTestServer({ WEBHOOK_SECRET });
  let dir: string;
  let enrollment: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'argus-runner-'));
    const admin = await signedInAs(fixture.server.url, fixture.db.knex, 'ADMIN');
    const customer = await admin.post('/api/customers', { name: 'Runner GmbH' });
    const cluster = await admin.post('/api/clusters', { customerId: customer.body.id, name: 'buffered' });
    enrollment = cluster.body.enrollmentKey;
    // an agent setting made in the console: the agent watches this backup marker from the first answer on
    await writeFile(join(dir, 'nightly.done'), '');
    const setting = await admin.post('/api/agent-settings', {
      scope: { type: 'cluster', id: cluster.body.id },
      key: 'backup.nightly',
      value: join(dir, 'nightly.done'),
    });
    assert.equal(setting.status, 201);
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('buffers every report while the server is unreachable and delivers each once when it is back', async () => {
    const link = await cuttableLink(fixture.server.port);
    const config = parseConfig(
      `webhook_url: "http://127.0.0.1:${link.port}/api/webhook/metrics"\nwebhook_secret: "${WEBHOOK_SECRET}"\n` +
        `enrollment: "${enrollment}"\nstate_dir: "${dir}"\n`,
    );
    const host = localHost();
    const buffer = await openBuffer(join(dir, 'buffer'));
    const made: string[] = [];
    const settings = { current: {} as Record<string, unknown> };
    const collector = createCollector(host, { primeMs: 10, settings: () => settings.current });
    const counting = {
      report: async () => {
        const report = await collector.report();
        made.push(report.ts);
        return report;
      },
    };
    const logs: string[] = [];
    const stop = new AbortController();
    const running = runAgent(
      {
        config,
        identity: await loadIdentity(dir, host),
        facts: await hostFacts(host),
        collector: counting,
        buffer,
        log: (line) => logs.push(line),
        intervalMs: 200,
        random: () => 0,
        settings,
      },
      stop.signal,
    );
    const db = fixture.db.knex;
    const stored = async () => {
      const system = await db('systems').first();
      if (!system) return [] as string[];
      const rows = await db('metric_samples')
        .where({ system_id: system.id, name: 'uptime.s' })
        .orderBy('time')
        .select('time');
      return rows.map((row: { time: Date }) => row.time.toISOString());
    };

    await until('the first reports', async () => (await stored()).length >= 2);
    await link.cut();
    const cutAt = made.length;
    await until(
      'reports made while the server is away',
      async () => made.length >= cutAt + 5 && (await buffer.size()) >= 4,
    );
    assert.ok(
      logs.some((line) => /unreachable/.test(line)),
      logs.join('\n'),
    );
    await link.restore();
    await until(
      'the buffer to drain',
      async () => (await buffer.size()) === 0 && (await stored()).length >= made.length - 1,
      30_000,
    );
    stop.abort();
    await running;
    await link.close();

    const times = await stored();
    assert.equal(new Set(times).size, times.length, 'each report stored once');
    assert.deepEqual(times, [...made].slice(0, times.length), 'every report made arrived, in order');
    assert.ok(times.length >= cutAt + 5);
    assert.ok(logs.some((line) => /answers again/.test(line)));
    const buffered = await db('metric_samples').where({ name: 'agent.buffered_reports' }).max('value as max').first();
    assert.ok(Number(buffered?.['max']) >= 3, 'agent.buffered_reports told the server how much had waited');
    const backup = await db('metric_samples').where({ name: 'backup.age_h', instance: 'nightly' }).first();
    assert.ok(backup, "the console's agent setting reached the agent, which reports the backup marker's age");
    const kept = await loadSettings(dir);
    assert.equal(kept.settings['backup.nightly'], join(dir, 'nightly.done'), 'kept for the next start');
    assert.match(kept.rev, /^[0-9a-f]{64}$/);
  });

  it('backs off 5 s, 10 s, 20 s … up to 5 minutes, with jitter', () => {
    assert.deepEqual(
      [1, 2, 3].map((n) => backoffMs(n, () => 1)),
      [5000, 10_000, 20_000],
    );
    assert.equal(
      backoffMs(30, () => 1),
      300_000,
    );
    assert.equal(
      backoffMs(1, () => 0),
      2500,
      'down to half',
    );
  });
});
