/**
 * What the console's Checks pages read besides the checks themselves, on the real server: the
 * counts per customer and state (the Overview's line), the quick search finding a check as a check
 * (never among the agents' systems), and a check's changes told on the bus as its system's, so the
 * live channel names it to the consoles that see its customer: an edit at once, a state change once
 * the runner stored the run that made it; and every stored run sent to an open check page on its
 * system's topic (`system:<id>`), as a system's report is, so its charts and last result move live.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { liveReport } from '../../../contracts/live.js';
import { createCustomer } from '../testing/accounts.js';
import { useTestServer } from '../testing/app.js';
import { signedInAs, type Client } from '../testing/http.js';
import { LiveClient } from '../testing/live-client.js';
import { cookieHeader } from '../testing/live-fixtures.js';

const waitFor = async (what: string, done: () => boolean, ms: number) => {
  const until = Date.now() + ms;
  while (!done()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
};

describe('checks for the console: summary, quick search, live changes', () => {
  const fixture = useTestServer({ ARGUS_ALLOW_PRIVATE_CHECKS: 'true' });
  let site: http.Server;
  let url: string;
  let mine: number;
  let theirs: number;
  let admin: Client;
  let viewer: Client;
  const announced: number[] = [];

  before(async () => {
    site = http.createServer((_req, res) => res.end('shop'));
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(site.address() as AddressInfo).port}/`;
    const db = fixture.db.knex;
    mine = await createCustomer(db, 'Mine');
    theirs = await createCustomer(db, 'Theirs');
    admin = await signedInAs(fixture.server.url, db, 'ADMIN');
    viewer = await signedInAs(fixture.server.url, db, 'VIEWER', [mine]);
    await fixture.server.bus.subscribe('systems', (event) => {
      const id = (event as { id?: unknown }).id;
      if (typeof id === 'number') announced.push(id);
    });
  });
  after(async () => {
    site.closeAllConnections();
    await new Promise((resolve) => site.close(resolve));
  });

  const create = async (customerId: number, name: string, enabled = true) => {
    const reply = await admin.post('/api/checks', {
      customerId,
      name,
      settings: { type: 'http', url },
      intervalSeconds: 20,
      timeoutSeconds: 5,
      enabled,
    });
    assert.equal(reply.status, 201, JSON.stringify(reply.body));
    return reply.body as { id: number };
  };

  it('counts the checks of each visible customer by state', async () => {
    await create(mine, 'Shop front');
    await create(mine, 'Shop paused', false);
    await create(theirs, 'Their shop');
    const all = (await admin.get('/api/checks/summary')).body as { customerId: number; total: number }[];
    assert.deepEqual(all.map((s) => [s.customerId, s.total]).sort(), [
      [mine, 2],
      [theirs, 1],
    ]);
    const seen = await viewer.get('/api/checks/summary');
    assert.equal(seen.status, 200);
    const [ours] = seen.body;
    assert.deepEqual([seen.body.length, ours.customerId, ours.total], [1, mine, 2]);
    // the running one is PENDING until its first run, then UP: either is right here
    const { PENDING, UP, DOWN, DEGRADED, PAUSED } = ours.byState;
    assert.deepEqual([PENDING + UP, DOWN, DEGRADED, PAUSED], [1, 0, 0, 1]);
  });

  it('finds a check in the quick search as a check, not as a system', async () => {
    const found = (await viewer.get('/api/search?q=shop')).body;
    assert.deepEqual(found.systems, []);
    assert.deepEqual(
      found.checks.map((c: { name: string; type: string; customerName: string }) => [c.name, c.type, c.customerName]),
      [
        ['Shop front', 'http', 'Mine'],
        ['Shop paused', 'http', 'Mine'],
      ],
    );
    assert.equal(found.checks[1].state, 'PAUSED');
  });

  it("says a check's own system row is a check, so the links to it lead to the check's page", async () => {
    const check = (await viewer.get('/api/search?q=shop')).body.checks[0];
    const row = await viewer.get(`/api/systems/${check.id}`);
    assert.equal(row.status, 200);
    assert.equal(row.body.kind, 'check');
  });

  it('tells the bus of an edit at once, and of a state change once its run is stored', async () => {
    const { id } = await create(mine, 'Live shop');
    const times = () => announced.filter((announcedId) => announcedId === id).length;
    await waitFor('the creation announced', () => times() >= 1, 2000);
    // the first run (within one interval of 20 s, at the check's own phase) turns it from PENDING to UP
    await waitFor('the state change announced', () => times() >= 2, 25_000);
    assert.equal((await viewer.get(`/api/checks/${id}`)).body.state, 'UP');
  });

  it("sends each stored run to a viewer following the check's system topic, with the place's series", async () => {
    const { id } = await create(mine, 'Charted shop');
    const live = await LiveClient.open(fixture.server.url, {
      origin: fixture.server.url,
      headers: { cookie: cookieHeader(viewer) },
    });
    try {
      live.send({ t: 'sub', sid: 'check', topic: `system:${id}`, after: null });
      await waitFor('the subscription', () => fixture.server.live.stats().subscriptions >= 1, 2000);
      // the first run comes within one interval (20 s) at the check's own phase
      const msg = await live.next((f) => f['t'] === 'msg' && f['sid'] === 'check', 25_000);
      assert.ok(liveReport.safeParse(msg['data']).success, 'system:<id> matches contracts/live.ts');
      const series = new Map(
        (msg['data'] as { metrics: { name: string; instance: string; value: number }[] }).metrics.map((m) => [
          `${m.name}{${m.instance}}`,
          m.value,
        ]),
      );
      assert.equal(series.get('check.up{argus}'), 1);
      assert.equal(series.get('check.down{}'), 0);
      assert.ok((series.get('check.response_ms{argus}') ?? -1) >= 0, 'the response time of the server location');
      const stored = await viewer.get(`/api/checks/${id}`);
      assert.equal(stored.body.lastResult.at, msg['data'].ts, 'the run the check answers as its last');
    } finally {
      live.close();
    }
  });
});
