/**
 * Housekeeping's alert retention after a mass outage: 10,000 alerts resolved in the same minute
 * (one cluster incident each per 100 and the fleet incident over all), with their outbox rows, pass
 * the retention together: deleted in batches by the hourly pass, their incidents and deliveries with
 * them, a newer alert kept.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { FakeClock } from '../lib/clock.js';
import { createAlertRetentionRepo } from '../settings/alert-retention/repo.js';
import { createAlertRetentionService } from '../settings/alert-retention/service.js';
import { auditTrailOn } from '../testing/audit.js';
import { createTestDatabase, type TestDatabase } from '../testing/database.js';
import { captureLogger } from '../testing/logger.js';
import { createHousekeepingRepo } from './repo.js';
import { createHousekeeping } from './service.js';

const SYSTEMS = 10_000;
const clock = new FakeClock(new Date('2026-11-28T12:00:00Z'));

describe('alert retention after a mass outage', () => {
  let db: TestDatabase;
  before(async () => {
    db = await createTestDatabase();
  });
  after(async () => {
    await db.drop();
  });

  it('deletes 10,000 alerts resolved together past the retention, with their incidents and deliveries', async () => {
    const knex = db.knex;
    await knex.raw(`INSERT INTO customers (name) SELECT 'Customer ' || g FROM generate_series(1, 50) g`);
    await knex.raw(
      `INSERT INTO clusters (customer_id, name, enrollment_key)
       SELECT c.id, 'site-' || c.id || '-' || k, md5(c.id || '-' || k) FROM customers c, generate_series(1, 2) k`,
    );
    await knex.raw(
      `INSERT INTO systems (customer_id, cluster_id, name, hostname, status)
       SELECT cl.customer_id, cl.id, 'host-' || cl.id || '-' || g, 'host', 'ONLINE'
         FROM clusters cl, generate_series(1, ?) g`,
      [SYSTEMS / 100],
    );
    const outage = { started_at: '2026-08-01T10:00Z', resolved_at: '2026-08-01T11:00Z', state: 'resolved' };
    await knex.raw(
      `INSERT INTO incidents (customer_id, cluster_id, title, state, started_at, resolved_at)
       SELECT customer_id, id, 'Site down: ' || name, 'resolved', ?, ? FROM clusters`,
      [outage.started_at, outage.resolved_at],
    );
    const [fleet] = await knex('incidents')
      .insert({ kind: 'fleet', title: `Argus receives no reports from ${SYSTEMS} systems`, ...outage })
      .returning<{ id: string }[]>('id');
    await knex.raw(
      `INSERT INTO alerts (rule_key, rule_kind, system_id, customer_id, severity, state, started_at, resolved_at,
                           incident_id, fleet_incident_id)
       SELECT 'system.offline', 'offline', s.id, s.customer_id, 'CRITICAL', 'resolved', ?, ?, i.id, ?
         FROM systems s JOIN incidents i ON i.cluster_id = s.cluster_id`,
      [outage.started_at, outage.resolved_at, (fleet as { id: string }).id],
    );
    await knex.raw(
      `INSERT INTO channel_deliveries (alert_id, channel_name, channel_type, event, delivery_id, created_at, next_attempt_at)
       SELECT id, 'On call', 'webhook', 'resolved', gen_random_uuid(), resolved_at, resolved_at FROM alerts`,
    );
    const [kept] = await knex('alerts')
      .insert({
        rule_key: 'system.offline',
        rule_kind: 'offline',
        system_id: (await knex('systems').first('id')).id,
        customer_id: (await knex('systems').first('customer_id')).customer_id,
        severity: 'CRITICAL',
        state: 'resolved',
        started_at: '2026-11-20T10:00Z',
        resolved_at: '2026-11-20T11:00Z',
      })
      .returning<{ id: string }[]>('id');

    const alertRetention = createAlertRetentionService({
      repo: createAlertRetentionRepo(knex),
      clock,
      audit: auditTrailOn(knex, clock),
    });
    const logs = captureLogger();
    await createHousekeeping({ repo: createHousekeepingRepo(knex), clock, log: logs.log, alertRetention }).runOnce();

    assert.deepEqual(await knex('alerts').pluck('id'), [kept?.id], 'the 90-day default keeps only the newer alert');
    assert.equal(Number((await knex('channel_deliveries').count('* as n'))[0]?.n), 0);
    assert.equal(Number((await knex('incidents').count('* as n'))[0]?.n), 0, 'cluster and fleet incidents went');
  });
});
