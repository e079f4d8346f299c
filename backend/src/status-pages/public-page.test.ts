/**
 * GET /status/<slug> over the real server: the page shows the chosen display names,
 * states, incidents, maintenance and 90 daily bars, and nothing it should not (system names,
 * hostnames, addresses, alert texts, incident titles, window names, other customers); no cookie is
 * set even for a signed-in browser; noindex; 30 s of cache on both sides (a second hit within 30 s
 * does not recompute: a change in the database shows only after the fake clock moves on); the
 * per-address limit answers 429; a rotated or revoked slug is the same 404 as one never issued.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { FakeClock } from '../lib/clock.js';
import { createCustomer } from '../testing/accounts.js';
import { useTestServer } from '../testing/app.js';
import { Client, signedInAs } from '../testing/http.js';
import { insertCluster, insertSystem } from '../testing/status-page-rows.js';

const clock = new FakeClock(new Date('2026-11-20T12:00:00Z'));
/** Strings that must never reach the public page. */
const SECRETS = [
  'web-internal-alpha',
  'alpha.internal.acme-secret.example',
  'db-internal-beta',
  '10.99.88.77',
  'secret-cluster-zeta',
  'alert-message-secret',
  'window-name-secret',
  'Acme Secret Customer',
  'globex-hidden-system',
  'globex.hidden.example',
  'Globex',
];

describe('public status page', () => {
  const fixture = useTestServer({}, { clock });
  let admin: Client;
  let pageId: number;
  let slug: string;
  const visitor = () => new Client(fixture.server.url);

  before(async () => {
    const db = fixture.db.knex;
    const acme = await createCustomer(db, 'Acme Secret Customer');
    await db('customers').where({ id: acme }).update({ time_zone: 'Europe/Berlin' });
    const cluster = await insertCluster(db, acme, 'secret-cluster-zeta');
    const web = await insertSystem(db, acme, {
      name: 'web-internal-alpha',
      hostname: 'alpha.internal.acme-secret.example',
      clusterId: cluster,
    });
    const dbSystem = await insertSystem(db, acme, {
      name: 'db-internal-beta',
      hostname: '10.99.88.77',
      clusterId: cluster,
      status: 'OFFLINE',
    });
    const globex = await createCustomer(db, 'Globex');
    await insertSystem(db, globex, {
      name: 'globex-hidden-system',
      hostname: 'globex.hidden.example',
      status: 'OFFLINE',
    });
    const alert = {
      rule_key: 'system.offline',
      rule_kind: 'offline',
      system_id: dbSystem,
      customer_id: acme,
      severity: 'CRITICAL',
    };
    await db('alerts').insert([
      // two hours down on 10 November: that day's bar is below 99 %
      {
        ...alert,
        state: 'resolved',
        message: 'alert-message-secret',
        started_at: '2026-11-10T10:00Z',
        resolved_at: '2026-11-10T12:00Z',
      },
      { ...alert, state: 'open', message: 'alert-message-secret', started_at: '2026-11-20T11:00Z' },
    ]);
    await db('incidents').insert({
      customer_id: acme,
      cluster_id: cluster,
      title: 'Site down: secret-cluster-zeta',
      started_at: '2026-11-20T11:00Z',
    });
    await db('maintenance_windows').insert({
      customer_id: acme,
      scope_type: 'system',
      scope_id: web,
      name: 'window-name-secret',
      kind: 'once',
      starts_at: '2026-11-21T09:00Z',
      ends_at: '2026-11-21T11:00Z',
      // made before the fake clock's now (windows count from when they were made: db/migrations/0017)
      created_at: '2026-11-01T00:00Z',
    });
    admin = await signedInAs(fixture.server.url, db, 'ADMIN');
    const created = await admin.post('/api/status-pages', {
      customerId: acme,
      title: 'Acme <Status>',
      announcement: 'Mail migration on Saturday.',
      items: [
        { systemId: web, displayName: 'Website' },
        { clusterId: cluster, displayName: 'Backend' },
      ],
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    pageId = created.body.id;
    slug = created.body.slug;
  });

  it('shows the display names, states, incident, maintenance, announcement and 90 bars per item', async () => {
    const reply = await visitor().get(`/status/${slug}`);
    assert.equal(reply.status, 200);
    const html = reply.body as string;
    assert.match(reply.headers.get('content-type') ?? '', /^text\/html/);
    assert.match(html, /<html lang="en">/);
    assert.match(html, /<h1>Acme &lt;Status&gt;<\/h1>/, 'the title, escaped');
    assert.match(html, /Outage in progress/);
    assert.match(html, /<h3>Website<\/h3><span class="state">Operational<\/span>/);
    assert.match(html, /<h3>Backend<\/h3><span class="state">Outage<\/span>/);
    assert.match(html, /1 of 2 operational/);
    assert.match(html, /Affects: Website, Backend/, 'the incident by the items it touches');
    // the window is on the web system, which is also in the Backend cluster
    assert.match(html, /Planned<\/p><p>Affects: Website, Backend<\/p>/);
    assert.match(html, /21 Nov 2026, 10:00 to 21 Nov 2026, 12:00 \(Europe\/Berlin\)/);
    assert.match(html, /Mail migration on Saturday\./);
    const bars = html.match(/<span class="(good|minor|major|none)" title="/g) ?? [];
    assert.equal(bars.length, 180, '90 days × 2 items');
    assert.match(
      html,
      /title="2026-11-10: 95\.83 % available, 120 min down"/,
      'the cluster on 10 Nov: 2 of its 48 system-hours down',
    );
    assert.match(html, /title="2026-11-10: 100\.00 % available"/, 'the web system that day');
    assert.match(html, /aria-label="Availability per day over the last 90 days: /);
    assert.match(html, /Counted as down: a system offline\. Other alerts are not downtime\./, 'what the bars count');
    for (const secret of SECRETS) assert.ok(!html.includes(secret), `"${secret}" is not on the page`);
  });

  it('sets no cookie, not even for a signed-in browser, and asks not to be indexed', async () => {
    for (const client of [visitor(), admin]) {
      const reply = await client.get(`/status/${slug}`);
      assert.equal(reply.status, 200);
      assert.deepEqual(reply.headers.getSetCookie(), []);
      assert.equal(reply.headers.get('x-robots-tag'), 'noindex, nofollow');
      assert.match(reply.body, /<meta name="robots" content="noindex, nofollow">/);
      assert.equal(reply.headers.get('cache-control'), 'public, max-age=30');
      assert.equal(reply.headers.get('referrer-policy'), 'no-referrer');
      assert.equal(reply.headers.get('content-encoding'), 'gzip', 'compressed once, served compressed');
      const csp = reply.headers.get('content-security-policy') ?? '';
      assert.match(csp, /^default-src 'none'; style-src 'sha256-[A-Za-z0-9+/=]+';/);
      assert.ok(!csp.includes('unsafe-inline') && !csp.includes('script-src'), csp);
    }
  });

  it('computes once per 30 s: a change shows only after the cache expires', async () => {
    const db = fixture.db.knex;
    await visitor().get(`/status/${slug}`);
    await db('status_page_items').where({ page_id: pageId, position: 0 }).update({ display_name: 'Storefront' });
    const replies = await Promise.all(Array.from({ length: 20 }, () => visitor().get(`/status/${slug}`)));
    for (const reply of replies) {
      assert.equal(reply.status, 200);
      assert.ok(reply.body.includes('<h3>Website</h3>') && !reply.body.includes('Storefront'), 'still cached');
    }
    clock.advance(31_000);
    const fresh = await visitor().get(`/status/${slug}`);
    assert.ok(fresh.body.includes('<h3>Storefront</h3>'), 'recomputed after 30 s');
  });

  it('announces no window once it is deleted, though its history stays for the bars', async () => {
    const db = fixture.db.knex;
    await db('maintenance_windows').where({ name: 'window-name-secret' }).delete();
    assert.ok(Number((await db('maintenance_window_versions').count('* as n'))[0]?.n) > 0, 'the history stays');
    clock.advance(31_000);
    const html = (await visitor().get(`/status/${slug}`)).body as string;
    assert.ok(!html.includes('Planned'), 'a deleted window is no longer announced');
  });

  it('answers 429 with Retry-After once an address exceeds its limit, and no cookie', async () => {
    const from = { 'x-forwarded-for': '203.0.113.77' };
    let last = await visitor().get(`/status/${slug}`, from);
    for (let i = 0; i < 120 && last.status === 200; i++) last = await visitor().get(`/status/${slug}`, from);
    assert.equal(last.status, 429, JSON.stringify(last.body));
    assert.ok(Number(last.headers.get('retry-after')) >= 1);
    assert.match(last.body, /Too many requests/);
    assert.deepEqual(last.headers.getSetCookie(), []);
    // another address is not affected
    assert.equal((await visitor().get(`/status/${slug}`, { 'x-forwarded-for': '203.0.113.78' })).status, 200);
  });

  it('answers the same 404 for a rotated, a revoked, a never-issued and a malformed slug', async () => {
    const never = await visitor().get(`/status/${'A'.repeat(24)}`);
    assert.equal(never.status, 404);
    assert.match(never.body, /There is no status page at this address/);
    assert.equal(never.headers.get('x-robots-tag'), 'noindex, nofollow');
    assert.deepEqual(never.headers.getSetCookie(), []);

    const rotated = (await admin.post(`/api/status-pages/${pageId}/rotate`)).body;
    const old = await visitor().get(`/status/${slug}`);
    assert.equal(old.status, 404, 'the old slug stops at once (its cache entry is dropped)');
    assert.equal(old.body, never.body);
    assert.equal((await visitor().get(`/status/${rotated.slug}`)).status, 200);

    assert.equal((await admin.delete(`/api/status-pages/${pageId}`)).status, 204);
    const revoked = await visitor().get(`/status/${rotated.slug}`);
    assert.equal(revoked.status, 404);
    assert.equal(revoked.body, never.body);
    const malformed = await visitor().get('/status/short');
    assert.equal(malformed.status, 404);
    assert.equal(malformed.body, never.body);
  });

  it('leaves /status itself to the console (the service health page of the SPA)', async () => {
    const reply = await visitor().get('/status');
    assert.notEqual(reply.headers.get('x-robots-tag'), 'noindex, nofollow');
  });
});
