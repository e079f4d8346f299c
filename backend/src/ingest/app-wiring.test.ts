/**
 * The webhook inside the whole app: agents' bearer JWTs and gzip bodies reach
 * the ingest route past the console's token authentication and body parser,
 * and what they send shows up in the console API.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { signAgentToken } from '../testing/agent-token.js';
import { createAccount } from '../testing/accounts.js';
import { useTestServer } from '../testing/app.js';
import { Client } from '../testing/http.js';

const SECRET = 'wiring-test-webhook-secret-0123456789abcdef';

const agentToken = (sub: string, ak?: string) => signAgentToken(sub, { secret: SECRET, ak });

describe('agent webhook in the app', () => {
  const t = useTestServer({ WEBHOOK_SECRET: SECRET });

  it('enrolls a host with a cluster key, stores its report, and the console sees it', async () => {
    const account = await createAccount(t.db.knex, { role: 'ADMIN' });
    const admin = new Client(t.server.url);
    await admin.signIn(account.email, account.password);
    const customer = (await admin.post('/api/customers', { name: 'Acme' })).body.id;
    const cluster = (await admin.post('/api/clusters', { customerId: customer, name: 'Prod' })).body;

    const report = {
      agent: {
        version: '2.28.1',
        hostname: 'web-01',
        os: 'Debian 12',
        arch: 'x86_64',
        cores: 4,
        enrollment: cluster.enrollmentKey,
      },
      reports: [{ ts: new Date().toISOString(), metrics: [{ name: 'cpu.usage_pct', value: 12.5 }] }],
    };
    const post = async (token: string, body: unknown) =>
      fetch(`${t.server.url}/api/webhook/metrics`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });

    const first = await post(await agentToken('machine-1'), report);
    assert.equal(first.status, 200, await first.clone().text());
    const answer = (await first.json()) as { accepted: number; agentKey?: string };
    assert.equal(answer.accepted, 1);
    assert.match(answer.agentKey ?? '', /.{20,}/);

    const [system] = (await admin.get('/api/systems')).body;
    assert.equal(system.name, 'web-01');
    assert.equal(system.status, 'ONLINE');
    assert.equal(system.agentVersion, '2.28.1');
    const chart = await admin.get(`/api/systems/${system.id}/metrics?name=cpu.usage_pct`);
    assert.equal(chart.body.points.length, 1);
    assert.equal(chart.body.points[0][1], 12.5);

    // bound now: a JWT without the agent key is refused and stores nothing
    const unbound = await post(await agentToken('machine-1'), {
      ...report,
      reports: [{ ...report.reports[0], ts: new Date(Date.now() + 1000).toISOString() }],
    });
    assert.equal(unbound.status, 401);
    assert.deepEqual(await unbound.json(), { error: 'Unauthorized' });
  });

  it('refuses an API token on the webhook', async () => {
    const reply = await fetch(`${t.server.url}/api/webhook/metrics`, {
      method: 'POST',
      headers: { authorization: `Bearer argus_${'a'.repeat(43)}`, 'content-type': 'application/json' },
      body: '{}',
    });
    assert.equal(reply.status, 401);
  });
});
