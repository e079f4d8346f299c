/**
 * The rule flag `countsAsDowntime` (what availability reports count as down): seeded on for the offline
 * rule and "Service down" only, never off for the offline rule, inherited by an override created
 * without it, chosen by one created or changed with it.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import type { Knex } from 'knex';
import { ensureDefaultRules } from '../../../db/seed-rules.js';
import { createCustomer } from '../testing/accounts.js';
import { useTestServer } from '../testing/app.js';
import { signedInAs, type Client } from '../testing/http.js';

describe('counts as downtime, per alert rule', () => {
  const fixture = useTestServer({});
  let db: Knex;
  let mine: number;
  let admin: Client;
  let operator: Client;
  let viewer: Client;
  const ruleId = async (key: string) => (await db('alert_rules').where({ key }).whereNull('scope_type').first('id')).id;

  before(async () => {
    db = fixture.db.knex;
    await ensureDefaultRules(db);
    mine = await createCustomer(db, 'Mine');
    admin = await signedInAs(fixture.server.url, db, 'ADMIN');
    operator = await signedInAs(fixture.server.url, db, 'OPERATOR', [mine]);
    viewer = await signedInAs(fixture.server.url, db, 'VIEWER', [mine]);
  });

  it('says which rules count as downtime: offline and service down by default, overrides inheriting or choosing', async () => {
    const rules = (await viewer.get('/api/alert-rules')).body as { key: string; countsAsDowntime: boolean }[];
    assert.deepEqual(
      rules.filter((rule) => rule.countsAsDowntime).map((rule) => rule.key),
      ['service.down', 'system.offline'],
    );
    const offline = await ruleId('system.offline');
    const notDown = await admin.patch(`/api/alert-rules/${offline}`, { countsAsDowntime: false });
    assert.equal(notDown.status, 400);
    assert.equal(notDown.body.details.field, 'countsAsDowntime');
    const notBoolean = await admin.patch(`/api/alert-rules/${await ruleId('cpu.high')}`, { countsAsDowntime: 'yes' });
    assert.equal(notBoolean.status, 400);
    assert.equal(notBoolean.body.details.field, 'countsAsDowntime');

    const serviceDown = { key: 'service.down', name: 'Service down', severity: 'CRITICAL', metric: 'service.active' };
    const inherited = await operator.post('/api/alert-rules', {
      ...serviceDown,
      operator: '==',
      threshold: 0,
      scope: { type: 'customer', id: mine },
    });
    assert.equal(inherited.status, 201);
    assert.equal(inherited.body.countsAsDowntime, true, 'as the rule it overrides');
    const changed = await operator.patch(`/api/alert-rules/${inherited.body.id}`, { countsAsDowntime: false });
    assert.deepEqual([changed.status, changed.body.countsAsDowntime], [200, false]);
    assert.equal((await admin.get(`/api/alert-rules/${await ruleId('service.down')}`)).body.countsAsDowntime, true);
    assert.equal((await operator.delete(`/api/alert-rules/${inherited.body.id}`)).status, 204);
    const custom = await admin.post('/api/alert-rules', {
      key: 'backup.offsite',
      name: 'Off-site backup stale',
      severity: 'CRITICAL',
      metric: 'backup.age_h',
      operator: '>',
      threshold: 48,
    });
    assert.equal(custom.body.countsAsDowntime, false, 'a new key does not count unless asked');
    assert.equal((await admin.delete(`/api/alert-rules/${custom.body.id}`)).status, 204);
  });
});
