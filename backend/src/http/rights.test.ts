/**
 * Rights on EVERY route, table-driven over the app's own route list, so a
 * route added later is covered without editing this file.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createAccount } from '../testing/accounts.js';
import { startTestServer, testConfig, type TestServer } from '../testing/app.js';
import { createTestDatabase, type TestDatabase } from '../testing/database.js';
import { bearer, Client } from '../testing/http.js';
import { listRoutes, type RouteEntry } from './route-list.js';

const WRITE = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
/** Routes anyone may call: they authenticate by other means (or are the way in). */
const PUBLIC = new Set([
  'GET /api/health',
  // the API's description: public, like the docs a script is written from
  'GET /api/openapi.json',
  'GET /api/auth/options',
  'GET /api/auth/csrf',
  'POST /api/setup',
  'POST /api/auth/login',
  // single sign-on: the button, and the browser's round trip through the identity provider
  'GET /api/auth/sso',
  'GET /api/auth/sso/start',
  'GET /api/auth/sso/callback',
  'POST /api/auth/password/forgot',
  'POST /api/auth/password/reset',
  // agents: an enrollment key, a signed JWT or nothing (the installer and builds are public)
  'GET /api/agent/install.sh',
  'GET /api/agent/version',
  'GET /api/agent/download/:version/:arch',
  'GET /api/agent/config',
  'POST /api/webhook/metrics',
  // the scheduler: its own bearer CRON_SECRET (evaluation/routes.ts), checked only when set
  'GET /api/cron/evaluate-alerts',
  'POST /api/cron/evaluate-alerts',
  // a published customer status page: its unguessable slug is the key
  'GET /status/:slug',
]);

const key = (route: RouteEntry) => `${route.method} ${route.path}`;
const concrete = (path: string) => path.replace(/:[a-zA-Z]+/g, '1');

describe('rights on every route', () => {
  let db: TestDatabase;
  let server: TestServer;
  let routes: RouteEntry[];
  let viewerToken: string;
  before(async () => {
    db = await createTestDatabase();
    server = await startTestServer(testConfig(db.url));
    routes = listRoutes(server.app);
    const viewer = await createAccount(db.knex, { role: 'VIEWER' });
    const browser = new Client(server.url);
    await browser.signIn(viewer.email, viewer.password);
    viewerToken = (await browser.post('/api/tokens', { name: 'viewer script' })).body.token;
  });
  after(async () => {
    await server.stop();
    await db.drop();
  });

  /** Every route of `list` is served, and a viewer's token is refused each one, reads included. */
  async function servedAndRefusedToViewers(list: string[]): Promise<void> {
    const served = new Set(routes.map(key));
    assert.deepEqual(
      list.filter((route) => !served.has(route)),
      [],
    );
    const client = new Client(server.url);
    for (const route of list) {
      const [method, path] = route.split(' ') as [string, string];
      const reply = await client.request(
        method,
        concrete(path),
        WRITE.has(method) ? {} : undefined,
        bearer(viewerToken),
      );
      assert.equal(reply.status, 403, `${route} → ${reply.status}`);
    }
  }

  it('knows the routes it checks', () => {
    assert.ok(routes.length >= 12, `${routes.length} routes`);
    assert.ok(routes.some((r) => key(r) === 'POST /api/users'));
  });

  it('covers the alerting routes: rules, maintenance windows, alerts, alert retention', () => {
    const alerting = [
      'GET /api/alert-rules',
      'POST /api/alert-rules',
      'POST /api/alert-rules/preview',
      'GET /api/alert-rules/:id',
      'GET /api/alert-rules/:id/preview',
      'PATCH /api/alert-rules/:id',
      'DELETE /api/alert-rules/:id',
      'GET /api/event-rules',
      'POST /api/event-rules',
      'GET /api/event-rules/:id',
      'PATCH /api/event-rules/:id',
      'DELETE /api/event-rules/:id',
      'GET /api/maintenance-windows',
      'POST /api/maintenance-windows',
      'GET /api/maintenance-windows/:id',
      'PATCH /api/maintenance-windows/:id',
      'DELETE /api/maintenance-windows/:id',
      'GET /api/alerts',
      'GET /api/alerts/:id',
      'POST /api/alerts/:id/ack',
      'GET /api/settings/alerts',
      'PUT /api/settings/alerts',
      'GET /api/settings/forecasts',
      'PUT /api/settings/forecasts',
      'GET /api/systems/:id/forecasts',
    ];
    const served = new Set(routes.map(key));
    assert.deepEqual(
      alerting.filter((route) => !served.has(route)),
      [],
    );
    assert.ok(alerting.every((route) => !PUBLIC.has(route)));
  });

  it('covers the notification routes, and refuses a viewer even reading them', async () => {
    const notifications = [
      'GET /api/notification-channels',
      'POST /api/notification-channels',
      'GET /api/notification-channels/:id',
      'PATCH /api/notification-channels/:id',
      'DELETE /api/notification-channels/:id',
      'POST /api/notification-channels/:id/test',
      'GET /api/notification-policies',
      'GET /api/notification-policies/global',
      'PUT /api/notification-policies/global',
      'GET /api/notification-policies/customer/:customerId',
      'PUT /api/notification-policies/customer/:customerId',
      'DELETE /api/notification-policies/customer/:customerId',
    ];
    await servedAndRefusedToViewers(notifications);
  });

  it('covers the audit log: ADMIN and OPERATOR read it, a viewer is refused', async () => {
    assert.ok(routes.some((route) => key(route) === 'GET /api/audit-log'));
    const client = new Client(server.url);
    assert.equal((await client.get('/api/audit-log', bearer(viewerToken))).status, 403);
    for (const role of ['ADMIN', 'OPERATOR'] as const) {
      const account = await createAccount(db.knex, { role });
      const browser = new Client(server.url);
      await browser.signIn(account.email, account.password);
      assert.equal((await browser.get('/api/audit-log')).status, 200, role);
    }
  });

  it('covers the report routes: reports follow customer visibility, the e-mail settings its writers', async () => {
    const reports = [
      'GET /api/reports/availability',
      'GET /api/customers/:id/monthly-report',
      'PUT /api/customers/:id/monthly-report',
    ];
    const served = new Set(routes.map(key));
    assert.deepEqual(
      reports.filter((route) => !served.has(route)),
      [],
    );
    const client = new Client(server.url);
    const [row] = await db.knex('customers').insert({ name: 'Reported' }).returning<{ id: number }[]>('id');
    const id = (row as { id: number }).id;
    // the viewer has no grant: the customer does not exist for it
    assert.equal((await client.get(`/api/reports/availability?customer=${id}`, bearer(viewerToken))).status, 404);
    assert.equal((await client.get(`/api/customers/${id}/monthly-report`, bearer(viewerToken))).status, 403);
    const operator = await createAccount(db.knex, { role: 'OPERATOR', customerIds: [id] });
    const browser = new Client(server.url);
    await browser.signIn(operator.email, operator.password);
    assert.equal((await browser.get(`/api/reports/availability?customer=${id}`)).status, 200);
    assert.equal((await browser.get(`/api/customers/${id}/monthly-report`)).status, 200);
  });

  it('serves the overview to every signed-in role, viewers included, by token too', async () => {
    assert.ok(routes.some((r) => key(r) === 'GET /api/overview') && !PUBLIC.has('GET /api/overview'));
    assert.equal((await new Client(server.url).get('/api/overview', bearer(viewerToken))).status, 200);
  });

  it('covers the status page routes: writers only, a viewer refused even the list', async () => {
    const statusPages = [
      'GET /api/status-pages',
      'POST /api/status-pages',
      'PATCH /api/status-pages/:id',
      'POST /api/status-pages/:id/rotate',
      'DELETE /api/status-pages/:id',
    ];
    await servedAndRefusedToViewers(statusPages);
    const operator = await createAccount(db.knex, { role: 'OPERATOR' });
    const browser = new Client(server.url);
    await browser.signIn(operator.email, operator.password);
    assert.equal((await browser.get('/api/status-pages')).status, 200);
  });

  it('covers the network check routes: viewers of the customer read, its writers write', async () => {
    const checks = [
      'GET /api/checks',
      'POST /api/checks',
      'POST /api/checks/try',
      'GET /api/checks/:id',
      'PATCH /api/checks/:id',
      'DELETE /api/checks/:id',
    ];
    const served = new Set(routes.map(key));
    assert.deepEqual(
      checks.filter((route) => !served.has(route)),
      [],
    );
    assert.ok(checks.every((route) => !PUBLIC.has(route)));
    const [row] = await db.knex('customers').insert({ name: 'Checked' }).returning<{ id: number }[]>('id');
    const id = (row as { id: number }).id;
    const body = { customerId: id, name: 'Port', settings: { type: 'tcp', host: 'example.com', port: 443 } };
    const client = new Client(server.url);
    // a viewer's token writes nothing; without a grant it sees no check of the customer
    assert.equal((await client.post('/api/checks', body, bearer(viewerToken))).status, 403);
    assert.deepEqual((await client.get(`/api/checks?customer=${id}`, bearer(viewerToken))).body, []);
    const operator = await createAccount(db.knex, { role: 'OPERATOR', customerIds: [id] });
    const browser = new Client(server.url);
    await browser.signIn(operator.email, operator.password);
    const created = await browser.post('/api/checks', body);
    assert.equal(created.status, 201);
    assert.equal((await client.get(`/api/checks/${created.body.id}`, bearer(viewerToken))).status, 404);
  });

  it('answers 401 on every non-public route without credentials', async () => {
    const client = new Client(server.url);
    for (const route of routes.filter((r) => !PUBLIC.has(key(r)))) {
      const reply = await client.request(route.method, concrete(route.path), WRITE.has(route.method) ? {} : undefined);
      assert.equal(reply.status, 401, `${key(route)} → ${reply.status}`);
    }
  });

  it("refuses a viewer's token on every write route, and changes nothing", async () => {
    const before = await db.knex('users').select('*').orderBy('id');
    const audited = await db.knex('audit_log').select('*').orderBy('id');
    const client = new Client(server.url);
    for (const route of routes.filter((r) => WRITE.has(r.method) && !PUBLIC.has(key(r)))) {
      const reply = await client.request(
        route.method,
        concrete(route.path),
        { name: 'x', role: 'ADMIN' },
        bearer(viewerToken),
      );
      assert.equal(reply.status, 403, `${key(route)} → ${reply.status}`);
    }
    assert.deepEqual(await db.knex('users').select('*').orderBy('id'), before);
    assert.deepEqual(await db.knex('audit_log').select('*').orderBy('id'), audited);
  });

  it("serves Argus's own metrics to an ADMIN's API token only (self-metrics)", async () => {
    assert.ok(routes.some((r) => key(r) === 'GET /api/metrics'));
    assert.equal((await new Client(server.url).get('/api/metrics', bearer(viewerToken))).status, 403);
    const admin = await createAccount(db.knex, { role: 'ADMIN' });
    const browser = new Client(server.url);
    await browser.signIn(admin.email, admin.password);
    assert.equal((await browser.get('/api/metrics')).status, 403, 'a session cookie is refused');
    const token = (await browser.post('/api/tokens', { name: 'prometheus' })).body.token;
    assert.equal((await new Client(server.url).get('/api/metrics', bearer(token))).status, 200);
  });

  it('refuses an operator on every ADMIN route', async () => {
    const operator = await createAccount(db.knex, { role: 'OPERATOR' });
    const browser = new Client(server.url);
    await browser.signIn(operator.email, operator.password);
    const adminOnly = routes.filter(
      (r) =>
        r.path.startsWith('/api/users') ||
        r.path.startsWith('/api/settings') ||
        r.path === '/api/storage' ||
        r.path === '/api/metrics' ||
        // an ADMIN's one-hour raise of a cluster's enrolment limit
        r.path === '/api/clusters/:id/enrollment-limit',
    );
    assert.ok(adminOnly.length >= 5);
    assert.ok(adminOnly.some((route) => key(route) === 'POST /api/clusters/:id/enrollment-limit'));
    for (const route of adminOnly) {
      const reply = await browser.request(route.method, concrete(route.path), WRITE.has(route.method) ? {} : undefined);
      assert.equal(reply.status, 403, `${key(route)} → ${reply.status}`);
    }
  });
});
