/**
 * The availability report after a mass outage: 10,000 systems of one customer, each with the offline
 * alert of the same one-hour outage (10,000 transitions), answered over the real server within a
 * bound with every system's hour down. Each system's alerts are looked up once, not searched for
 * among all of the customer's alerts per system (10,000 × 10,000 comparisons).
 */
import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import { describe, it } from 'node:test';
import { FakeClock } from '../lib/clock.js';
import { createCustomer } from '../testing/accounts.js';
import { useTestServer } from '../testing/app.js';
import { signedInAs } from '../testing/http.js';

const HOUR = 3_600_000;
const SYSTEMS = 10_000;
const clock = new FakeClock(new Date('2026-11-10T12:00:00Z'));
/** What the report may take at this size on a loaded 2-core host. */
const BOUND_MS = 4000;

describe('the availability report of 10,000 systems after a mass outage', () => {
  const fixture = useTestServer({}, { clock });

  it('counts the outage for every system, within the bound', async () => {
    const db = fixture.db.knex;
    const customer = await createCustomer(db, 'Large customer');
    await db.raw(
      `INSERT INTO systems (customer_id, name, hostname, created_at)
       SELECT ?, 'host-' || g, 'host-' || g, '2026-01-01T00:00Z' FROM generate_series(1, ?) g`,
      [customer, SYSTEMS],
    );
    await db.raw(
      `INSERT INTO alerts (rule_key, rule_kind, system_id, customer_id, severity, state, started_at, resolved_at)
       SELECT 'system.offline', 'offline', id, customer_id, 'CRITICAL', 'resolved',
              '2026-10-10T10:00Z', '2026-10-10T11:00Z'
         FROM systems WHERE customer_id = ?`,
      [customer],
    );
    await db.raw('ANALYZE');
    const admin = await signedInAs(fixture.server.url, db, 'ADMIN');

    const started = performance.now();
    const reply = await admin.get(`/api/reports/availability?customer=${customer}&from=2026-10-01&to=2026-10-31`);
    const ms = performance.now() - started;
    assert.equal(reply.status, 200, JSON.stringify(reply.body).slice(0, 300));
    assert.ok(ms < BOUND_MS, `the report took ${ms.toFixed(0)} ms`);
    const systems = reply.body.systems as { downMs: number }[];
    assert.equal(systems.length, SYSTEMS);
    assert.ok(systems.every((s) => s.downMs === HOUR));
    assert.equal(reply.body.total.downMs, SYSTEMS * HOUR);
  });
});
