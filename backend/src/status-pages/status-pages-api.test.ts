/**
 * /api/status-pages over the real server: who may publish, edit, rotate and
 * revoke, for which customer; input refused with the field named and nothing stored; every change
 * audited without the slug.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { createAccount, createCustomer } from '../testing/accounts.js';
import { useTestServer } from '../testing/app.js';
import { bearer, Client, signedInAs } from '../testing/http.js';
import { insertCluster, insertSystem } from '../testing/status-page-rows.js';

describe('status pages API', () => {
  const fixture = useTestServer();
  let acme: number;
  let globex: number;
  let acmeWeb: number;
  let acmeCluster: number;
  let globexDb: number;
  let admin: Client;

  before(async () => {
    const db = fixture.db.knex;
    acme = await createCustomer(db, 'Acme status');
    globex = await createCustomer(db, 'Globex status');
    acmeCluster = await insertCluster(db, acme, 'acme-prod');
    acmeWeb = await insertSystem(db, acme, { name: 'acme-web-01', clusterId: acmeCluster });
    globexDb = await insertSystem(db, globex, { name: 'globex-db-01' });
    admin = await signedInAs(fixture.server.url, db, 'ADMIN');
  });

  const body = (customerId: number, items: unknown[] = [{ systemId: acmeWeb, displayName: 'Website' }]) => ({
    customerId,
    title: 'Acme service status',
    items,
  });
  const count = async (table: string) => Number((await fixture.db.knex(table).count({ n: '*' }))[0]?.n);

  it('publishes a page: 201 with id, an unguessable slug and its public address', async () => {
    const reply = await admin.post(
      '/api/status-pages',
      body(acme, [
        { systemId: acmeWeb, displayName: 'Website' },
        { clusterId: acmeCluster, displayName: 'Production' },
      ]),
    );
    assert.equal(reply.status, 201, JSON.stringify(reply.body));
    assert.ok(Number.isInteger(reply.body.id));
    assert.match(reply.body.slug, /^[A-Za-z0-9_-]{24}$/, '144 bits of base64url');
    assert.equal(reply.body.url, `${fixture.server.url}/status/${reply.body.slug}`);
    assert.deepEqual(
      reply.body.items.map((i: { kind: string; displayName: string }) => [i.kind, i.displayName]),
      [
        ['system', 'Website'],
        ['cluster', 'Production'],
      ],
    );
    const audit = await fixture.db.knex('audit_log').where({ action: 'status_page.create' }).first();
    assert.equal(Number(audit.customer_id), acme);
    assert.ok(!JSON.stringify(audit).includes(reply.body.slug), 'the slug is not in the audit log');
    const second = await admin.post('/api/status-pages', body(acme));
    assert.notEqual(second.body.slug, reply.body.slug);
  });

  it('refuses bad input naming the field, and stores nothing', async () => {
    const pages = await count('status_pages');
    const items = await count('status_page_items');
    const audited = await count('audit_log');
    const cases: Array<[unknown, number, string]> = [
      [{ ...body(acme), title: '' }, 400, 'title'],
      [body(acme, []), 400, 'items'],
      [body(acme, [{ displayName: 'Neither' }]), 400, 'items.0.systemId'],
      [body(acme, [{ systemId: acmeWeb, clusterId: acmeCluster, displayName: 'Both' }]), 400, 'items.0.systemId'],
      [body(acme, [{ systemId: acmeWeb, displayName: '' }]), 400, 'items.0.displayName'],
      // another customer's system, and one that does not exist
      [
        body(acme, [
          { systemId: acmeWeb, displayName: 'ok' },
          { systemId: globexDb, displayName: 'x' },
        ]),
        400,
        'items.1.systemId',
      ],
      [body(acme, [{ clusterId: 999999, displayName: 'x' }]), 400, 'items.0.clusterId'],
      [body(999999), 400, 'customerId'],
      [{ ...body(acme), announcement: 'x'.repeat(2001) }, 400, 'announcement'],
    ];
    for (const [input, status, field] of cases) {
      const reply = await admin.post('/api/status-pages', input);
      assert.equal(reply.status, status, `${field}: ${JSON.stringify(reply.body)}`);
      assert.equal(reply.body.details?.field, field, JSON.stringify(reply.body));
    }
    assert.equal(await count('status_pages'), pages);
    assert.equal(await count('status_page_items'), items);
    assert.equal(await count('audit_log'), audited);
  });

  it('lets an OPERATOR manage its granted customers only; refuses a VIEWER everything', async () => {
    const db = fixture.db.knex;
    const operator = await signedInAs(fixture.server.url, db, 'OPERATOR', [acme]);
    const viewer = await signedInAs(fixture.server.url, db, 'VIEWER', [acme, globex]);
    const globexPage = (
      await admin.post('/api/status-pages', body(globex, [{ systemId: globexDb, displayName: 'DB' }]))
    ).body;

    const created = await operator.post('/api/status-pages', body(acme));
    assert.equal(created.status, 201);
    // another customer: it does not exist for this operator
    const refused = await operator.post('/api/status-pages', body(globex, [{ systemId: globexDb, displayName: 'x' }]));
    assert.equal(refused.status, 400);
    assert.equal(refused.body.details.field, 'customerId');
    const listed = (await operator.get('/api/status-pages')).body as Array<{ customerId: number }>;
    assert.ok(listed.length >= 1 && listed.every((p) => p.customerId === acme));
    for (const [method, path] of [
      ['PATCH', `/api/status-pages/${globexPage.id}`],
      ['POST', `/api/status-pages/${globexPage.id}/rotate`],
      ['DELETE', `/api/status-pages/${globexPage.id}`],
    ] as const) {
      const reply = await operator.request(method, path, method === 'DELETE' ? undefined : { title: 'Taken over' });
      assert.equal(reply.status, 404, `${method} ${path}`);
    }

    for (const [method, path] of [
      ['GET', '/api/status-pages'],
      ['POST', '/api/status-pages'],
      ['PATCH', `/api/status-pages/${created.body.id}`],
      ['POST', `/api/status-pages/${created.body.id}/rotate`],
      ['DELETE', `/api/status-pages/${created.body.id}`],
    ] as const) {
      const reply = await viewer.request(
        method,
        path,
        method === 'GET' || method === 'DELETE' ? undefined : body(acme),
      );
      assert.equal(reply.status, 403, `viewer ${method} ${path}`);
    }
    // an ADMIN's API token works like its session
    const adminAccount = await createAccount(db, { role: 'ADMIN' });
    const browser = new Client(fixture.server.url);
    await browser.signIn(adminAccount.email, adminAccount.password);
    const token = (await browser.post('/api/tokens', { name: 'status script' })).body.token;
    assert.equal((await new Client(fixture.server.url).get('/api/status-pages', bearer(token))).status, 200);
  });

  it('edits title, items and announcement; rotates to a new slug; revokes; each audited', async () => {
    const page = (await admin.post('/api/status-pages', body(acme))).body;
    const edited = await admin.patch(`/api/status-pages/${page.id}`, {
      title: 'New title',
      announcement: 'Planned upgrade on Sunday.',
      items: [{ clusterId: acmeCluster, displayName: 'Everything' }],
    });
    assert.equal(edited.status, 200, JSON.stringify(edited.body));
    assert.equal(edited.body.title, 'New title');
    assert.equal(edited.body.announcement, 'Planned upgrade on Sunday.');
    assert.deepEqual(edited.body.items, [
      { kind: 'cluster', id: acmeCluster, name: 'acme-prod', displayName: 'Everything' },
    ]);
    assert.equal(edited.body.slug, page.slug);
    const unknownField = await admin.patch(`/api/status-pages/${page.id}`, { customerId: globex });
    assert.equal(unknownField.status, 400);

    const rotated = await admin.post(`/api/status-pages/${page.id}/rotate`);
    assert.equal(rotated.status, 200);
    assert.notEqual(rotated.body.slug, page.slug);
    assert.match(rotated.body.slug, /^[A-Za-z0-9_-]{24}$/);

    assert.equal((await admin.delete(`/api/status-pages/${page.id}`)).status, 204);
    assert.equal((await admin.delete(`/api/status-pages/${page.id}`)).status, 404);
    const actions = await fixture.db
      .knex('audit_log')
      .where({ target_type: 'status_page', target_id: String(page.id) })
      .orderBy('id')
      .pluck('action');
    assert.deepEqual(actions, ['status_page.create', 'status_page.update', 'status_page.rotate', 'status_page.delete']);
  });
});
