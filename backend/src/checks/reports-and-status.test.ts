/**
 * A check on the same reports and status pages as the systems, over the real server: its time
 * DOWN (the `check.down` alert) is downtime in the availability report, which marks its row as a
 * check; and it can be put on a customer's status page under a public name, its own name never
 * shown there.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { ensureCheckRules, ensureDefaultRules } from '../../../db/seed-rules.js';
import { FakeClock } from '../lib/clock.js';
import { useTestServer } from '../testing/app.js';
import { Client, signedInAs } from '../testing/http.js';

const HOUR = 3_600_000;
const clock = new FakeClock(new Date('2026-11-20T12:00:00Z'));

describe('a check in the availability report and on a status page', () => {
  const fixture = useTestServer({}, { clock });
  let admin: Client;
  let customerId: number;
  let checkId: number;

  before(async () => {
    const db = fixture.db.knex;
    await ensureDefaultRules(db);
    await ensureCheckRules(db);
    admin = await signedInAs(fixture.server.url, db, 'ADMIN');
    customerId = (await admin.post('/api/customers', { name: 'Shop GmbH' })).body.id;
    const created = await admin.post('/api/checks', {
      customerId,
      name: 'shop-internal-frontend',
      settings: { type: 'tcp', host: 'shop.example.net', port: 443 },
      enabled: false,
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    checkId = created.body.id;
    await db('systems').where({ id: checkId }).update({ created_at: '2026-10-01T00:00Z' });
    const alert = { rule_key: 'check.down', rule_kind: 'metric', system_id: checkId, customer_id: customerId };
    await db('alerts').insert([
      // two hours DOWN on 10 November
      {
        ...alert,
        severity: 'CRITICAL',
        state: 'resolved',
        started_at: '2026-11-10T10:00Z',
        resolved_at: '2026-11-10T12:00Z',
      },
      // slow is no downtime
      {
        ...alert,
        rule_key: 'check.slow',
        severity: 'WARNING',
        state: 'resolved',
        started_at: '2026-11-11T10:00Z',
        resolved_at: '2026-11-11T20:00Z',
      },
      // down now, as the evaluation leaves it
      { ...alert, severity: 'CRITICAL', state: 'open', started_at: '2026-11-20T11:00Z' },
    ]);
    await db('systems').where({ id: checkId }).update({ status: 'CRITICAL' });
  });

  it('counts the time the check was DOWN as its downtime', async () => {
    const reply = await admin.get(`/api/reports/availability?customer=${customerId}&from=2026-11-01&to=2026-11-20`);
    assert.equal(reply.status, 200, JSON.stringify(reply.body));
    const [row] = reply.body.systems as { id: number; kind: string; downMs: number; periods: { kind: string }[] }[];
    assert.deepEqual([row?.id, row?.kind], [checkId, 'check']);
    assert.equal(row?.downMs, 3 * HOUR, 'two hours on 10 November and the hour so far today');
    assert.deepEqual(row?.periods.filter((p) => p.kind === 'down').length, 2);
    assert.ok(
      (reply.body.downtimeRules as { key: string }[]).some((r) => r.key === 'check.down'),
      'the report says a check down counts',
    );
  });

  it('shows the check on a status page under its public name only', async () => {
    const created = await admin.post('/api/status-pages', {
      customerId,
      title: 'Shop status',
      items: [{ systemId: checkId, displayName: 'Web shop' }],
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.deepEqual(created.body.items, [
      { kind: 'system', id: checkId, name: 'shop-internal-frontend', displayName: 'Web shop' },
    ]);
    const page = await new Client(fixture.server.url).get(`/status/${created.body.slug}`);
    assert.equal(page.status, 200);
    const html = page.body as string;
    assert.match(html, /<h3>Web shop<\/h3><span class="state">Outage<\/span>/);
    assert.match(html, /title="2026-11-10: 91\.66 % available, 120 min down"/);
    assert.ok(!html.includes('shop-internal-frontend'), "the check's own name is not on the page");
    assert.ok(!html.includes('shop.example.net'), 'nor its target');
  });
});
