/**
 * Script checks and drop-in metrics, from the built agent to the alert: the single executable of
 * `npm run build:agent` runs as a service against a real Argus with real scripts in a temporary
 * checks directory (OK, WARNING with performance data, CRITICAL, a timeout, a crash, one writable by
 * others and one owned by another user, which must not run) and real `.prom` files (valid, with a
 * malformed line, stale). The server stores their series and messages; the evaluation endpoint,
 * called as the scheduler does, raises the checks' alerts with their messages, routes them to a real
 * webhook receiver, and resolves one when its check turns OK. The tests run as root.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { access, chmod, chown, mkdir, mkdtemp, rm, unlink, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ensureDefaultRules, ensureScriptRules } from '../../db/seed-rules.js';
import { useTestServer } from '../../backend/src/testing/app.js';
import { signedInAs } from '../../backend/src/testing/http.js';
import { startWebhookReceiver, type WebhookReceiver } from '../../backend/src/testing/webhook-receiver.js';
import { buildAgent } from '../build/build-agent.js';
import { until } from './link.js';

const WEBHOOK_SECRET = 'script-checks-webhook-secret-0123456789ab';
const CRON_SECRET = 'script-checks-cron-secret-0123456789abcd';

interface OpenAlert {
  ruleKey: string;
  instance: string;
  severity: string;
  message: string;
}

const exists = (path: string) =>
  access(path).then(
    () => true,
    () => false,
  );

describe('script checks and drop-in metrics, from the built agent to the alert', { timeout: 600_000 }, () => {
  const fixture = useTestServer({ WEBHOOK_SECRET, CRON_SECRET, ARGUS_ALLOW_PRIVATE_WEBHOOKS: 'true' });
  let work: string;
  let binary: string;
  let checksDir: string;
  let textDir: string;
  let receiver: WebhookReceiver;
  let agent: ChildProcess | null = null;
  let output = '';

  /** An executable shell script in the checks directory, root's and 0755 unless told. */
  async function script(name: string, body: string, mode = 0o755): Promise<void> {
    const path = join(checksDir, name);
    await writeFile(path, `#!/bin/sh\n${body}\n`);
    await chmod(path, mode);
  }

  before(async () => {
    work = await mkdtemp(join(tmpdir(), 'argus-script-checks-'));
    ({ dir: binary } = await buildAgent({ outDir: join(work, 'dist'), arches: ['x86_64'] }));
    binary = join(binary, 'argus-agent-linux-x86_64');
    checksDir = join(work, 'checks.d');
    textDir = join(work, 'textfile');
    await mkdir(checksDir, { mode: 0o755 });
    await mkdir(textDir, { mode: 0o755 });
    await ensureDefaultRules(fixture.db.knex);
    assert.equal(await ensureScriptRules(fixture.db.knex), 3);
    receiver = await startWebhookReceiver();

    await script('disk_ok', `echo "OK - 42% used | used=42%;80;90;0;100 free=580GB"`);
    await script('load', `echo "WARNING - load 3.20 | 'load 1'=3.2;2;4 load5=2.5;2;4\nsecond line | late=7ms"; exit 1`);
    await script('backup', `echo "CRITICAL - last backup 30 h ago"; exit 2`);
    await script('slow', 'sleep 60');
    await script('crash', 'kill -SEGV $$');
    await script(
      'toggle',
      `if [ -f ${join(work, 'broken')} ]; then echo "CRITICAL - queue stuck"; exit 2; fi; echo "OK - queue moving"`,
    );
    // must never run: each would leave a marker
    await script('open', `touch ${join(work, 'open-ran')}; echo OK`, 0o757);
    await script('foreign', `touch ${join(work, 'foreign-ran')}; echo OK`);
    await chown(join(checksDir, 'foreign'), 65534, 65534);

    await writeFile(
      join(textDir, 'backup.prom'),
      '# HELP backup_last_success_timestamp_seconds When the backup last succeeded.\n' +
        '# TYPE backup_last_success_timestamp_seconds gauge\n' +
        'backup_last_success_timestamp_seconds{job="db",site="fra"} 1.7e9\n' +
        'backup_size_bytes{job="db"} 1234567\n',
    );
    await writeFile(
      join(textDir, 'mixed.prom'),
      'app_queue_depth 17\nthis is { not a sample\napp:requests_total 5 1700000000000\n',
    );
    await writeFile(join(textDir, 'stale.prom'), 'old_cron_value 1\n');
    const twoHoursAgo = new Date(Date.now() - 2 * 3600_000);
    await utimes(join(textDir, 'stale.prom'), twoHoursAgo, twoHoursAgo);
  });

  after(async () => {
    if (agent && agent.exitCode === null) {
      const exited = new Promise((resolve) => agent!.once('exit', resolve));
      agent.kill('SIGTERM');
      await exited;
    }
    await receiver?.close();
    await rm(work, { recursive: true, force: true });
  });

  it('runs the checks, refuses the unsafe files, reads the drop-ins; the alerts are raised, routed and resolved', async () => {
    const knex = fixture.db.knex;
    const admin = await signedInAs(fixture.server.url, knex, 'ADMIN');
    const customer = await admin.post('/api/customers', { name: 'Scripts GmbH' });
    const cluster = await admin.post('/api/clusters', { customerId: customer.body.id, name: 'plugins' });
    const scope = { type: 'cluster', id: cluster.body.id };
    for (const [key, value] of [
      ['scripts.interval', '5'],
      ['scripts.timeout', '2'],
    ])
      assert.equal((await admin.post('/api/agent-settings', { scope, key, value })).status, 201);
    const channel = await admin.post('/api/notification-channels', {
      name: 'Ops hook',
      type: 'webhook',
      target: `${receiver.url}/hook`,
    });
    assert.equal(channel.status, 201, JSON.stringify(channel.body));
    const policy = await admin.put('/api/notification-policies/global', {
      routes: [{ minSeverity: 'INFO', channelIds: [channel.body.id] }],
    });
    assert.equal(policy.status, 200, JSON.stringify(policy.body));

    const state = join(work, 'state');
    await mkdir(state, { mode: 0o700 });
    await writeFile(join(state, 'identity.json'), JSON.stringify({ sub: randomUUID(), agentKey: null }), {
      mode: 0o600,
    });
    const config = join(work, 'config.yaml');
    const answer = (await admin.get(`/api/agent/config?cluster=${cluster.body.id}`)).body as string;
    await writeFile(
      config,
      `${answer}state_dir: "${state}"\ninterval: 5\nchecks_dir: "${checksDir}"\ntextfile_dir: "${textDir}"\n`,
      { mode: 0o600 },
    );
    agent = spawn(binary, ['run', '--config', config], { stdio: ['ignore', 'pipe', 'pipe'] });
    agent.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    agent.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const waitFor = (what: string, check: () => Promise<boolean>, ms = 60_000) =>
      until(what, check, ms).catch((error: Error) => {
        throw new Error(`${error.message}; agent output:\n${output}`);
      });

    // the settings arrive with the first answer: the timeout of 2 s applies from then on
    const checks = async () => {
      const system = await knex('systems').where({ cluster_id: cluster.body.id }).first('id');
      if (!system) return [];
      return (await admin.get(`/api/systems/${system.id}/script-checks`)).body as {
        name: string;
        state: string;
        message: string;
        ranAt: string;
      }[];
    };
    await waitFor('every allowed check reported, the slow one timed out at 2 s', async () => {
      const list = await checks();
      return list.length === 6 && list.some((c) => c.name === 'slow' && /timed out after 2 s/.test(c.message));
    });
    const byName = new Map((await checks()).map((c) => [c.name, c]));
    assert.deepEqual(
      [...byName.keys()],
      ['backup', 'crash', 'disk_ok', 'load', 'slow', 'toggle'],
      'sorted by name, without the refused files',
    );
    assert.deepEqual(
      ['disk_ok', 'load', 'backup', 'crash', 'toggle'].map((n) => [n, byName.get(n)?.state, byName.get(n)?.message]),
      [
        ['disk_ok', 'OK', 'OK - 42% used'],
        ['load', 'WARNING', 'WARNING - load 3.20'],
        ['backup', 'CRITICAL', 'CRITICAL - last backup 30 h ago'],
        ['crash', 'UNKNOWN', 'killed by SIGSEGV'],
        ['toggle', 'OK', 'OK - queue moving'],
      ],
    );
    assert.equal(byName.get('slow')?.state, 'UNKNOWN');

    // refused, never run, and said once each with the reason
    assert.equal(await exists(join(work, 'open-ran')), false, 'a file writable by others never runs');
    assert.equal(await exists(join(work, 'foreign-ran')), false, 'a file of another user never runs');
    assert.equal(output.match(/open refused: writable by its group or others/g)?.length, 1, output);
    assert.equal(output.match(/foreign refused: owned by uid 65534, not root/g)?.length, 1, output);

    // the series: states, performance data in base units, drop-ins with their labels as the instance
    const system = (await knex('systems').where({ cluster_id: cluster.body.id }).first('id')) as { id: number };
    const latest = new Map(
      (await knex('metric_latest').where({ system_id: system.id }).select('name', 'instance', 'value')).map(
        (row: { name: string; instance: string; value: number }) => [`${row.name}{${row.instance}}`, row.value],
      ),
    );
    const expected: [string, number][] = [
      ['script.state{disk_ok}', 0],
      ['script.state{load}', 1],
      ['script.state{backup}', 2],
      ['script.state{crash}', 3],
      ['script.perf{disk_ok:used}', 42],
      ['script.perf{disk_ok:free}', 580 * 1024 ** 3],
      ['script.perf{load:load 1}', 3.2],
      ['script.perf{load:load5}', 2.5],
      ['script.perf{load:late}', 0.007],
      ['backup_last_success_timestamp_seconds{job=db,site=fra}', 1.7e9],
      ['backup_size_bytes{job=db}', 1234567],
      ['app_queue_depth{}', 17],
      ['app_requests_total{}', 5],
    ];
    for (const [series, value] of expected) assert.equal(latest.get(series), value, series);
    assert.ok(![...latest.keys()].some((k) => k.startsWith('old_cron_value')), 'a stale file is left out');
    assert.ok((latest.get('textfile.age_s{stale.prom}') ?? 0) > 7000, 'its age is sent');
    assert.match(output, /textfile .*mixed\.prom: skipped line 2/);
    assert.match(output, /textfile .*stale\.prom is stale/);
    assert.equal(output.match(/stale\.prom is stale/g)?.length, 1, 'said once');

    // the evaluation: one alert per check in trouble, its message the check's own
    const evaluate = async (): Promise<Map<string, OpenAlert>> => {
      const run = await fetch(`${fixture.server.url}/api/cron/evaluate-alerts`, {
        method: 'POST',
        headers: { authorization: `Bearer ${CRON_SECRET}` },
      });
      assert.equal(run.status, 200);
      const open = (await admin.get('/api/alerts?state=open')).body as OpenAlert[];
      return new Map(open.map((a) => [`${a.ruleKey} ${a.instance}`, a]));
    };
    const open = await evaluate();
    assert.deepEqual([...open.keys()].filter((k) => k.startsWith('script.')).sort(), [
      'script.critical backup',
      'script.unknown crash',
      'script.unknown slow',
      'script.warning load',
    ]);
    assert.equal(open.get('script.critical backup')?.severity, 'CRITICAL');
    assert.equal(open.get('script.warning load')?.severity, 'WARNING');
    assert.equal(open.get('script.unknown crash')?.severity, 'WARNING', 'UNKNOWN at the rule setting, WARNING');
    assert.equal(
      open.get('script.critical backup')?.message,
      'Script check backup is CRITICAL: CRITICAL - last backup 30 h ago',
    );
    await waitFor('the raised alert at the webhook', async () =>
      receiver.received.some((r) => r.json['event'] === 'raised' && /last backup 30 h ago/.test(r.body)),
    );

    // a check that turns CRITICAL raises; back to OK, its alert resolves and the webhook hears of it
    await writeFile(join(work, 'broken'), '');
    await waitFor('the toggle CRITICAL', async () =>
      (await checks()).some((c) => c.name === 'toggle' && c.state === 'CRITICAL'),
    );
    await waitFor(
      'its alert',
      async () =>
        (await evaluate()).get('script.critical toggle')?.message ===
        'Script check toggle is CRITICAL: CRITICAL - queue stuck',
    );
    await unlink(join(work, 'broken'));
    await waitFor('the toggle OK again', async () =>
      (await checks()).some((c) => c.name === 'toggle' && c.state === 'OK'),
    );
    await waitFor('its alert resolved', async () => !(await evaluate()).has('script.critical toggle'));
    await waitFor('the resolution at the webhook', async () =>
      receiver.received.some((r) => r.json['event'] === 'resolved' && /toggle/.test(r.body)),
    );
  });
});
