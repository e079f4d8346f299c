/**
 * GET /api/systems at 10,000 systems: filtering, sorting and keyset paging on the
 * server; without `limit` the whole array that existing callers read.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import type { System, SystemsPage } from '../../../contracts/systems.js';
import { createCustomer } from '../testing/accounts.js';
import { useTestServer } from '../testing/app.js';
import { signedInAs, type Client } from '../testing/http.js';

const STATUSES = ['ONLINE', 'WARNING', 'CRITICAL', 'OFFLINE', 'PENDING'] as const;

describe('GET /api/systems and /api/systems/page: filters, sort and pages on the server', () => {
  const t = useTestServer();
  let admin: Client;
  let acme: number;
  let globex: number;
  const base = Date.parse('2026-11-26T05:00:00.000Z');

  before(async () => {
    admin = await signedInAs(t.server.url, t.db.knex, 'ADMIN');
    acme = await createCustomer(t.db.knex, 'Acme');
    globex = await createCustomer(t.db.knex, 'Globex');
    const rows = Array.from({ length: 25 }, (_, i) => ({
      customer_id: i % 5 === 0 ? globex : acme,
      // mixed case and numbers: the order is case-insensitive
      name: `${i % 2 ? 'Web' : 'db'}-${String(i).padStart(2, '0')}`,
      hostname: i === 7 ? 'special-host.example' : `h${i}.example`,
      status: STATUSES[i % STATUSES.length],
      last_seen_at: i === 3 ? null : new Date(base - i * 60_000),
    }));
    await t.db.knex('systems').insert(rows);
  });

  async function page(query: string): Promise<SystemsPage> {
    const reply = await admin.get(`/api/systems/page?${query}`);
    assert.equal(reply.status, 200, JSON.stringify(reply.body));
    return reply.body as SystemsPage;
  }

  /** Every page of `query`, following nextCursor. */
  async function walk(query: string, client = admin): Promise<System[]> {
    const all: System[] = [];
    let cursor: string | null = null;
    for (let pages = 0; pages < 20; pages += 1) {
      const reply = await client.get(
        `/api/systems/page?${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      );
      assert.equal(reply.status, 200, JSON.stringify(reply.body));
      const body = reply.body as SystemsPage;
      all.push(...body.items);
      cursor = body.nextCursor;
      if (!cursor) return all;
    }
    throw new Error('no last page');
  }

  it('keeps the whole array for callers without limit', async () => {
    const reply = await admin.get('/api/systems');
    assert.equal(reply.status, 200);
    assert.ok(Array.isArray(reply.body));
    assert.equal((reply.body as System[]).length, 25);
  });

  it('walks every system exactly once, page by page, in name order and in the other direction', async () => {
    const first = await page('limit=10&sort=name');
    assert.equal(first.items.length, 10);
    assert.equal(first.total, 25);
    assert.ok(first.nextCursor);
    const names = (await walk('limit=10&sort=name')).map((s) => s.name);
    const expected = names.slice().sort((a, b) => (a.toLowerCase() < b.toLowerCase() ? -1 : 1));
    assert.equal(names.length, 25);
    assert.equal(new Set(names).size, 25);
    assert.deepEqual(names, expected);
    assert.deepEqual(
      (await walk('limit=7&sort=name&order=desc')).map((s) => s.name),
      expected.slice().reverse(),
    );
  });

  it('sorts by status (critical first) and by last seen (never seen last when newest first)', async () => {
    const byStatus = (await walk('limit=6&sort=status')).map((s) => s.status);
    const rank = ['CRITICAL', 'WARNING', 'OFFLINE', 'PENDING', 'STANDBY', 'ONLINE'];
    assert.deepEqual(
      byStatus,
      byStatus.slice().sort((a, b) => rank.indexOf(a) - rank.indexOf(b)),
    );
    const bySeen = await walk('limit=4&sort=lastSeen&order=desc');
    assert.equal(bySeen.length, 25);
    assert.equal(bySeen[0]?.name, 'db-00');
    assert.equal(bySeen.at(-1)?.lastSeenAt, null);
  });

  it('filters by text, status, customer and ids, and counts per status for the status filter', async () => {
    const special = await page('limit=50&q=SPECIAL-host');
    assert.deepEqual(
      special.items.map((s) => s.name),
      ['Web-07'],
    );
    const customers = await page('limit=50&q=glob');
    assert.equal(customers.total, 5, 'the customer name matches too');
    const bad = await page('limit=50&status=CRITICAL,WARNING');
    assert.ok(bad.items.every((s) => s.status === 'CRITICAL' || s.status === 'WARNING'));
    assert.equal(bad.total, 10);
    assert.equal(bad.counts.ONLINE, 5, 'counts leave the status filter out');
    assert.equal(bad.counts.CRITICAL, 5);
    const ofGlobex = await page(`limit=50&customer=${globex}`);
    assert.ok(ofGlobex.items.every((s) => s.customer.id === globex));
    assert.equal(ofGlobex.total, 5);
    const ids = ofGlobex.items.slice(0, 2).map((s) => s.id);
    assert.deepEqual((await page(`limit=50&ids=${ids.join(',')}`)).items.map((s) => s.id).sort(), ids.slice().sort());
    // per customer: the systems matching every filter, status included (Globex's are all online)
    assert.deepEqual(bad.customers, [{ id: acme, count: 10 }]);
    const everyone = await page('limit=1');
    assert.deepEqual(
      everyone.customers.slice().sort((a, b) => a.id - b.id),
      [
        { id: acme, count: 20 },
        { id: globex, count: 5 },
      ].sort((a, b) => a.id - b.id),
    );
    const filteredArray = await admin.get(`/api/systems?customer=${acme}`);
    assert.equal((filteredArray.body as System[]).length, 20, 'filters apply to the whole array too');
  });

  it('sorts by customer, then cluster with the systems of no cluster last, then name (the console groups so)', async () => {
    const [zeta] = await t.db
      .knex('clusters')
      .insert({ customer_id: globex, name: 'zeta', enrollment_key: 'paging-zeta' })
      .returning<{ id: number }[]>('id');
    const [alpha] = await t.db
      .knex('clusters')
      .insert({ customer_id: globex, name: 'alpha', enrollment_key: 'paging-alpha' })
      .returning<{ id: number }[]>('id');
    const globexRows = await t.db.knex('systems').where({ customer_id: globex }).orderBy('id').select('id');
    await t.db.knex('systems').where({ id: globexRows[0]?.id }).update({ cluster_id: zeta?.id });
    await t.db.knex('systems').where({ id: globexRows[1]?.id }).update({ cluster_id: alpha?.id });
    try {
      const seen = (await walk(`limit=2&sort=customer&customer=${globex}`)).map((s) => s.cluster?.name ?? null);
      assert.deepEqual(seen, ['alpha', 'zeta', null, null, null]);
    } finally {
      await t.db.knex('systems').where({ customer_id: globex }).update({ cluster_id: null });
      await t.db
        .knex('clusters')
        .whereIn('id', [zeta?.id ?? 0, alpha?.id ?? 0])
        .delete();
    }
  });

  it('shows an operator only the systems of granted customers, in pages too', async () => {
    const operator = await signedInAs(t.server.url, t.db.knex, 'OPERATOR', [globex]);
    const seen = await walk('limit=2&sort=name', operator);
    assert.equal(seen.length, 5);
    assert.ok(seen.every((s) => s.customer.id === globex));
  });

  it('does not repeat or skip a row when rows are added before the cursor meanwhile', async () => {
    const first = await page('limit=5&sort=name');
    await t.db.knex('systems').insert({ customer_id: acme, name: 'aaa-new', hostname: 'new' });
    const second = await page(`limit=5&sort=name&cursor=${encodeURIComponent(first.nextCursor as string)}`);
    const seen = [...first.items, ...second.items].map((s) => s.id);
    assert.equal(new Set(seen).size, 10);
    await t.db.knex('systems').where({ name: 'aaa-new' }).delete();
  });

  it('refuses bad input with 400 naming the field', async () => {
    const cases: [string, RegExp][] = [
      ['limit=0', /^limit/],
      ['limit=501', /^limit/],
      ['limit=5&cursor=not-a-cursor', /^cursor: /],
      ['cursor=abc', /^cursor: /],
      // the right sort order, but not as many sort values as it has
      [
        `sort=name&limit=5&cursor=${Buffer.from('{"s":"name","o":"asc","v":[],"id":3}').toString('base64url')}`,
        /^cursor: /,
      ],
      ['status=BROKEN&limit=5', /^status/],
      ['sort=price', /^sort/],
      ['ids=1,x', /^ids/],
      ['offset=2', /offset/],
    ];
    for (const [query, field] of cases) {
      const reply = await admin.get(`/api/systems/page?${query}`);
      assert.equal(reply.status, 400, query);
      assert.match((reply.body as { error: string }).error, field, query);
    }
    const byName = await page('limit=5&sort=name');
    const other = await admin.get(
      `/api/systems/page?limit=5&sort=status&cursor=${encodeURIComponent(byName.nextCursor as string)}`,
    );
    assert.equal(other.status, 400);
    assert.match((other.body as { error: string }).error, /another sort order/);
  });
});
