/**
 * `argus-agent once` against a real Argus (the in-process test server): the config as the installer
 * writes it (GET /api/agent/config), this machine's real /proc and /sys, enrolment by the cluster's
 * key, then the agent key from the state directory; a wrong secret is a clear message and exit 1.
 */
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { useTestServer } from '../../backend/src/testing/app.js';
import { signedInAs } from '../../backend/src/testing/http.js';
import { main } from '../src/cli.js';

const WEBHOOK_SECRET = 'agent-once-webhook-secret-0123456789abcdef';

function capture() {
  const lines = { out: [] as string[], err: [] as string[] };
  return { lines, io: { out: (line: string) => lines.out.push(line), err: (line: string) => lines.err.push(line) } };
}

describe('argus-agent once, against a real server', () => {
  const fixture = useTestServer({ WEBHOOK_SECRET });
  let dir: string;
  let configFile: string;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'argus-agent-'));
    const admin = await signedInAs(fixture.server.url, fixture.db.knex, 'ADMIN');
    const customer = await admin.post('/api/customers', { name: 'Agent GmbH' });
    const cluster = await admin.post('/api/clusters', { customerId: customer.body.id, name: 'real hosts' });
    const config = await admin.get(`/api/agent/config?cluster=${cluster.body.id}`);
    assert.equal(config.status, 200);
    configFile = join(dir, 'config.yaml');
    // the installer's file, plus where this test keeps the state
    await writeFile(configFile, `${config.body as string}state_dir: "${join(dir, 'state')}"\n`, { mode: 0o600 });
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('enrols this machine and its system shows real cpu, memory, disk / and uptime', async () => {
    const first = capture();
    assert.equal(await main(['once', '--config', configFile], first.io), 0, first.lines.err.join('\n'));
    const answer = JSON.parse(first.lines.out.join('\n')) as { accepted: number; agentKey?: string };
    assert.equal(answer.accepted, 1);
    assert.equal(answer.agentKey, '[kept in the state directory]', 'the key is not printed');
    const identity = JSON.parse(await readFile(join(dir, 'state', 'identity.json'), 'utf8')) as { agentKey: string };
    assert.match(identity.agentKey, /^\S{20,}$/);
    assert.equal((await stat(join(dir, 'state', 'identity.json'))).mode & 0o777, 0o600);

    const db = fixture.db.knex;
    const system = await db('systems').first();
    assert.equal(system.status, 'ONLINE');
    const latest = await db('metric_latest').where({ system_id: system.id }).select('name', 'instance', 'value');
    const has = (name: string, instance = '') => latest.find((row) => row.name === name && row.instance === instance);
    for (const name of ['cpu.usage_pct', 'mem.used_pct', 'uptime.s']) assert.ok(has(name), `${name} stored`);
    assert.ok(has('disk.used_pct', '/'), 'disk / stored');
    assert.ok(Number(has('uptime.s')?.value) > 0);

    // the second report signs with the agent key and carries no enrolment key
    const second = capture();
    assert.equal(await main(['once', '--config', configFile], second.io), 0, second.lines.err.join('\n'));
    assert.equal(
      await db('systems')
        .count('* as n')
        .first()
        .then((row) => Number(row?.['n'])),
      1,
      'still one system',
    );
  });

  it('says clearly what is wrong with a wrong secret, and exits 1', async () => {
    const wrong = join(dir, 'wrong.yaml');
    const text = await readFile(configFile, 'utf8');
    await writeFile(wrong, text.replace(/webhook_secret: ".*"/, 'webhook_secret: "not-the-secret"'));
    const run = capture();
    assert.equal(await main(['once', '--config', wrong], run.io), 1);
    assert.match(run.lines.err.join('\n'), /refused the token .*check webhook_secret/);
  });

  it('refuses a config with a typo, naming the line', async () => {
    const typo = join(dir, 'typo.yaml');
    await writeFile(typo, 'webhook_url: "http://127.0.0.1:1/api/webhook/metrics"\nwebhok_secret: "x"\n');
    const run = capture();
    assert.equal(await main(['once', '--config', typo], run.io), 2);
    assert.match(run.lines.err.join('\n'), /config: line 2: unknown key webhok_secret/);
  });
});
