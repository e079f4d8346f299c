/**
 * `/api/live`: what an account receives (visibility, snapshots, reports from
 * the ingest endpoint), replay with `after`, and bad frames. Real server,
 * PostgreSQL, Redis and `ws` client.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createCustomer } from '../testing/accounts.js';
import { useTestServer } from '../testing/app.js';
import { bearer } from '../testing/http.js';
import { waitFor } from '../testing/net.js';
import { LiveClient, quietFor } from '../testing/live-client.js';
import { alertEvent, barrier, cookieHeader, liveFixtures } from '../testing/live-fixtures.js';
import { signAgentToken } from '../testing/agent-token.js';
import { alertCounts, liveReport } from '../../../contracts/live.js';

const SECRET = 'live-test-webhook-secret-0123456789abcdef';

describe('live channel', () => {
  const t = useTestServer({ WEBHOOK_SECRET: SECRET });
  const { signedIn, tokenOf, system } = liveFixtures(t);

  describe('what an account sees', () => {
    it('never gives a viewer of customer A anything of customer B, as msg or snap', async () => {
      const a = await createCustomer(t.db.knex, 'Live A');
      const b = await createCustomer(t.db.knex, 'Live B');
      const systemA = await system(a, 'a-host');
      const systemB = await system(b, 'b-host');
      await t.db.knex('alerts').insert([
        {
          rule_key: 'cpu.high',
          rule_kind: 'metric',
          system_id: systemA,
          customer_id: a,
          severity: 'WARNING',
          started_at: new Date(),
        },
        {
          rule_key: 'cpu.high',
          rule_kind: 'metric',
          system_id: systemB,
          customer_id: b,
          severity: 'CRITICAL',
          started_at: new Date(),
        },
        {
          rule_key: 'mem.high',
          rule_kind: 'metric',
          system_id: systemB,
          customer_id: b,
          severity: 'INFO',
          started_at: new Date(),
        },
      ]);
      const viewer = await signedIn('VIEWER', [a]);
      const admin = await signedIn('ADMIN');
      const liveViewer = await LiveClient.open(t.server.url, { headers: bearer((await tokenOf(viewer.client)).token) });
      const liveAdmin = await LiveClient.open(t.server.url, { headers: bearer((await tokenOf(admin.client)).token) });

      const list = await liveViewer.subscribe('s', 'systems.list');
      assert.deepEqual(
        list?.['data'].map((s: { name: string }) => s.name),
        ['a-host'],
      );
      const counts = await liveViewer.subscribe('c', 'alerts.counts');
      assert.deepEqual(counts?.['data'], { open: 1, critical: 0, warning: 1, info: 0, unacknowledged: 1 });
      assert.ok(alertCounts.safeParse(counts?.['data']).success, 'alerts.counts matches contracts/live.ts');
      const adminCounts = await liveAdmin.subscribe('c', 'alerts.counts');
      assert.ok(adminCounts?.['data'].open >= 3);

      liveViewer.send({ t: 'sub', sid: 'sysB', topic: `system:${systemB}`, after: null });
      const refused = await liveViewer.next((f) => f['t'] === 'error' && f['sid'] === 'sysB');
      assert.match(refused['error'], /topic/);
      liveViewer.send({ t: 'sub', sid: 'missing', topic: 'system:999999', after: null });
      const missing = await liveViewer.next((f) => f['t'] === 'error' && f['sid'] === 'missing');
      assert.equal(missing['error'], refused['error'], 'an invisible system and a missing one answer alike');

      await liveViewer.subscribe('al', 'alert');
      await liveAdmin.subscribe('al', 'alert');
      await barrier(liveViewer);
      await barrier(liveAdmin);
      await t.server.bus.publish('alert', alertEvent(b, systemB));
      await t.server.bus.publish('alert', alertEvent(a, systemA));
      const adminGot = await liveAdmin.next((f) => f['t'] === 'msg' && f['data'].alert.customerId === a);
      assert.ok(adminGot);
      const viewerGot = await liveViewer.next((f) => f['t'] === 'msg' && f['sid'] === 'al');
      assert.equal(viewerGot['data'].alert.customerId, a);
      assert.equal(liveAdmin.messages('al').length, 2);

      // B's alert changed B's counts: the viewer's snapshot is not re-pushed with B's numbers, ever
      await t.db.knex('alerts').insert({
        rule_key: 'disk.readonly',
        rule_kind: 'metric',
        system_id: systemB,
        customer_id: b,
        severity: 'CRITICAL',
        started_at: new Date(),
      });
      await t.server.bus.publish('alert', alertEvent(b, systemB));
      await liveAdmin.next((f) => f['t'] === 'snap' && f['sid'] === 'c' && f['data'].open >= 4);
      await quietFor(400);
      for (const frame of liveViewer.frames) {
        const text = JSON.stringify(frame);
        assert.ok(!text.includes('b-host') && !text.includes(`"customerId":${b}`), text);
        if (frame['t'] === 'snap' && frame['sid'] === 'c') assert.equal(frame['data'].open, 1);
      }
      liveViewer.close();
      liveAdmin.close();
    });

    it('re-pushes a snapshot with a higher rev when it changes, coalescing a burst', async () => {
      const c = await createCustomer(t.db.knex, 'Live Burst');
      const viewer = await signedIn('VIEWER', [c]);
      const live = await LiveClient.open(t.server.url, { headers: bearer((await tokenOf(viewer.client)).token) });
      const first = await live.subscribe('s', 'systems.list');
      assert.deepEqual(first?.['data'], []);
      await system(c, 'new-host');
      for (let i = 0; i < 20; i += 1) await t.server.bus.publish('systems', { id: i });
      const next = await live.next((f) => f['t'] === 'snap' && f['data'].length === 1);
      assert.ok(next['rev'] > first?.['rev'], 'rev grows');
      await quietFor(600);
      const snaps = live.frames.filter((f) => f['t'] === 'snap');
      assert.ok(snaps.length <= 3, `a burst of 20 events gave ${snaps.length} snapshots`);
      // nothing changed: a further event pushes nothing
      const before = live.frames.length;
      await t.server.bus.publish('systems', { id: 1 });
      await quietFor(400);
      assert.equal(live.frames.length, before);
      live.close();
    });

    it('delivers a report posted through the ingest endpoint to a system:<id> subscriber', async () => {
      const customer = await createCustomer(t.db.knex, 'Live Ingest');
      const enrollment = `enroll-${Math.random().toString(36).slice(2)}-0123456789abcdef`;
      await t.db.knex('clusters').insert({ customer_id: customer, name: 'prod', enrollment_key: enrollment });
      const jwt = await signAgentToken('live-machine-1', { secret: SECRET });
      const post = (token: string, ts: Date, value: number) =>
        fetch(`${t.server.url}/api/webhook/metrics`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({
            agent: { version: '2.28.1', hostname: 'live-01', enrollment },
            reports: [{ ts: ts.toISOString(), metrics: [{ name: 'disk.readonly', instance: '/', value }] }],
          }),
        });
      const enrolled = await post(jwt, new Date(Date.now() - 1000), 0);
      assert.equal(enrolled.status, 200);
      const { agentKey } = (await enrolled.json()) as { agentKey: string };
      const bound = await signAgentToken('live-machine-1', { secret: SECRET, ak: agentKey });
      const row = await t.db.knex('systems').where({ agent_id: 'live-machine-1' }).first('id');
      const operator = await signedIn('OPERATOR', [customer]);
      const live = await LiveClient.open(t.server.url, {
        origin: t.server.url,
        headers: { cookie: cookieHeader(operator.client) },
      });
      live.send({ t: 'sub', sid: 'sys', topic: `system:${row.id}`, after: null });
      await waitFor(() => t.server.live.stats().subscriptions >= 1);
      const ts = new Date();
      const answer = await post(bound, ts, 1);
      assert.equal(answer.status, 200);
      const msg = await live.next((f) => f['t'] === 'msg' && f['sid'] === 'sys');
      assert.ok(liveReport.safeParse(msg['data']).success, 'system:<id> matches contracts/live.ts');
      assert.deepEqual(msg['data'], {
        ts: ts.toISOString(),
        metrics: [{ name: 'disk.readonly', instance: '/', value: 1 }],
      });
      assert.match(msg['id'], /^[A-Za-z0-9]+-\d+$/);
      live.close();
    });
  });

  describe('replay', () => {
    it('replays what a subscriber missed since `after` within one server run', async () => {
      const c = await createCustomer(t.db.knex, 'Live Replay');
      const s = await system(c);
      const admin = await signedIn('ADMIN');
      const { token } = await tokenOf(admin.client);
      const first = await LiveClient.open(t.server.url, { headers: bearer(token) });
      await first.subscribe('al', 'alert');
      await barrier(first);
      await t.server.bus.publish('alert', alertEvent(c, s));
      const seen = await first.next((f) => f['t'] === 'msg');
      first.close();
      await first.closed;
      const missed = [alertEvent(c, s, 'acknowledged'), alertEvent(c, s, 'resolved')];
      for (const event of missed) await t.server.bus.publish('alert', event);
      await quietFor(200);

      const again = await LiveClient.open(t.server.url, { headers: bearer(token) });
      await again.subscribe('al2', 'alert', seen['id']);
      const replayed = [
        await again.next((f) => f['t'] === 'msg' && f['data'].type === 'acknowledged'),
        await again.next((f) => f['t'] === 'msg' && f['data'].type === 'resolved'),
      ];
      assert.deepEqual(
        replayed.map((f) => f['data']),
        missed,
      );
      assert.ok(replayed.every((f) => f['sid'] === 'al2'));
      assert.ok(!again.messages('al2').some((f) => f['id'] === seen['id']), 'nothing already seen');
      // an id of another run replays nothing
      await again.subscribe('al3', 'alert', 'otherrun-1');
      await barrier(again);
      assert.equal(again.messages('al3').length, 0);
      again.close();
    });

    it("replays to an account only what it may see, and stops a system's messages once it moves to a customer it may not see", async () => {
      const a = await createCustomer(t.db.knex, 'Replay A');
      const b = await createCustomer(t.db.knex, 'Replay B');
      const systemA = await system(a);
      const systemB = await system(b);
      const viewer = await signedIn('VIEWER', [a]);
      const admin = await signedIn('ADMIN');
      const liveViewer = await LiveClient.open(t.server.url, { headers: bearer((await tokenOf(viewer.client)).token) });
      const liveAdmin = await LiveClient.open(t.server.url, { headers: bearer((await tokenOf(admin.client)).token) });
      await liveViewer.subscribe('al', 'alert');
      await barrier(liveViewer);
      await t.server.bus.publish('alert', alertEvent(a, systemA));
      const seen = await liveViewer.next((f) => f['t'] === 'msg' && f['sid'] === 'al');
      const missed = [alertEvent(b, systemB), alertEvent(a, systemA, 'resolved'), alertEvent(b, systemB, 'resolved')];
      for (const event of missed) await t.server.bus.publish('alert', event);
      await liveViewer.next((f) => f['t'] === 'msg' && f['data'].type === 'resolved');
      await liveViewer.subscribe('al2', 'alert', seen['id']);
      await liveViewer.next((f) => f['t'] === 'msg' && f['sid'] === 'al2');
      await barrier(liveViewer);
      for (const sid of ['al', 'al2'])
        assert.deepEqual(
          liveViewer.messages(sid).map((f) => f['data'].alert.customerId),
          sid === 'al' ? [a, a] : [a],
        );

      // system:<id>: delivered while the system is A's, not once an admin moved it to B
      liveViewer.send({ t: 'sub', sid: 'sys', topic: `system:${systemA}`, after: null });
      liveAdmin.send({ t: 'sub', sid: 'sys', topic: `system:${systemA}`, after: null });
      await barrier(liveViewer);
      await barrier(liveAdmin);
      await quietFor(300); // the hub's Redis SUBSCRIBE of the new topic
      const report = (value: number) => ({
        ts: new Date().toISOString(),
        metrics: [{ name: 'x', instance: '', value }],
      });
      await t.server.bus.publish(`system:${systemA}`, report(1));
      await liveViewer.next((f) => f['t'] === 'msg' && f['sid'] === 'sys');
      assert.equal((await admin.client.patch(`/api/systems/${systemA}`, { customerId: b })).status, 200);
      await quietFor(300);
      await t.server.bus.publish(`system:${systemA}`, report(2));
      await liveAdmin.next((f) => f['t'] === 'msg' && f['sid'] === 'sys' && f['data'].metrics[0].value === 2);
      await quietFor(200);
      assert.deepEqual(
        liveViewer.messages('sys').map((f) => f['data'].metrics[0].value),
        [1],
      );
      liveViewer.close();
      liveAdmin.close();
    });
  });

  describe('bad frames', () => {
    it('answers junk with an error frame and keeps the socket usable', async () => {
      const admin = await signedIn('ADMIN');
      const live = await LiveClient.open(t.server.url, { headers: bearer((await tokenOf(admin.client)).token) });
      live.send('not json');
      live.send('[1,2]');
      live.send({ t: 'dance', sid: 'x' });
      live.send({ t: 'sub', sid: 'q', topic: 'secrets', after: null });
      live.send({ t: 'sub', sid: 'q', topic: 'alert', after: 42 });
      live.send({ t: 'sub', topic: 'alert', after: null });
      live.send({ t: 'unsub', sid: 'never' });
      live.ws.send(Buffer.from([1, 2, 3]), { binary: true });
      live.send({ t: 'sub', sid: 'z', topic: 'alert', after: 'zzz' });
      live.send({ t: 'sub', sid: 'z', topic: 'alert', after: 'run-x' });
      await waitFor(() => live.frames.filter((f) => f['t'] === 'error').length === 10);
      const errors = live.frames.filter((f) => f['t'] === 'error');
      assert.equal(errors[2]?.['sid'], 'x');
      assert.match(errors[3]?.['error'], /^topic/);
      assert.match(errors[4]?.['error'], /^after/);
      assert.match(errors[5]?.['error'], /^sid/);
      assert.deepEqual(errors.slice(8), [
        { t: 'error', sid: 'z', error: 'after: a message id or null' },
        { t: 'error', sid: 'z', error: 'after: a message id or null' },
      ]);
      const snap = await live.subscribe('ok', 'alerts.counts');
      assert.equal(snap?.['t'], 'snap');
      live.send({ t: 'unsub', sid: 'ok' });
      await barrier(live);
      live.close();
    });

    it('closes a connection that sends a frame over 64 KiB or floods', async () => {
      const admin = await signedIn('ADMIN');
      const { token } = await tokenOf(admin.client);
      const big = await LiveClient.open(t.server.url, { headers: bearer(token) });
      big.send({ t: 'sub', sid: 'x'.repeat(70 * 1024), topic: 'alert', after: null });
      assert.equal((await big.closed).code, 1009);
      const flood = await LiveClient.open(t.server.url, { headers: bearer(token) });
      for (let i = 0; i < 200; i += 1) flood.send({ t: 'unsub', sid: 'a' });
      assert.equal((await flood.closed).code, 1008);
    });
  });
});
