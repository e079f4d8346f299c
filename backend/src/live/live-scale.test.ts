/**
 * The live hub at 1,000 dashboards: a ping round re-reads the rights of EVERY open
 * connection with one query (it was ~3 per connection), and recomputes no snapshot when nothing
 * changed; a change that reached no bus event (a lost one) still reaches the dashboards at the next ping.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createCustomer } from '../testing/accounts.js';
import { useTestServer } from '../testing/app.js';
import { bearer } from '../testing/http.js';
import { LiveClient, quietFor, type Frame } from '../testing/live-client.js';
import { cookieHeader, liveFixtures } from '../testing/live-fixtures.js';
import { ManualTicker } from './ticker.js';

const ticker = new ManualTicker();
const DASHBOARDS = 24;

describe('live hub: a ping round for many dashboards', () => {
  const t = useTestServer({}, { live: { ticker } });
  const { signedIn, tokenOf, system } = liveFixtures(t);

  /** The SQL the app's pool runs while `during` lasts. */
  async function queriesDuring(during: () => Promise<void>): Promise<string[]> {
    const seen: string[] = [];
    const listener = (query: { sql: string }) => seen.push(query.sql);
    t.server.db.on('query', listener);
    try {
      await during();
    } finally {
      t.server.db.off('query', listener);
    }
    return seen;
  }

  /** One ping round, and the time for its queries and snapshots to settle. */
  async function pingRound(): Promise<void> {
    ticker.tick();
    await quietFor(600);
  }

  const isSystemsList = (sql: string) => sql.includes('from "systems" as "s"');
  const isAlertCounts = (sql: string) => sql.includes('from "alerts"') && sql.includes('unacknowledged');
  const snaps = (client: LiveClient, sid: string, from: number) =>
    client.frames.slice(from).filter((frame: Frame) => frame['t'] === 'snap' && frame['sid'] === sid);

  it('re-reads the rights of all connections with one query, and recomputes nothing unchanged', async () => {
    const customers = [await createCustomer(t.db.knex), await createCustomer(t.db.knex)];
    const hostId = await system(customers[0] as number, 'db-01');
    const dashboards: LiveClient[] = [];
    for (let i = 0; i < DASHBOARDS; i += 1) {
      // sessions and tokens of ADMINs, OPERATORs and VIEWERs with different grants: several audiences
      const role = (['ADMIN', 'OPERATOR', 'VIEWER'] as const)[i % 3] as 'ADMIN' | 'OPERATOR' | 'VIEWER';
      const grants = role === 'ADMIN' ? [] : customers.slice(0, 1 + (i % 2));
      const { client } = await signedIn(role, grants);
      const headers = i % 2 === 0 ? { cookie: cookieHeader(client) } : bearer((await tokenOf(client)).token);
      const live = await LiveClient.open(t.server.url, { headers, origin: t.server.url });
      await live.subscribe('sys', 'systems.list');
      await live.subscribe('counts', 'alerts.counts');
      dashboards.push(live);
    }

    await pingRound(); // the first round has nothing to compare with: it recomputes

    const from = dashboards.map((live) => live.frames.length);
    const unchanged = await queriesDuring(pingRound);
    assert.deepEqual(
      unchanged.map((sql) =>
        sql.includes('FROM sessions s') ? 'rights' : sql.includes('hashtext') ? 'fingerprint' : sql,
      ),
      ['rights', 'fingerprint'],
      `${DASHBOARDS} connections, one ping round: one rights query and one fingerprint, no snapshot`,
    );
    assert.ok(
      dashboards.every((live, index) => snaps(live, 'sys', from[index] as number).length === 0),
      'no snapshot pushed',
    );
    assert.ok(
      dashboards.every((live) => live.ws.readyState === live.ws.OPEN),
      'nobody was closed',
    );

    // a status change no bus event told the hub about: the next ping finds and pushes it
    await t.db.knex('systems').where({ id: hostId }).update({ status: 'CRITICAL' });
    const before = dashboards.map((live) => live.frames.length);
    const changed = await queriesDuring(pingRound);
    assert.ok(changed.some(isSystemsList), 'the systems list is recomputed');
    assert.equal(changed.filter(isAlertCounts).length, 0, 'the alert counts did not change: not recomputed');
    const admin = dashboards[0] as LiveClient;
    const pushed = snaps(admin, 'sys', before[0] as number);
    assert.equal(pushed.length, 1);
    const host = (pushed[0]?.['data'] as { id: number; status: string }[]).find((row) => row.id === hostId);
    assert.equal(host?.status, 'CRITICAL');

    for (const live of dashboards) live.close();
  });
});
