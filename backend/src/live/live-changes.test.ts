/**
 * `/api/live` topic `changes`: what changed (`{topic, ids}`), for the consoles that show it, made
 * through the real routes by one account and heard by the others that may see it, and only by them.
 * Real server, PostgreSQL, Redis and `ws` client.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createCustomer } from '../testing/accounts.js';
import { useTestServer } from '../testing/app.js';
import { bearer } from '../testing/http.js';
import { LiveClient, quietFor, type Frame } from '../testing/live-client.js';
import { alertEvent, barrier, liveFixtures } from '../testing/live-fixtures.js';
import { liveChange } from '../../../contracts/live.js';

const isChange = (sid: string, topic: string, id: number) => (frame: Frame) =>
  frame['t'] === 'msg' &&
  frame['sid'] === sid &&
  // the shape the console is typed with (contracts/live.ts)
  liveChange.safeParse(frame['data']).success &&
  frame['data'].topic === topic &&
  frame['data'].ids.includes(id);

describe('live channel: changes', () => {
  const t = useTestServer();
  const { signedIn, tokenOf, system } = liveFixtures(t);

  /** An account of `role` at `customers`, with an open live socket subscribed to `changes`. */
  async function listener(role: 'ADMIN' | 'OPERATOR' | 'VIEWER', customers: number[] = []) {
    const who = await signedIn(role, customers);
    const live = await LiveClient.open(t.server.url, { headers: bearer((await tokenOf(who.client)).token) });
    await live.subscribe('ch', 'changes');
    await barrier(live);
    return { ...who, live };
  }

  it('forwards rule, maintenance, customer and agent-setting changes to the accounts that see the customer', async () => {
    const a = await createCustomer(t.db.knex, 'Changes A');
    const b = await createCustomer(t.db.knex, 'Changes B');
    const [cluster] = await t.db
      .knex('clusters')
      .insert({ customer_id: a, name: 'main', enrollment_key: 'changes-test-enrollment-key-00000001' })
      .returning<{ id: number }[]>('id');
    const admin = await listener('ADMIN');
    const operatorA = await listener('OPERATOR', [a]);
    const viewerB = await listener('VIEWER', [b]);

    const rule = await operatorA.client.post('/api/alert-rules', {
      key: 'cpu.changes',
      name: 'CPU at A',
      severity: 'WARNING',
      metric: 'cpu.usage_pct',
      operator: '>',
      threshold: 80,
      forSeconds: 60,
      scope: { type: 'customer', id: a },
    });
    assert.equal(rule.status, 201, JSON.stringify(rule.body));
    const window = await admin.client.post('/api/maintenance-windows', {
      name: 'Patch night',
      kind: 'once',
      startsAt: '2030-01-01T01:00:00Z',
      endsAt: '2030-01-01T03:00:00Z',
      scope: { type: 'customer', id: a },
    });
    assert.equal(window.status, 201, JSON.stringify(window.body));
    assert.equal((await admin.client.patch(`/api/customers/${a}`, { notes: 'renamed racks' })).status, 200);
    const setting = await operatorA.client.post('/api/agent-settings', {
      scope: { type: 'cluster', id: cluster?.id },
      key: 'log.level',
      value: 'debug',
    });
    assert.equal(setting.status, 201, JSON.stringify(setting.body));

    for (const { live } of [admin, operatorA]) {
      await live.next(isChange('ch', 'rules', rule.body.id));
      await live.next(isChange('ch', 'maintenance', window.body.id));
      await live.next(isChange('ch', 'customers', a));
      await live.next(isChange('ch', 'agent-settings', setting.body.id));
    }
    await barrier(viewerB.live);
    assert.deepEqual(viewerB.live.messages('ch'), [], 'nothing of customer A reaches a viewer of B');
  });

  it('tells everyone of a global rule, and of a user only the ADMINs and that user', async () => {
    const a = await createCustomer(t.db.knex, 'Changes C');
    const admin = await listener('ADMIN');
    const viewer = await listener('VIEWER', [a]);
    const other = await listener('VIEWER', [a]);

    const rule = await admin.client.post('/api/event-rules', {
      key: 'service.failed.changes',
      name: 'A service failed',
      severity: 'WARNING',
      eventType: 'service.failed',
      holdSeconds: 600,
    });
    assert.equal(rule.status, 201, JSON.stringify(rule.body));
    await viewer.live.next(isChange('ch', 'rules', rule.body.id));
    await other.live.next(isChange('ch', 'rules', rule.body.id));

    const renamed = await admin.client.patch(`/api/users/${viewer.account.id}`, { name: 'Renamed viewer' });
    assert.equal(renamed.status, 200, JSON.stringify(renamed.body));
    await admin.live.next(isChange('ch', 'users', viewer.account.id));
    await viewer.live.next(isChange('ch', 'users', viewer.account.id));
    await barrier(other.live);
    assert.ok(
      !other.live.messages('ch').some((f) => f['data'].topic === 'users'),
      'another viewer hears nothing of that account',
    );
  });

  it('names the system whose status changed and the alert that moved, to who sees their customer', async () => {
    const a = await createCustomer(t.db.knex, 'Changes D');
    const b = await createCustomer(t.db.knex, 'Changes E');
    const systemA = await system(a, 'changes-a');
    const viewerA = await listener('VIEWER', [a]);
    const viewerB = await listener('VIEWER', [b]);

    await t.server.bus.publish('systems', { id: systemA });
    await viewerA.live.next(isChange('ch', 'systems', systemA));
    const event = alertEvent(a, systemA);
    await t.server.bus.publish('alert', event);
    await viewerA.live.next(isChange('ch', 'alerts', event.alert.id));
    await quietFor(200);
    await barrier(viewerB.live);
    assert.deepEqual(viewerB.live.messages('ch'), []);
  });

  it('announces a burst of system changes per customer, naming every system, to who sees it', async () => {
    const a = await createCustomer(t.db.knex, 'Changes G');
    const b = await createCustomer(t.db.knex, 'Changes H');
    const atA = [await system(a, 'g-1'), await system(a, 'g-2'), await system(a, 'g-3')];
    const atB = [await system(b, 'h-1'), await system(b, 'h-2')];
    const viewerA = await listener('VIEWER', [a]);
    const viewerB = await listener('VIEWER', [b]);
    for (const id of [...atA, ...atB]) await t.server.bus.publish('systems', { id });
    const named = async (live: LiveClient, ids: number[]) => {
      for (const id of ids) await live.next(isChange('ch', 'systems', id));
      return new Set(
        live
          .messages('ch')
          .filter((f) => f['data'].topic === 'systems')
          .flatMap((f) => f['data'].ids as number[]),
      );
    };
    assert.deepEqual([...(await named(viewerA.live, atA))].sort(), [...atA].sort());
    assert.deepEqual([...(await named(viewerB.live, atB))].sort(), [...atB].sort());
    const messagesA = viewerA.live.messages('ch').filter((f) => f['data'].topic === 'systems');
    assert.ok(messagesA.length < atA.length, `${messagesA.length} messages for ${atA.length} systems: batched`);
  });

  it('replays the changes missed while reconnecting (after = the last id seen)', async () => {
    const a = await createCustomer(t.db.knex, 'Changes F');
    const admin = await listener('ADMIN');
    const first = await admin.client.patch(`/api/customers/${a}`, { notes: 'one' });
    assert.equal(first.status, 200);
    const seen = await admin.live.next(isChange('ch', 'customers', a));
    admin.live.close();
    assert.equal((await admin.client.patch(`/api/customers/${a}`, { notes: 'two' })).status, 200);
    const again = await LiveClient.open(t.server.url, { headers: bearer((await tokenOf(admin.client)).token) });
    await again.subscribe('ch', 'changes', seen['id']);
    const replayed = await again.next(isChange('ch', 'customers', a));
    assert.notEqual(replayed['id'], seen['id']);
    again.close();
  });
});
