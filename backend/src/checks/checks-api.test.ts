/**
 * /api/checks over HTTP on the real server: rights like the systems of the customer, audit rows
 * for every change, secret header values sealed and never answered, clear 400s, and "Try it now"
 * against a real server on loopback (allowed here by ARGUS_ALLOW_PRIVATE_CHECKS) answering what
 * it measured and never the body.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { createCustomer } from '../testing/accounts.js';
import { useTestServer } from '../testing/app.js';
import { signedInAs, type Client } from '../testing/http.js';

const SECRET = 'Bearer do-not-leak-7f3a';

describe('/api/checks', () => {
  const fixture = useTestServer({ ARGUS_ALLOW_PRIVATE_CHECKS: 'true' });
  let site: http.Server;
  let url: string;
  let mine: number;
  let theirs: number;
  let operator: Client;
  let viewer: Client;
  let stranger: Client;
  let admin: Client;
  before(async () => {
    site = http.createServer((req, res) => {
      if (req.url === '/meta') res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' }).end();
      else res.end(`private page: ${req.headers.authorization === SECRET ? 'authorized' : 'anonymous'}`);
    });
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
    const db = fixture.db.knex;
    mine = await createCustomer(db, 'Mine');
    theirs = await createCustomer(db, 'Theirs');
    operator = await signedInAs(fixture.server.url, db, 'OPERATOR', [mine]);
    viewer = await signedInAs(fixture.server.url, db, 'VIEWER', [mine]);
    stranger = await signedInAs(fixture.server.url, db, 'OPERATOR', [theirs]);
    admin = await signedInAs(fixture.server.url, db, 'ADMIN');
  });
  after(async () => {
    site.closeAllConnections();
    await new Promise((resolve) => site.close(resolve));
  });

  const shop = () => ({
    customerId: mine,
    name: 'Shop',
    settings: {
      type: 'http',
      url: `${url}/`,
      keyword: 'authorized',
      headers: [
        { name: 'Authorization', value: SECRET, secret: true },
        { name: 'X-Plain', value: 'visible' },
      ],
    },
    intervalSeconds: 30,
  });

  it('an OPERATOR of the customer creates a check; the secret header is sealed and never answered', async () => {
    const reply = await operator.post('/api/checks', shop());
    assert.equal(reply.status, 201, JSON.stringify(reply.body));
    const check = reply.body;
    assert.deepEqual(
      [check.state, check.type, check.intervalSeconds, check.retries, check.locations],
      ['PENDING', 'http', 30, 1, ['argus']],
    );
    assert.deepEqual(check.settings.headers, [
      { name: 'Authorization', value: null, secret: true },
      { name: 'X-Plain', value: 'visible', secret: false },
    ]);
    const db = fixture.db.knex;
    const row = await db('checks').where({ id: check.id }).first();
    assert.ok(row.sealed_headers && !row.sealed_headers.includes('do-not-leak'));
    assert.ok(!JSON.stringify(row.settings).includes('do-not-leak'));
    const audit = await db('audit_log')
      .where({ action: 'check.create', target_id: String(check.id) })
      .first();
    assert.equal(Number(audit.customer_id), mine);
    assert.ok(!JSON.stringify(audit).includes('do-not-leak'));
    assert.equal((await db('systems').where({ id: check.id }).first()).kind, 'check');
    // a check is no agent: the systems list leaves it out
    assert.ok(!(await admin.get('/api/systems')).body.some((s: { id: number }) => s.id === check.id));
  });

  it('reads like the systems of the customer: its viewers read, others do not see it', async () => {
    const { id } = (await operator.post('/api/checks', { ...shop(), name: 'Read me' })).body;
    assert.ok((await viewer.get('/api/checks')).body.some((c: { id: number }) => c.id === id));
    assert.equal((await viewer.get(`/api/checks/${id}`)).status, 200);
    assert.equal((await viewer.get(`/api/checks?customer=${mine}`)).body.length >= 1, true);
    assert.equal((await stranger.get(`/api/checks/${id}`)).status, 404);
    assert.ok(!(await stranger.get('/api/checks')).body.some((c: { id: number }) => c.id === id));
    assert.equal((await viewer.patch(`/api/checks/${id}`, { name: 'mine now' })).status, 403);
    assert.equal((await viewer.delete(`/api/checks/${id}`)).status, 403);
    assert.equal((await viewer.post('/api/checks', shop())).status, 403);
    assert.equal((await stranger.post('/api/checks', shop())).status, 404);
    assert.equal((await stranger.patch(`/api/checks/${id}`, { name: 'x' })).status, 404);
    assert.equal((await stranger.post('/api/checks/try', { customerId: mine, settings: shop().settings })).status, 404);
  });

  it('refuses bad input with a 400 naming the field', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ ...shop(), intervalSeconds: 10 }, 'intervalSeconds'],
      [{ ...shop(), settings: { type: 'smtp', host: 'x' } }, 'settings.type'],
      [{ ...shop(), timeoutSeconds: 30 }, 'timeoutSeconds'],
      [{ ...shop(), settings: { type: 'http', url: 'ftp://example.com/' } }, 'settings.url'],
      [
        { ...shop(), settings: { type: 'http', url: 'https://example.com/', keyword: '(', keywordIsRegex: true } },
        'settings.keyword',
      ],
      [{ ...shop(), settings: { type: 'tcp', host: 'example.com', port: 70000 } }, 'settings.port'],
      [{ ...shop(), locations: ['moon'] }, 'locations.0'],
      [
        {
          ...shop(),
          settings: { type: 'http', url: 'https://example.com/', headers: [{ name: 'X-Key', secret: true }] },
        },
        'settings.headers.0.value',
      ],
    ];
    for (const [body, field] of cases) {
      const reply = await operator.post('/api/checks', body);
      assert.equal(reply.status, 400, `${field}: ${reply.status}`);
      assert.equal(reply.body.details?.field, field, JSON.stringify(reply.body));
    }
  });

  it('changes, pauses and deletes with audit rows; a secret header left without value keeps its value', async () => {
    const { id } = (await operator.post('/api/checks', { ...shop(), name: 'Change me' })).body;
    const db = fixture.db.knex;
    const sealedBefore = (await db('checks').where({ id }).first()).sealed_headers;
    const changed = await operator.patch(`/api/checks/${id}`, {
      name: 'Changed',
      enabled: false,
      settings: { ...shop().settings, headers: [{ name: 'Authorization', secret: true }] },
    });
    assert.equal(changed.status, 200, JSON.stringify(changed.body));
    assert.deepEqual([changed.body.name, changed.body.enabled, changed.body.state], ['Changed', false, 'PAUSED']);
    const sealedAfter = (await db('checks').where({ id }).first()).sealed_headers;
    assert.ok(sealedAfter && sealedAfter !== sealedBefore, 'sealed again, the value kept');
    const update = await db('audit_log')
      .where({ action: 'check.update', target_id: String(id) })
      .first();
    assert.equal(update.before.name, 'Change me');
    assert.equal(update.after.name, 'Changed');
    assert.equal((await operator.delete(`/api/checks/${id}`)).status, 204);
    assert.ok(
      await db('audit_log')
        .where({ action: 'check.delete', target_id: String(id) })
        .first(),
    );
    assert.equal(await db('systems').where({ id }).first(), undefined);
    assert.equal((await operator.get(`/api/checks/${id}`)).status, 404);
  });

  it('"Try it now" answers status, timing and the keyword, never the body; refused targets say so', async () => {
    const reply = await operator.post('/api/checks/try', { customerId: mine, settings: shop().settings });
    assert.equal(reply.status, 200, JSON.stringify(reply.body));
    assert.deepEqual([reply.body.up, reply.body.status, reply.body.keywordMatched], [true, 200, true]);
    assert.equal(typeof reply.body.responseMs, 'number');
    assert.ok(!JSON.stringify(reply.body).includes('private page'), 'no part of the body');
    const metadata = await operator.post('/api/checks/try', {
      customerId: mine,
      settings: { type: 'http', url: `${url}/meta` },
    });
    assert.deepEqual(
      [metadata.body.up, metadata.body.reason],
      [false, 'refused by policy: 169.254.169.254 is a cloud metadata service'],
    );
    assert.equal((await viewer.post('/api/checks/try', { customerId: mine, settings: shop().settings })).status, 403);
  });

  it('"Try it now" is limited per account: 30 in 10 minutes, then 429 with Retry-After', async () => {
    const client = await signedInAs(fixture.server.url, fixture.db.knex, 'OPERATOR', [mine]);
    const body = { customerId: mine, settings: { type: 'tcp', host: '169.254.169.254', port: 80 } };
    for (let i = 0; i < 30; i++) assert.equal((await client.post('/api/checks/try', body)).status, 200);
    const refused = await client.post('/api/checks/try', body);
    assert.equal(refused.status, 429);
    assert.match(refused.body.error, /at most 30 in 10 minutes/);
    assert.ok(Number(refused.headers.get('retry-after')) > 0);
  });
});
