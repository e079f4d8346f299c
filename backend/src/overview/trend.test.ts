/**
 * GET /api/overview/trend: systems down (an offline alert open) and alerts open at now and at each of
 * the 23 hours before, on a fake clock, within the customers the caller may see.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { fleetTrend, type FleetTrend } from '../../../contracts/overview.js';
import { FakeClock } from '../lib/clock.js';
import { createCustomer } from '../testing/accounts.js';
import { useTestServer } from '../testing/app.js';
import { signedInAs, type Client } from '../testing/http.js';

const NOW = new Date('2026-06-10T12:00:00.000Z');
const HOUR = 3_600_000;
const hoursAgo = (hours: number) => new Date(NOW.getTime() - hours * HOUR);

describe('GET /api/overview/trend', () => {
  const clock = new FakeClock(NOW);
  const t = useTestServer({}, { clock });
  let admin: Client;
  let viewer: Client;

  async function system(customerId: number, name: string): Promise<number> {
    const [row] = await t.db
      .knex('systems')
      .insert({ customer_id: customerId, name, hostname: `${name}.example`, status: 'ONLINE' })
      .returning<{ id: number }[]>('id');
    return row!.id;
  }
  async function alert(
    systemId: number,
    customerId: number,
    kind: 'offline' | 'metric',
    startedAt: Date,
    resolvedAt: Date | null = null,
  ) {
    await t.db.knex('alerts').insert({
      rule_key: kind === 'offline' ? 'system.offline' : `rule.${Math.random()}`,
      rule_kind: kind,
      system_id: systemId,
      customer_id: customerId,
      severity: kind === 'offline' ? 'CRITICAL' : 'WARNING',
      message: 'test',
      state: resolvedAt ? 'resolved' : 'open',
      started_at: startedAt,
      resolved_at: resolvedAt,
    });
  }

  before(async () => {
    const acme = await createCustomer(t.db.knex, 'Acme');
    const globex = await createCustomer(t.db.knex, 'Globex');
    const web = await system(acme, 'web');
    const db = await system(acme, 'db');
    const nas = await system(globex, 'nas');
    // web: offline from 10 h ago to 5 h ago, a disk alert for the same time; db: offline for the last 2 h
    await alert(web, acme, 'offline', hoursAgo(10), hoursAgo(5));
    await alert(web, acme, 'metric', hoursAgo(10), hoursAgo(5));
    await alert(db, acme, 'offline', hoursAgo(2));
    // resolved before the window: nowhere in it
    await alert(db, acme, 'offline', hoursAgo(40), hoursAgo(30));
    // another customer's: only the admin sees it
    await alert(nas, globex, 'metric', hoursAgo(3));
    admin = await signedInAs(t.server.url, t.db.knex, 'ADMIN');
    viewer = await signedInAs(t.server.url, t.db.knex, 'VIEWER', [acme]);
  });

  async function trend(client: Client): Promise<FleetTrend> {
    const reply = await client.get('/api/overview/trend');
    assert.equal(reply.status, 200, JSON.stringify(reply.body));
    fleetTrend.parse(reply.body);
    return reply.body as FleetTrend;
  }
  /** [hours ago, systems down, alerts open] of the points asked for. */
  const at = (body: FleetTrend, hours: number[]) =>
    hours.map((h) => {
      const point = body.points.find((p) => p.at === hoursAgo(h).toISOString());
      return [h, point?.systemsDown, point?.alertsOpen];
    });

  it('has a point an hour for 24 hours, the last one now, with systems down and alerts open at each', async () => {
    const body = await trend(admin);
    assert.equal(body.points.length, 24);
    assert.equal(body.points[0]!.at, hoursAgo(23).toISOString());
    assert.equal(body.points.at(-1)!.at, NOW.toISOString());
    assert.deepEqual(at(body, [23, 10, 6, 5, 3, 2, 0]), [
      [23, 0, 0],
      [10, 1, 2],
      [6, 1, 2],
      [5, 0, 0],
      [3, 0, 1],
      [2, 1, 2],
      [0, 1, 2],
    ]);
  });

  it('counts only the customers the caller may see', async () => {
    const body = await trend(viewer);
    assert.deepEqual(at(body, [3, 2, 0]), [
      [3, 0, 0],
      [2, 1, 1],
      [0, 1, 1],
    ]);
  });
});
