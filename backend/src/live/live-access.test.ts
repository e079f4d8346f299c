/**
 * `/api/live`: who may open it (credentials, Origin) and when it closes them
 * (4401, 4000, dead peers). Real server, PostgreSQL, Redis and `ws` client;
 * the 25 s heartbeat is driven by hand.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import WebSocket from 'ws';
import { createCustomer } from '../testing/accounts.js';
import { useTestServer } from '../testing/app.js';
import { bearer, Client } from '../testing/http.js';
import { waitFor } from '../testing/net.js';
import { LiveClient, quietFor } from '../testing/live-client.js';
import { cookieHeader, liveFixtures } from '../testing/live-fixtures.js';
import { ManualTicker } from './ticker.js';

const ticker = new ManualTicker();

describe('live channel access', () => {
  // AUTH_URL is where the test server listens (t.server.url)
  const t = useTestServer({}, { live: { ticker } });
  const { signedIn, tokenOf } = liveFixtures(t);

  describe('who may connect', () => {
    it("accepts a session cookie with AUTH_URL's origin exactly", async () => {
      const { client } = await signedIn('VIEWER');
      const live = await LiveClient.open(t.server.url, {
        origin: t.server.url,
        headers: { cookie: cookieHeader(client) },
      });
      assert.deepEqual(live.frames[0], { t: 'ready' });
      live.close();
    });

    it('refuses a cookie without Origin or with a foreign one with 401 before the upgrade', async () => {
      const { client } = await signedIn('VIEWER');
      const cookie = cookieHeader(client);
      assert.equal(await LiveClient.refusal(t.server.url, { headers: { cookie } }), 401);
      assert.equal(
        await LiveClient.refusal(t.server.url, { origin: 'https://evil.example', headers: { cookie } }),
        401,
      );
      const { port } = new URL(t.server.url);
      for (const [origin, extra] of [
        // DNS rebinding: the page's own name as Host (or forwarded host) and Origin
        ['http://attacker.example:' + port, { 'x-forwarded-host': `attacker.example:${port}` }],
        ['https://evil.example', { 'x-forwarded-host': 'console.example.net' }],
        // the right host with another scheme or port
        [`https://127.0.0.1:${port}`, {}],
        [`ws://127.0.0.1:${port}`, {}],
        ['http://127.0.0.1:1', {}],
        ['null', {}],
      ] as const) {
        assert.equal(await LiveClient.refusal(t.server.url, { origin, headers: { cookie, ...extra } }), 401, origin);
      }
    });

    it('accepts a bearer token without Origin, refuses it with a foreign Origin, and checks it before the cookie', async () => {
      const { client } = await signedIn('VIEWER');
      const { token } = await tokenOf(client);
      const live = await LiveClient.open(t.server.url, { headers: bearer(token) });
      live.close();
      assert.equal(
        await LiveClient.refusal(t.server.url, { origin: 'https://evil.example', headers: bearer(token) }),
        401,
      );
      // a bad token is refused even with a good cookie beside it (bearer first)
      assert.equal(
        await LiveClient.refusal(t.server.url, {
          origin: t.server.url,
          headers: { ...bearer(`argus_${'x'.repeat(43)}`), cookie: cookieHeader(client) },
        }),
        401,
      );
    });

    it('refuses anonymous upgrades, unknown paths, and answers a plain GET /api/live with 426 or 401', async () => {
      assert.equal(await LiveClient.refusal(t.server.url, { origin: t.server.url }), 401);
      const { client } = await signedIn('VIEWER');
      assert.equal((await client.get('/api/live')).status, 426);
      assert.equal((await new Client(t.server.url).get('/api/live')).status, 401);
      const other = new WebSocket(`${t.server.url.replace('http', 'ws')}/api/other`);
      const status = await new Promise<number>((resolve) => {
        other.once('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
        other.once('error', () => undefined);
      });
      assert.equal(status, 404);
    });
  });

  describe('closing', () => {
    it('closes a token-authenticated socket with 4401 within a second of the token being revoked', async () => {
      const { client } = await signedIn('OPERATOR');
      const { token, id } = await tokenOf(client);
      const live = await LiveClient.open(t.server.url, { headers: bearer(token) });
      const started = Date.now();
      assert.equal((await client.delete(`/api/tokens/${id}`)).status, 200);
      const closed = await live.closed;
      assert.equal(closed.code, 4401);
      assert.ok(Date.now() - started < 1000, `${Date.now() - started} ms`);
    });

    it('closes a cookie-authenticated socket with 4401 on sign-out', async () => {
      const { client } = await signedIn('VIEWER');
      const live = await LiveClient.open(t.server.url, {
        origin: t.server.url,
        headers: { cookie: cookieHeader(client) },
      });
      assert.equal((await client.post('/api/auth/logout')).status, 204);
      assert.equal((await live.closed).code, 4401);
    });

    it('closes with 4401 when an admin disables the account', async () => {
      const { account, client } = await signedIn('VIEWER');
      const live = await LiveClient.open(t.server.url, { headers: bearer((await tokenOf(client)).token) });
      const admin = await signedIn('ADMIN');
      assert.equal((await admin.client.patch(`/api/users/${account.id}`, { disabled: true })).status, 200);
      assert.equal((await live.closed).code, 4401);
    });

    it('closes with 4000 when a grant is withdrawn through the API', async () => {
      const a = await createCustomer(t.db.knex, 'Live Grant A');
      const b = await createCustomer(t.db.knex, 'Live Grant B');
      const { account, client } = await signedIn('OPERATOR', [a, b]);
      const live = await LiveClient.open(t.server.url, { headers: bearer((await tokenOf(client)).token) });
      const admin = await signedIn('ADMIN');
      assert.equal((await admin.client.patch(`/api/users/${account.id}`, { customerIds: [a] })).status, 200);
      assert.equal((await live.closed).code, 4000);
      // the client reconnects and sees what it may now see
      const again = await LiveClient.open(t.server.url, { headers: bearer((await tokenOf(client)).token) });
      again.close();
    });

    it('closes with 4000 within a ping when a grant is withdrawn or a role changed by SQL', async () => {
      const customer = await createCustomer(t.db.knex, 'Live SQL grant');
      const granted = await signedIn('VIEWER', [customer]);
      const promoted = await signedIn('OPERATOR');
      const viewerLive = await LiveClient.open(t.server.url, {
        headers: bearer((await tokenOf(granted.client)).token),
      });
      const operatorLive = await LiveClient.open(t.server.url, {
        headers: bearer((await tokenOf(promoted.client)).token),
      });
      await t.db.knex('user_customer_grants').where({ user_id: granted.account.id }).delete();
      await t.db.knex('users').where({ id: promoted.account.id }).update({ role: 'VIEWER' });
      await quietFor(100);
      assert.equal(viewerLive.ws.readyState, WebSocket.OPEN, 'nothing told the app yet');
      ticker.tick();
      assert.equal((await viewerLive.closed).code, 4000);
      assert.equal((await operatorLive.closed).code, 4000);
    });

    it('pings, keeps a peer that answers, and drops one that missed two pings', async () => {
      const admin = await signedIn('ADMIN');
      const { token } = await tokenOf(admin.client);
      const alive = await LiveClient.open(t.server.url, { headers: bearer(token) });
      const dead = await LiveClient.open(t.server.url, { headers: bearer(token), autoPong: false });
      for (let i = 0; i < 2; i += 1) {
        ticker.tick();
        await waitFor(() => alive.pings.length === i + 1 && dead.pings.length === i + 1);
        await quietFor(50); // the live peer's pong comes back
      }
      // two pings unanswered: the third beat drops the dead peer and pings the live one again
      ticker.tick();
      const closed = await dead.closed;
      assert.equal(closed.code, 1006, 'terminated without a close handshake');
      assert.equal(dead.pings.length, 2);
      await waitFor(() => alive.pings.length === 3);
      assert.equal(alive.ws.readyState, WebSocket.OPEN);
      alive.close();
    });
  });
});
