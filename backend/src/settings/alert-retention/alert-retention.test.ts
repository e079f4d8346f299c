import assert from 'node:assert/strict';
import { auditTrailOn } from '../../testing/audit.js';
import { before, describe, it } from 'node:test';
import type { Knex } from 'knex';
import { createHousekeepingRepo } from '../../housekeeping/repo.js';
import { createHousekeeping } from '../../housekeeping/service.js';
import { FakeClock } from '../../lib/clock.js';
import { createAccount, createCustomer } from '../../testing/accounts.js';
import { useTestServer } from '../../testing/app.js';
import { Client } from '../../testing/http.js';
import { captureLogger } from '../../testing/logger.js';
import { createAlertRetentionRepo } from './repo.js';
import { createAlertRetentionService } from './service.js';

const NOW = new Date('2026-11-22T12:00:00Z');
const DAY = 86_400_000;

describe('alert retention', () => {
  const fixture = useTestServer();
  let db: Knex;
  let admin: Client;
  let operator: Client;
  let viewer: Client;

  async function signedIn(role: 'ADMIN' | 'OPERATOR' | 'VIEWER') {
    const account = await createAccount(db, { role });
    const client = new Client(fixture.server.url);
    await client.signIn(account.email, account.password);
    return client;
  }

  before(async () => {
    db = fixture.db.knex;
    admin = await signedIn('ADMIN');
    operator = await signedIn('OPERATOR');
    viewer = await signedIn('VIEWER');
  });

  it('is an ADMIN setting, 90 days by default, 0..3650 whole days', async () => {
    assert.deepEqual((await admin.get('/api/settings/alerts')).body, { retentionDays: 90 });
    for (const client of [operator, viewer]) {
      assert.equal((await client.get('/api/settings/alerts')).status, 403);
      assert.equal((await client.put('/api/settings/alerts', { retentionDays: 7 })).status, 403);
    }
    for (const retentionDays of [-1, 3651, 1.5, '30', null]) {
      const reply = await admin.put('/api/settings/alerts', { retentionDays });
      assert.equal(reply.status, 400, String(retentionDays));
      assert.equal(reply.body.details.field, 'retentionDays');
    }
    assert.equal(await db('app_settings').where({ key: 'alert_retention' }).first(), undefined, 'nothing stored');
    assert.deepEqual((await admin.put('/api/settings/alerts', { retentionDays: 0 })).body, { retentionDays: 0 });
    assert.deepEqual((await admin.put('/api/settings/alerts', { retentionDays: 30 })).body, { retentionDays: 30 });
    assert.deepEqual((await admin.get('/api/settings/alerts')).body, { retentionDays: 30 });
  });

  it('deletes only resolved alerts older than the setting, hourly, never open ones; 0 keeps all', async () => {
    const customer = await createCustomer(db);
    const [s] = await db('systems').insert({ customer_id: customer, name: 'web' }).returning('id');
    const systemId = (s as { id: number }).id;
    const alert = (key: string, startedDaysAgo: number, resolvedDaysAgo: number | null) => ({
      rule_key: key,
      rule_kind: 'metric',
      system_id: systemId,
      customer_id: customer,
      severity: 'WARNING',
      state: resolvedDaysAgo === null ? 'open' : 'resolved',
      started_at: new Date(NOW.getTime() - startedDaysAgo * DAY),
      resolved_at: resolvedDaysAgo === null ? null : new Date(NOW.getTime() - resolvedDaysAgo * DAY),
    });
    const [cluster] = await db('clusters')
      .insert({ customer_id: customer, name: 'dc', enrollment_key: 'k-retention' })
      .returning<{ id: number }[]>('id');
    const incident = async (resolvedDaysAgo: number) =>
      (
        await db('incidents')
          .insert({
            customer_id: customer,
            cluster_id: cluster?.id,
            title: 'Site down: dc',
            state: 'resolved',
            started_at: new Date(NOW.getTime() - 40 * DAY),
            resolved_at: new Date(NOW.getTime() - resolvedDaysAgo * DAY),
          })
          .returning<{ id: string }[]>('id')
      )[0]?.id;
    const oldIncident = await incident(31);
    const youngIncident = await incident(29);
    await db('alerts').insert([
      { ...alert('old.resolved', 40, 31), incident_id: oldIncident },
      { ...alert('young.resolved', 40, 29), incident_id: youngIncident },
      alert('ancient.open', 400, null),
    ]);
    const incidents = async () => (await db('incidents').orderBy('id').pluck('id')).map(String).join(',');
    const clock = new FakeClock(NOW);
    const repo = createAlertRetentionRepo(db);
    const logs = captureLogger();
    const housekeeping = createHousekeeping({
      repo: createHousekeepingRepo(db),
      clock,
      log: logs.log,
      alertRetention: createAlertRetentionService({ repo, clock, audit: auditTrailOn(db, clock) }),
    });
    const keys = async () => (await db('alerts').orderBy('rule_key').pluck('rule_key')).join(',');

    await repo.saveDays(0);
    await housekeeping.runOnce();
    assert.equal(await keys(), 'ancient.open,old.resolved,young.resolved', '0 keeps everything');

    await repo.saveDays(30);
    await housekeeping.runOnce();
    assert.equal(await keys(), 'ancient.open,young.resolved');
    assert.equal(logs.lines().at(-1)?.['alerts'], 1);
    assert.equal(await incidents(), String(youngIncident), 'an incident goes with its last alert');

    clock.advance(2 * DAY);
    await housekeeping.runOnce();
    assert.equal(await keys(), 'ancient.open', 'open alerts are never deleted');
  });
});
