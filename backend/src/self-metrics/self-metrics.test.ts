/**
 * `GET /api/metrics` through the real server (PostgreSQL, Redis, sockets): who may read it, and
 * that what it says parses as the Prometheus text format and counts what really happened.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { signAgentToken } from '../testing/agent-token.js';
import type { Knex } from 'knex';
import { createAccount, createCustomer } from '../testing/accounts.js';
import { startTestServer, testConfig, useTestServer } from '../testing/app.js';
import { bearer, Client, type Reply } from '../testing/http.js';
import { LiveClient } from '../testing/live-client.js';
import { waitFor } from '../testing/net.js';
import { Exposition } from '../testing/prometheus-text.js';

const WEBHOOK_SECRET = 'self-metrics-webhook-secret-0123456789abcdef';
const METRICS_TOKEN = 'self-metrics-scraper-token-0123456789abcdef';

const agentToken = (sub: string, ak?: string) => signAgentToken(sub, { secret: WEBHOOK_SECRET, ak });

describe('GET /api/metrics', () => {
  const t = useTestServer({ WEBHOOK_SECRET, METRICS_TOKEN });
  let admin: Client;
  let adminToken: string;
  const scrape = (headers: Record<string, string>) => new Client(t.server.url).get('/api/metrics', headers);
  const parsed = async (reply: Reply) => {
    assert.equal(reply.status, 200, JSON.stringify(reply.body));
    return Exposition.parse(String(reply.body));
  };

  before(async () => {
    const account = await createAccount(t.db.knex, { role: 'ADMIN' });
    admin = new Client(t.server.url);
    await admin.signIn(account.email, account.password);
    adminToken = (await admin.post('/api/tokens', { name: 'prometheus' })).body.token;
  });

  describe('who may read it', () => {
    it('answers 401 without credentials and to an unknown bearer', async () => {
      assert.equal((await scrape({})).status, 401);
      const wrong = await scrape(bearer(`${METRICS_TOKEN}x`));
      assert.equal(wrong.status, 401);
      assert.doesNotMatch(JSON.stringify(wrong.body), /argus_/);
    });

    it("answers 403 to an admin's session cookie (a scraper is a script) and to non-admin tokens", async () => {
      const cookie = await admin.get('/api/metrics');
      assert.equal(cookie.status, 403);
      assert.match(cookie.body.error, /bearer token/);
      for (const role of ['OPERATOR', 'VIEWER'] as const) {
        const account = await createAccount(t.db.knex, { role });
        const browser = new Client(t.server.url);
        await browser.signIn(account.email, account.password);
        const token = (await browser.post('/api/tokens', { name: 'script' })).body.token;
        assert.equal((await scrape(bearer(token))).status, 403, role);
      }
    });

    it("serves an ADMIN's API token and METRICS_TOKEN in the Prometheus text format", async () => {
      for (const credentials of [bearer(adminToken), bearer(METRICS_TOKEN)]) {
        const reply = await scrape(credentials);
        assert.equal(reply.status, 200);
        assert.equal(reply.headers.get('content-type'), 'text/plain; version=0.0.4; charset=utf-8');
        assert.equal(reply.headers.get('cache-control'), 'no-store');
        const exposition = await Exposition.parse(String(reply.body));
        assert.equal(exposition.type('argus_http_requests_total'), 'counter');
        assert.equal(exposition.type('argus_http_request_duration_seconds'), 'histogram');
        assert.equal(exposition.type('argus_db_pool_used'), 'gauge');
      }
    });
  });

  describe('what it counts', () => {
    it('counts reports and samples by outcome, batches, and requests by route and status', async () => {
      const customer = (await admin.post('/api/customers', { name: 'Acme' })).body.id;
      const cluster = (await admin.post('/api/clusters', { customerId: customer, name: 'Prod' })).body;
      const post = async (token: string, body: unknown) =>
        fetch(`${t.server.url}/api/webhook/metrics`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
      const samples = [
        { name: 'cpu.usage_pct', value: 12.5 },
        { name: 'mem.used_pct', value: 40 },
        { name: 'disk.used_pct', instance: '/', value: 71 },
      ];
      const agent = { hostname: 'web-01', enrollment: cluster.enrollmentKey };
      const fresh = { ts: new Date().toISOString(), metrics: samples };
      const stale = { ts: new Date(Date.now() - 30 * 86_400_000).toISOString(), metrics: samples.slice(0, 2) };

      const first = await post(await agentToken('machine-1'), { agent, reports: [fresh, stale] });
      assert.equal(first.status, 200, await first.clone().text());
      const { agentKey } = (await first.json()) as { agentKey: string };
      const again = await post(await agentToken('machine-1', agentKey), {
        agent: { hostname: 'web-01' },
        reports: [fresh],
      });
      assert.deepEqual(
        { status: again.status, duplicates: ((await again.json()) as { duplicates: number }).duplicates },
        { status: 200, duplicates: 1 },
      );
      // an unknown agent without an enrollment key: its body was read, its report refused
      const stranger = await post(await agentToken('machine-2'), { agent: { hostname: 'x' }, reports: [fresh] });
      assert.equal(stranger.status, 403);

      const systemId = (await admin.get('/api/systems')).body[0].id;
      assert.equal((await admin.get(`/api/systems/${systemId}`)).status, 200);
      assert.equal((await admin.get('/api/no-such-endpoint')).status, 404);
      assert.equal((await admin.get('/assets/no-such-file.js')).status, 404);

      const m = await parsed(await scrape(bearer(METRICS_TOKEN)));
      const reports = (outcome: string) => m.value('argus_ingest_reports_total', { outcome });
      const sampled = (outcome: string) => m.value('argus_ingest_samples_total', { outcome });
      assert.deepEqual(
        ['accepted', 'duplicate', 'skipped', 'refused'].map((o) => [o, reports(o), sampled(o)]),
        [
          ['accepted', 1, 3],
          ['duplicate', 1, 3],
          ['skipped', 1, 2],
          ['refused', 1, 3],
        ],
      );
      // two requests reached the group commit: one statement each
      const batch = m.histogram('argus_ingest_batch_requests');
      assert.equal(batch?.count, 2);
      assert.equal(batch?.buckets['1'], 2);
      assert.equal(m.histogram('argus_ingest_batch_samples')?.sum, 6);
      const statements = m.histogram('argus_ingest_statement_seconds');
      assert.equal(statements?.count, 2);
      assert.ok((statements?.sum ?? 0) > 0);

      const requests = (route: string, status: string, method = 'GET') =>
        m.value('argus_http_requests_total', { method, route, status });
      assert.equal(requests('/api/webhook/metrics', '200', 'POST'), 2);
      assert.equal(requests('/api/webhook/metrics', '403', 'POST'), 1);
      assert.equal(requests('/api/systems/:id', '200'), 1);
      // unknown paths and console files share one label: a path never becomes a label value
      assert.equal(requests('unmatched', '404'), 2);
      const routes = m.samples('argus_http_requests_total').map((sample) => sample.labels['route'] ?? '');
      assert.ok(!routes.some((route) => route.includes('no-such')), routes.join(', '));
      const webhookTimes = m.histogram('argus_http_request_duration_seconds', {
        method: 'POST',
        route: '/api/webhook/metrics',
      });
      assert.equal(webhookTimes?.count, 3);
      assert.equal(webhookTimes?.buckets['+Inf'], 3);
    });

    it('counts evaluation runs, their time and the alerts they raised and resolved', async () => {
      const before = await parsed(await scrape(bearer(adminToken)));
      assert.equal(before.value('argus_evaluation_runs_total', { outcome: 'succeeded' }), 0);
      const run = await new Client(t.server.url).post('/api/cron/evaluate-alerts');
      assert.equal(run.status, 200);

      const m = await parsed(await scrape(bearer(adminToken)));
      assert.equal(m.value('argus_evaluation_runs_total', { outcome: 'succeeded' }), 1);
      assert.equal(m.value('argus_evaluation_runs_total', { outcome: 'failed' }), 0);
      const duration = m.histogram('argus_evaluation_run_duration_seconds');
      assert.equal(duration?.count, 1);
      assert.equal(duration?.buckets['60'], 1);
      assert.equal(duration?.buckets['+Inf'], 1);
      assert.equal(m.value('argus_alerts_raised_total'), run.body.alerts.triggered);
      assert.equal(m.value('argus_alerts_resolved_total'), run.body.alerts.resolved);
    });

    it('shows the database pool, the outboxes, live sockets, memory and event-loop delay', async () => {
      const live = await LiveClient.open(t.server.url, { headers: bearer(adminToken) });
      const open = await parsed(await scrape(bearer(METRICS_TOKEN)));
      assert.equal(open.value('argus_live_sockets'), 1);
      assert.ok(open.value('argus_live_messages_sent_total') >= 1); // the ready frame
      live.close();
      await waitFor(async () => (await parsed(await scrape(bearer(METRICS_TOKEN)))).value('argus_live_sockets') === 0);

      const m = await parsed(await scrape(bearer(METRICS_TOKEN)));
      assert.equal(m.value('argus_db_pool_max'), 5); // testConfig's DATABASE_POOL_MAX
      for (const name of ['argus_db_pool_used', 'argus_db_pool_free', 'argus_db_pool_pending'])
        assert.ok(m.value(name) >= 0, name);
      assert.equal(m.value('argus_outbox_pending', { outbox: 'channel_deliveries' }), 0);
      assert.equal(m.value('argus_outbox_pending', { outbox: 'account_emails' }), 0);
      assert.ok(m.value('process_resident_memory_bytes') > 0);
      assert.ok(m.value('nodejs_heap_size_used_bytes') > 0);
      assert.ok(m.value('nodejs_eventloop_lag_p99_seconds') >= 0);
    });

    it('counts a pending outbox row once it is queued', async () => {
      const alertId = await pendingAlertNotification(t.db.knex);
      const m = await parsed(await scrape(bearer(METRICS_TOKEN)));
      assert.equal(m.value('argus_outbox_pending', { outbox: 'account_emails' }), 1);
      await t.db.knex('alert_notifications').where({ alert_id: alertId }).update({ status: 'sent' });
    });

    it('never shows a secret', async () => {
      const { text } = await parsed(await scrape(bearer(adminToken)));
      for (const secret of [METRICS_TOKEN, adminToken, WEBHOOK_SECRET, 'test-auth-secret'])
        assert.ok(!text.includes(secret), 'a secret in the scrape');
    });
  });

  describe('two apps in one process', () => {
    let other: Awaited<ReturnType<typeof startTestServer>>;
    before(async () => {
      other = await startTestServer(testConfig(t.db.url, { METRICS_TOKEN }));
    });
    after(async () => {
      await other.stop();
    });

    it('count apart: each has its own registry', async () => {
      const mine = await parsed(await scrape(bearer(METRICS_TOKEN)));
      const theirs = await parsed(await new Client(other.url).get('/api/metrics', bearer(METRICS_TOKEN)));
      assert.equal(mine.value('argus_ingest_reports_total', { outcome: 'accepted' }), 1);
      assert.equal(theirs.value('argus_ingest_reports_total', { outcome: 'accepted' }), 0);
      assert.equal(theirs.value('argus_evaluation_runs_total', { outcome: 'succeeded' }), 0);
      assert.ok(Number.isNaN(theirs.value('argus_http_requests_total', { route: '/api/webhook/metrics' })));
    });
  });
});

/** An open alert with one account e-mail still to send (the e-mail outbox). */
async function pendingAlertNotification(db: Knex): Promise<number> {
  const customerId = await createCustomer(db);
  const [system] = await db('systems')
    .insert({ customer_id: customerId, name: 'db-01' })
    .returning<{ id: number }[]>('id');
  const [alert] = await db('alerts')
    .insert({
      rule_key: 'outbox.test',
      rule_kind: 'metric',
      system_id: system?.id,
      customer_id: customerId,
      severity: 'WARNING',
      state: 'open',
      started_at: new Date(),
    })
    .returning<{ id: number }[]>('id');
  const account = await createAccount(db, { role: 'ADMIN' });
  await db('alert_notifications').insert({
    alert_id: alert?.id,
    user_id: account.id,
    kind: 'raised',
    created_at: new Date(),
  });
  return Number(alert?.id);
}
