import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import type { Knex } from 'knex';
import { ensureDefaultRules } from '../../../db/seed-rules.js';
import { FakeClock } from '../lib/clock.js';
import { createAccount, createCustomer } from '../testing/accounts.js';
import { useTestServer } from '../testing/app.js';
import { Client } from '../testing/http.js';

const NOW = new Date('2026-11-22T12:00:00Z');

async function insertSystem(db: Knex, customerId: number, name: string, clusterId: number | null = null) {
  const [row] = await db('systems')
    .insert({
      customer_id: customerId,
      cluster_id: clusterId,
      name,
      hostname: name,
      last_seen_at: NOW,
      status: 'ONLINE',
    })
    .returning('id');
  return (row as { id: number }).id;
}

const CPU_RULE = {
  key: 'cpu.custom',
  name: 'CPU custom',
  severity: 'WARNING',
  metric: 'cpu.usage_pct',
  operator: '>',
  threshold: 80,
  forSeconds: 600,
};

describe('/api/alert-rules and /api/event-rules', () => {
  const fixture = useTestServer({}, { clock: new FakeClock(NOW) });
  let db: Knex;
  let mine: number;
  let theirs: number;
  let cluster: number;
  let web: number;
  let admin: Client;
  let operator: Client;
  let viewer: Client;
  let stranger: Client;

  async function signedIn(role: 'ADMIN' | 'OPERATOR' | 'VIEWER', customerIds: number[] = []) {
    const account = await createAccount(db, { role, customerIds });
    const client = new Client(fixture.server.url);
    await client.signIn(account.email, account.password);
    return client;
  }
  const ruleId = async (key: string) => (await db('alert_rules').where({ key }).whereNull('scope_type').first('id')).id;
  const count = async (table: string) => Number((await db(table).count('* as n'))[0]?.n);

  before(async () => {
    db = fixture.db.knex;
    await ensureDefaultRules(db);
    mine = await createCustomer(db, 'Mine');
    theirs = await createCustomer(db, 'Theirs');
    const [c] = await db('clusters').insert({ customer_id: mine, name: 'prod', enrollment_key: 'k1' }).returning('id');
    cluster = (c as { id: number }).id;
    web = await insertSystem(db, mine, 'web-01', cluster);
    admin = await signedIn('ADMIN');
    operator = await signedIn('OPERATOR', [mine]);
    viewer = await signedIn('VIEWER', [mine]);
    stranger = await signedIn('OPERATOR', [theirs]);
  });

  it('lists the 44 default alert rules and the default event rule to every role', async () => {
    for (const client of [admin, operator, viewer]) {
      const rules = (await client.get('/api/alert-rules')).body;
      assert.equal(rules.length, 44);
      const offline = rules.find((r: { key: string }) => r.key === 'system.offline');
      assert.equal(offline.kind, 'offline');
      assert.equal(offline.metric, null);
      assert.equal(offline.scope, null);
      const cpu = rules.find((r: { key: string }) => r.key === 'cpu.high');
      assert.deepEqual(
        [cpu.metric, cpu.operator, cpu.threshold, cpu.forSeconds, cpu.severity, cpu.enabled],
        ['cpu.usage_pct', '>', 85, 600, 'WARNING', true],
      );
      const events = (await client.get('/api/event-rules')).body;
      assert.deepEqual(
        events.map((e: { key: string; derived: string }) => [e.key, e.derived]),
        [['system.rebooted', 'reboot']],
      );
    }
  });

  it('lets only an ADMIN write global rules; a viewer never writes', async () => {
    const before = await count('alert_rules');
    assert.equal((await operator.post('/api/alert-rules', CPU_RULE)).status, 403);
    assert.equal((await viewer.post('/api/alert-rules', CPU_RULE)).status, 403);
    const cpuHigh = await ruleId('cpu.high');
    assert.equal((await operator.patch(`/api/alert-rules/${cpuHigh}`, { threshold: 1 })).status, 403);
    assert.equal((await operator.delete(`/api/alert-rules/${cpuHigh}`)).status, 403);
    assert.equal(await count('alert_rules'), before, 'a refused request stores nothing');

    const created = await admin.post('/api/alert-rules', CPU_RULE);
    assert.equal(created.status, 201);
    assert.equal(created.body.kind, 'metric');
    assert.equal(created.body.scope, null);
    assert.equal(created.body.absolute, false);
    assert.equal(created.body.enabled, true);
    assert.equal((await admin.post('/api/alert-rules', CPU_RULE)).status, 409, 'duplicate (key, scope)');

    const edited = await admin.patch(`/api/alert-rules/${created.body.id}`, { threshold: 90, enabled: false });
    assert.equal(edited.status, 200);
    assert.equal(edited.body.threshold, 90);
    assert.equal(edited.body.enabled, false);
    assert.equal((await admin.delete(`/api/alert-rules/${created.body.id}`)).status, 204);
    assert.equal((await admin.get(`/api/alert-rules/${created.body.id}`)).status, 404);
  });

  it('refuses invalid rules with the field named, storing nothing', async () => {
    const before = await count('alert_rules');
    const cases: [Record<string, unknown>, string][] = [
      [{ ...CPU_RULE, key: 'Bad Key' }, 'key'],
      [{ ...CPU_RULE, name: '' }, 'name'],
      [{ ...CPU_RULE, severity: 'LOW' }, 'severity'],
      [{ ...CPU_RULE, metric: 'CPU!' }, 'metric'],
      [{ ...CPU_RULE, metric: undefined }, 'metric'],
      [{ ...CPU_RULE, operator: '=>' }, 'operator'],
      [{ ...CPU_RULE, threshold: '80' }, 'threshold'],
      [{ ...CPU_RULE, threshold: undefined }, 'threshold'],
      [{ ...CPU_RULE, forSeconds: -1 }, 'forSeconds'],
      [{ ...CPU_RULE, forSeconds: 1.5 }, 'forSeconds'],
      [{ ...CPU_RULE, instanceGlob: 'x'.repeat(129) }, 'instanceGlob'],
      [{ ...CPU_RULE, scope: { type: 'galaxy', id: 1 } }, 'scope.type'],
      [{ ...CPU_RULE, scope: { type: 'customer', id: 999999 } }, 'scope.id'],
      [{ ...CPU_RULE, scope: { type: 'system', id: 99999999999 } }, 'scope.id'],
      [{ ...CPU_RULE, key: 'system.offline', metric: 'cpu.usage_pct', scope: { type: 'customer', id: 1 } }, 'metric'],
    ];
    for (const [body, field] of cases) {
      const reply = await admin.post('/api/alert-rules', body);
      assert.equal(reply.status, 400, JSON.stringify(body));
      assert.equal(reply.body.details?.field, field, JSON.stringify(body));
    }
    const cpuHigh = await ruleId('cpu.high');
    const keyChange = await admin.patch(`/api/alert-rules/${cpuHigh}`, { key: 'cpu.other' });
    assert.equal(keyChange.status, 400);
    assert.equal(keyChange.body.details.field, 'key');
    const nulled = await admin.patch(`/api/alert-rules/${cpuHigh}`, { metric: null });
    assert.equal(nulled.status, 400);
    assert.equal(nulled.body.details.field, 'metric');
    assert.equal(await count('alert_rules'), before);
    assert.equal((await db('alert_rules').where({ id: cpuHigh }).first()).metric, 'cpu.usage_pct');
  });

  it('lets the offline rule be disabled and scoped, never given a metric', async () => {
    const offline = await ruleId('system.offline');
    const withMetric = await admin.patch(`/api/alert-rules/${offline}`, { metric: 'cpu.usage_pct' });
    assert.equal(withMetric.status, 400);
    assert.equal(withMetric.body.details.field, 'metric');
    const off = await admin.patch(`/api/alert-rules/${offline}`, { enabled: false, severity: 'WARNING' });
    assert.equal(off.status, 200);
    assert.equal(off.body.enabled, false);
    await admin.patch(`/api/alert-rules/${offline}`, { enabled: true, severity: 'CRITICAL' });

    const scoped = await operator.post('/api/alert-rules', {
      key: 'system.offline',
      name: 'Offline (quiet at Mine)',
      severity: 'CRITICAL',
      enabled: false,
      scope: { type: 'customer', id: mine },
    });
    assert.equal(scoped.status, 201);
    assert.equal(scoped.body.kind, 'offline');
    assert.deepEqual(scoped.body.scope, { type: 'customer', id: mine, customerId: mine, name: 'Mine' });
    assert.equal((await admin.delete(`/api/alert-rules/${scoped.body.id}`)).status, 204);
  });

  it('lets an operator override at its customers only; others never see the override', async () => {
    const override = { ...CPU_RULE, key: 'cpu.high', threshold: 95 };
    for (const scope of [
      { type: 'customer', id: mine },
      { type: 'cluster', id: cluster },
      { type: 'system', id: web },
    ]) {
      const reply = await operator.post('/api/alert-rules', { ...override, scope });
      assert.equal(reply.status, 201, scope.type);
      assert.equal(reply.body.scope.customerId, mine);
      assert.equal((await operator.post('/api/alert-rules', { ...override, scope })).status, 409);
    }
    const foreign = await operator.post('/api/alert-rules', { ...override, scope: { type: 'customer', id: theirs } });
    assert.equal(foreign.status, 400, 'a customer the operator cannot see is reported like a missing one');
    assert.equal(foreign.body.details.field, 'scope.id');

    const atCustomer = (await viewer.get('/api/alert-rules')).body.find(
      (r: { key: string; scope: { type: string } | null }) => r.key === 'cpu.high' && r.scope?.type === 'customer',
    );
    assert.equal(atCustomer.threshold, 95);
    assert.equal((await viewer.patch(`/api/alert-rules/${atCustomer.id}`, { threshold: 1 })).status, 403);
    assert.equal((await stranger.get('/api/alert-rules')).body.length, 44, 'overrides of Mine are invisible');
    assert.equal((await stranger.get(`/api/alert-rules/${atCustomer.id}`)).status, 404);
    assert.equal((await stranger.patch(`/api/alert-rules/${atCustomer.id}`, { threshold: 1 })).status, 404);
    assert.equal((await stranger.delete(`/api/alert-rules/${atCustomer.id}`)).status, 404);

    const edited = await operator.patch(`/api/alert-rules/${atCustomer.id}`, { threshold: 96, instanceGlob: '' });
    assert.equal(edited.status, 200);
    assert.equal(edited.body.threshold, 96);
    assert.equal(edited.body.instanceGlob, null);
    await db('alert_rules').whereNotNull('scope_type').delete();
  });

  it('answers concurrent creations of one override with one 201 and 409s, never a 500', async () => {
    const override = { ...CPU_RULE, key: 'mem.high', threshold: 99, scope: { type: 'system', id: web } };
    const replies = await Promise.all(Array.from({ length: 6 }, () => operator.post('/api/alert-rules', override)));
    assert.deepEqual(replies.map((r) => r.status).sort(), [201, 409, 409, 409, 409, 409]);
    const eventOverride = {
      key: 'system.rebooted',
      name: 'Rebooted',
      severity: 'INFO',
      derived: 'reboot',
      scope: override.scope,
    };
    const eventReplies = await Promise.all(
      Array.from({ length: 6 }, () => operator.post('/api/event-rules', eventOverride)),
    );
    assert.deepEqual(eventReplies.map((r) => r.status).sort(), [201, 409, 409, 409, 409, 409]);
    await db('alert_rules').whereNotNull('scope_type').delete();
    await db('event_rules').whereNotNull('scope_type').delete();
  });

  it('manages event rules with the same rights and checks', async () => {
    const body = {
      key: 'service.failed',
      name: 'A service failed',
      severity: 'WARNING',
      eventType: 'service.failed',
      messagePattern: 'nginx*',
      minEventSeverity: 'WARNING',
      holdSeconds: 600,
    };
    assert.equal((await operator.post('/api/event-rules', body)).status, 403, 'global: ADMIN only');
    const missing = await admin.post('/api/event-rules', { ...body, eventType: null });
    assert.equal(missing.status, 400);
    assert.equal(missing.body.details.field, 'eventType');
    const badHold = await admin.post('/api/event-rules', { ...body, holdSeconds: -5 });
    assert.equal(badHold.body.details.field, 'holdSeconds');
    const badDerived = await admin.post('/api/event-rules', { ...body, derived: 'panic' });
    assert.equal(badDerived.body.details.field, 'derived');
    const created = await admin.post('/api/event-rules', body);
    assert.equal(created.status, 201);
    assert.equal(created.body.messagePattern, 'nginx*');
    assert.equal(created.body.derived, null);
    assert.equal((await admin.post('/api/event-rules', body)).status, 409);

    const scoped = await operator.post('/api/event-rules', {
      ...body,
      scope: { type: 'system', id: web },
      enabled: false,
    });
    assert.equal(scoped.status, 201);
    assert.equal((await stranger.get(`/api/event-rules/${scoped.body.id}`)).status, 404);
    assert.equal((await viewer.get('/api/event-rules')).body.length, 3);
    const cleared = await operator.patch(`/api/event-rules/${scoped.body.id}`, { eventType: null });
    assert.equal(cleared.status, 400, 'neither an event type nor a derived event left');
    assert.equal(
      (await operator.patch(`/api/event-rules/${scoped.body.id}`, { holdSeconds: 60 })).body.holdSeconds,
      60,
    );
    assert.equal((await operator.delete(`/api/event-rules/${scoped.body.id}`)).status, 204);
    assert.equal((await viewer.delete(`/api/event-rules/${created.body.id}`)).status, 403);
    assert.equal((await admin.delete(`/api/event-rules/${created.body.id}`)).status, 204);
  });

  describe('preview: which systems would fire now', () => {
    let dbSystem: number;
    let other: number;
    let stale: number;
    before(async () => {
      dbSystem = await insertSystem(db, mine, 'db-01');
      other = await insertSystem(db, theirs, 'other-01');
      stale = await insertSystem(db, mine, 'stale-01');
      const at = (msAgo: number) => new Date(NOW.getTime() - msAgo);
      await db('metric_latest').insert([
        { system_id: web, name: 'cpu.usage_pct', instance: '', time: at(30_000), value: 97 },
        { system_id: dbSystem, name: 'cpu.usage_pct', instance: '', time: at(30_000), value: 50 },
        { system_id: other, name: 'cpu.usage_pct', instance: '', time: at(30_000), value: 99 },
        // older than 5 minutes: not "now"
        { system_id: stale, name: 'cpu.usage_pct', instance: '', time: at(6 * 60_000), value: 99 },
        { system_id: web, name: 'disk.used_pct', instance: '/', time: at(10_000), value: 96 },
        { system_id: web, name: 'disk.used_pct', instance: '/boot', time: at(10_000), value: 97 },
      ]);
    });

    const names = (reply: { body: { systems: { systemName: string; instance: string }[] } }) =>
      reply.body.systems.map((s) => `${s.systemName}${s.instance}`);

    it('shows the visible systems where the condition holds on the newest fresh sample', async () => {
      const critical = await ruleId('cpu.critical');
      const asAdmin = await admin.get(`/api/alert-rules/${critical}/preview`);
      assert.equal(asAdmin.status, 200);
      assert.deepEqual(names(asAdmin), ['other-01', 'web-01']);
      assert.equal(asAdmin.body.total, 2);
      assert.match(asAdmin.body.note, /"for"/);
      assert.equal(asAdmin.body.evaluatedAt, NOW.toISOString());
      const [first] = (await viewer.get(`/api/alert-rules/${critical}/preview`)).body.systems;
      assert.deepEqual(
        { ...first, sampledAt: undefined },
        {
          systemId: web,
          systemName: 'web-01',
          customerId: mine,
          customerName: 'Mine',
          instance: '',
          value: 97,
          sampledAt: undefined,
          projectedAt: null,
        },
      );
    });

    it('leaves out systems where a more specific override decides', async () => {
      const override = await admin.post('/api/alert-rules', {
        key: 'cpu.critical',
        name: 'CPU critical at other-01',
        severity: 'CRITICAL',
        metric: 'cpu.usage_pct',
        operator: '>',
        threshold: 99.5,
        forSeconds: 600,
        scope: { type: 'system', id: other },
      });
      const critical = await ruleId('cpu.critical');
      assert.deepEqual(names(await admin.get(`/api/alert-rules/${critical}/preview`)), ['web-01']);
      assert.deepEqual(names(await admin.get(`/api/alert-rules/${override.body.id}/preview`)), []);
      await admin.delete(`/api/alert-rules/${override.body.id}`);
    });

    it('previews an unsaved rule with an instance glob; a viewer may not use the editor', async () => {
      const draft = {
        key: 'disk.draft',
        name: 'Disk draft',
        severity: 'WARNING',
        metric: 'disk.used_pct',
        operator: '>',
        threshold: 90,
        instanceGlob: '/b*',
      };
      assert.deepEqual(names(await operator.post('/api/alert-rules/preview', draft)), ['web-01/boot']);
      assert.deepEqual(names(await operator.post('/api/alert-rules/preview', { ...draft, instanceGlob: null })), [
        'web-01/',
        'web-01/boot',
      ]);
      assert.equal((await viewer.post('/api/alert-rules/preview', draft)).status, 403);
      const bad = await operator.post('/api/alert-rules/preview', { ...draft, operator: undefined });
      assert.equal(bad.status, 400);
      assert.equal(bad.body.details.field, 'operator');
      assert.equal(await db('alert_rules').where({ key: 'disk.draft' }).first(), undefined, 'a preview saves nothing');
    });

    it('previews the offline rule: silent reporting systems with offline alerts on', async () => {
      await db('systems')
        .where({ id: stale })
        .update({ last_seen_at: new Date(NOW.getTime() - 3 * 60_000) });
      await db('systems')
        .where({ id: dbSystem })
        .update({ last_seen_at: new Date(NOW.getTime() - 3 * 60_000), offline_alerts: false });
      await insertSystem(db, mine, 'never-reported').then((id) =>
        db('systems').where({ id }).update({ last_seen_at: null }),
      );
      const offline = await ruleId('system.offline');
      assert.deepEqual(names(await viewer.get(`/api/alert-rules/${offline}/preview`)), ['stale-01']);
    });

    it('lists the first 100 by name and counts them all (a rule that fires on a whole fleet)', async () => {
      const ids = (
        await db('systems')
          .insert(
            Array.from({ length: 130 }, (_, i) => ({
              customer_id: theirs,
              name: `bulk-${String(i).padStart(3, '0')}`,
              hostname: `bulk-${i}`,
            })),
          )
          .returning<{ id: number }[]>('id')
      ).map((row) => row.id);
      await db('metric_latest').insert(
        ids.map((id) => ({ system_id: id, name: 'cpu.usage_pct', instance: '', time: NOW, value: 99 })),
      );
      try {
        const reply = await admin.get(`/api/alert-rules/${await ruleId('cpu.critical')}/preview`);
        assert.equal(reply.body.total, 132, 'the 130, other-01 and web-01');
        assert.equal(reply.body.systems.length, 100);
        assert.deepEqual(names(reply).slice(0, 2), ['bulk-000', 'bulk-001']);
        assert.equal(names(reply).at(-1), 'bulk-099');
      } finally {
        await db('systems').whereIn('id', ids).delete();
      }
    });
  });
});
