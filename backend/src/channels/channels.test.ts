/**
 * /api/notification-channels and /api/notification-policies through the real app:
 * targets sealed and write-only, validation naming the field, rights per customer, "Send test"
 * against a real receiver, an acknowledgement with an expiry notifying its channels, and the
 * delivery log of an alert.
 */
import assert from 'node:assert/strict';
import net, { type AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { Knex } from 'knex';
import { createAccount, createCustomer } from '../testing/accounts.js';
import { useTestServer } from '../testing/app.js';
import { Client, signedInAs } from '../testing/http.js';
import { freePort } from '../testing/net.js';
import { smtpSettingsOf, startSmtpSink, type SmtpSink } from '../testing/smtp-sink.js';
import { startWebhookReceiver, type WebhookReceiver } from '../testing/webhook-receiver.js';

describe('notification channels and policies', () => {
  const fixture = useTestServer({ ARGUS_ALLOW_PRIVATE_WEBHOOKS: 'true' });
  let db: Knex;
  let mine: number;
  let theirs: number;
  let admin: Client;
  let operator: Client;
  let stranger: Client;
  let viewer: Client;
  let hook: WebhookReceiver;

  before(async () => {
    db = fixture.db.knex;
    mine = await createCustomer(db, 'Mine');
    theirs = await createCustomer(db, 'Theirs');
    admin = await signedInAs(fixture.server.url, db, 'ADMIN');
    operator = await signedInAs(fixture.server.url, db, 'OPERATOR', [mine]);
    stranger = await signedInAs(fixture.server.url, db, 'OPERATOR', [theirs]);
    viewer = await signedInAs(fixture.server.url, db, 'VIEWER', [mine]);
    hook = await startWebhookReceiver('sign-me');
  });
  after(async () => {
    await hook.close();
  });

  it('starts with the accounts channel routed globally, as before channels existed', async () => {
    const channels = await admin.get('/api/notification-channels');
    assert.equal(channels.status, 200);
    const accounts = channels.body.find((c: { target: string }) => c.target === 'accounts');
    assert.equal(accounts.type, 'email');
    assert.equal(accounts.customerId, null);
    const global = await admin.get('/api/notification-policies/global');
    assert.deepEqual(global.body.routes, [{ minSeverity: 'INFO', channelIds: [accounts.id] }]);
  });

  it('creates a webhook channel with its target sealed and never answered', async () => {
    const target = `${hook.url}/T0KEN-IN-PATH`;
    const created = await operator.post('/api/notification-channels', {
      name: 'Ops hook',
      type: 'webhook',
      target,
      secret: 'sign-me',
      minSeverity: 'WARNING',
      customerId: mine,
    });
    assert.equal(created.status, 201);
    assert.equal(created.body.target, null);
    assert.equal(created.body.targetHint, `${new URL(hook.url).protocol}//${new URL(hook.url).host}/…`);
    assert.equal(created.body.hasSecret, true);
    assert.ok(!JSON.stringify(created.body).includes('T0KEN'));
    const row = await db('notification_channels').where({ id: created.body.id }).first();
    assert.ok(!row.target.includes('T0KEN'), 'sealed at rest');
    assert.ok(!String(row.secret).includes('sign-me'));
    const listed = await operator.get('/api/notification-channels');
    assert.ok(!JSON.stringify(listed.body).includes('T0KEN'));

    const tested = await operator.post(`/api/notification-channels/${created.body.id}/test`);
    assert.deepEqual(tested.body, { ok: true, outcome: 'delivered', status: 200 });
    const got = hook.received.at(-1);
    assert.equal(got?.path, '/T0KEN-IN-PATH');
    assert.equal(got?.json['event'], 'test');
    assert.equal(got?.signatureValid, true);

    hook.answer(500);
    const failing = await operator.post(`/api/notification-channels/${created.body.id}/test`);
    // the status, never the body the target answered ("receiver says no")
    assert.deepEqual(failing.body, { ok: false, outcome: 'failed: rejected', status: 500 });
  });

  it('answers one outcome for a target that cannot be reached, whatever the cause (no port map)', async () => {
    const reset = net.createServer((socket) => socket.resetAndDestroy());
    await new Promise<void>((resolve) => reset.listen(0, '127.0.0.1', resolve));
    try {
      const answers = [];
      for (const target of [
        `http://127.0.0.1:${await freePort()}/closed`,
        `http://127.0.0.1:${(reset.address() as AddressInfo).port}/reset`,
        'http://no-such-host.invalid/hook',
      ]) {
        const created = await admin.post('/api/notification-channels', { name: target, type: 'webhook', target });
        answers.push((await admin.post(`/api/notification-channels/${created.body.id}/test`)).body);
      }
      for (const answer of answers)
        assert.deepEqual(answer, { ok: false, outcome: 'failed: unreachable', status: null });
    } finally {
      await new Promise((resolve) => reset.close(resolve));
    }
  });

  it('names the field that is wrong, and stores nothing', async () => {
    const count = async () => Number((await db('notification_channels').count('* as n'))[0]?.n);
    const before = await count();
    for (const [body, field] of [
      [{ name: 'x', type: 'pager', target: 'https://example.com' }, /^type: /],
      [{ name: 'x', type: 'slack', target: 'ftp://example.com/x' }, /^target: must be a URL: only http/],
      [{ name: 'x', type: 'slack', target: 'https://u:p@example.com/x' }, /^target: .*no user or password/],
      [{ name: 'x', type: 'email', target: 'ops@example.com, nope' }, /^target: nope is not an e-mail address/],
      [{ name: '', type: 'email', target: 'accounts' }, /^name: is required/],
      [{ name: 'x', type: 'email', target: 'accounts', minSeverity: 'LOUD' }, /^minSeverity: /],
      [{ name: 'x', type: 'email', target: 'accounts', customerId: 999999 }, /^customerId: no such customer/],
    ] as const) {
      const reply = await admin.post('/api/notification-channels', body);
      assert.equal(reply.status, 400, JSON.stringify(body));
      assert.match(reply.body.error, field);
    }
    assert.equal(await count(), before);
  });

  it('keeps customers apart: operators manage their own, read the global ones, never another customer’s', async () => {
    const theirsChannel = await admin.post('/api/notification-channels', {
      name: 'Theirs',
      type: 'email',
      target: 'theirs@example.com',
      customerId: theirs,
    });
    assert.equal(theirsChannel.status, 201);
    assert.equal((await operator.get(`/api/notification-channels/${theirsChannel.body.id}`)).status, 404);
    assert.equal(
      (await operator.patch(`/api/notification-channels/${theirsChannel.body.id}`, { name: 'x' })).status,
      404,
    );
    assert.equal((await operator.delete(`/api/notification-channels/${theirsChannel.body.id}`)).status, 404);
    const names = (await operator.get('/api/notification-channels')).body.map((c: { name: string }) => c.name);
    assert.ok(names.includes('Accounts who may see it') && !names.includes('Theirs'));

    const global = await operator.post('/api/notification-channels', { name: 'g', type: 'email', target: 'accounts' });
    assert.equal(global.status, 403, 'a global channel is for an admin');
    const accounts = (await operator.get('/api/notification-channels')).body.find(
      (c: { customerId: number | null }) => c.customerId === null,
    );
    assert.equal((await operator.patch(`/api/notification-channels/${accounts.id}`, { enabled: false })).status, 403);

    assert.equal((await viewer.get('/api/notification-channels')).status, 403);
    assert.equal((await viewer.get(`/api/notification-policies/customer/${mine}`)).status, 403);
    assert.equal((await stranger.get(`/api/notification-policies/customer/${mine}`)).status, 404);
    assert.equal((await stranger.put(`/api/notification-policies/customer/${mine}`, { routes: [] })).status, 404);
    assert.equal((await operator.put('/api/notification-policies/global', { routes: [] })).status, 403);
  });

  it('saves a customer policy naming only usable channels, and falls back to the global one when removed', async () => {
    const own = await operator.post('/api/notification-channels', {
      name: 'Chat',
      type: 'slack',
      target: `${hook.url}/slack`,
      customerId: mine,
    });
    const theirsChannel = (await admin.get(`/api/notification-channels?customer=${theirs}`)).body.find(
      (c: { customerId: number | null }) => c.customerId === theirs,
    );
    const refused = await operator.put(`/api/notification-policies/customer/${mine}`, {
      routes: [{ minSeverity: 'INFO', channelIds: [own.body.id, theirsChannel.id] }],
    });
    assert.equal(refused.status, 400);
    assert.equal(refused.body.error, `routes.0.channelIds: no such channel ${theirsChannel.id}`);
    const noTarget = await operator.put(`/api/notification-policies/customer/${mine}`, {
      routes: [],
      escalateAfterMinutes: 30,
    });
    assert.match(noTarget.body.error, /^escalateChannelIds: /);

    const saved = await operator.put(`/api/notification-policies/customer/${mine}`, {
      routes: [{ minSeverity: 'WARNING', channelIds: [own.body.id] }],
      repeatMinutes: 60,
      escalateAfterMinutes: 30,
      escalateChannelIds: [own.body.id],
    });
    assert.equal(saved.status, 200);
    assert.equal(saved.body.custom, true);
    assert.equal(saved.body.customerName, 'Mine');
    assert.equal(saved.body.repeatMinutes, 60);
    const read = await operator.get(`/api/notification-policies/customer/${mine}`);
    assert.deepEqual(read.body.routes, [{ minSeverity: 'WARNING', channelIds: [own.body.id] }]);

    // deleting the channel takes it out of the policy
    assert.equal((await operator.delete(`/api/notification-channels/${own.body.id}`)).status, 204);
    const after = await operator.get(`/api/notification-policies/customer/${mine}`);
    assert.deepEqual(after.body.routes, [{ minSeverity: 'WARNING', channelIds: [] }]);
    assert.deepEqual(after.body.escalateChannelIds, []);

    assert.equal((await operator.delete(`/api/notification-policies/customer/${mine}`)).status, 204);
    const fallback = await operator.get(`/api/notification-policies/customer/${mine}`);
    assert.equal(fallback.body.custom, false);
    assert.deepEqual(fallback.body.routes, (await admin.get('/api/notification-policies/global')).body.routes);
  });

  it('acknowledges with an expiry, notifies the routed channels, and shows it in the delivery log', async () => {
    const channelReply = await operator.post('/api/notification-channels', {
      name: 'Ack hook',
      type: 'webhook',
      target: `${hook.url}/ack`,
      customerId: mine,
    });
    await operator.put(`/api/notification-policies/customer/${mine}`, {
      routes: [{ minSeverity: 'INFO', channelIds: [channelReply.body.id] }],
    });
    const [system] = await db('systems').insert({ customer_id: mine, name: 'db-01' }).returning<{ id: number }[]>('id');
    const [alert] = await db('alerts')
      .insert({
        rule_key: 'disk.high',
        rule_kind: 'metric',
        system_id: system?.id,
        customer_id: mine,
        severity: 'WARNING',
        started_at: new Date(),
      })
      .returning<{ id: string }[]>('id');
    const id = Number(alert?.id);

    const past = await operator.post(`/api/alerts/${id}/ack`, { until: new Date(Date.now() - 1000).toISOString() });
    assert.equal(past.status, 400);
    assert.match(past.body.error, /^until: must be in the future/);
    const tooFar = await operator.post(`/api/alerts/${id}/ack`, {
      until: new Date(Date.now() + 31 * 86_400_000).toISOString(),
    });
    assert.equal(tooFar.status, 400);
    assert.equal((await db('alerts').where({ id }).first()).acknowledged_at, null, 'refused: nothing stored');

    const until = new Date(Date.now() + 3_600_000).toISOString();
    const acked = await operator.post(`/api/alerts/${id}/ack`, { note: 'on it', until });
    assert.equal(acked.status, 200);
    assert.equal(acked.body.ackUntil, until);
    const deadline = Date.now() + 5000;
    while (!hook.received.some((r) => r.path === '/ack') && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 20));
    const sent = hook.received.find((r) => r.path === '/ack');
    assert.equal(sent?.json['event'], 'acknowledged');

    // the delivery is recorded once the receiver's answer is read, a moment after the receiver saw it
    let log = await viewer.get(`/api/alerts/${id}/notifications`);
    while (log.body[0]?.status === 'pending' && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      log = await viewer.get(`/api/alerts/${id}/notifications`);
    }
    assert.equal(log.status, 200);
    assert.deepEqual(
      log.body.map((e: { channel: { name: string }; event: string; status: string; attempts: number }) => [
        e.channel.name,
        e.event,
        e.status,
        e.attempts,
      ]),
      [['Ack hook', 'acknowledged', 'sent', 1]],
    );
    assert.equal((await stranger.get(`/api/alerts/${id}/notifications`)).status, 404);
  });
});

describe('notification channels: e-mail addresses and SSRF', () => {
  // ARGUS_ALLOW_PRIVATE_WEBHOOKS unset: receivers on loopback are refused
  const fixture = useTestServer();
  let admin: Client;
  let sink: SmtpSink;
  let hook: WebhookReceiver;

  /** New ADMINs' browsers, each with its own limits and address (signed in before mail asks a code). */
  const callers = {} as Record<'mailing' | 'limited', { client: Client; id: number; email: string }>;
  async function newAdmin() {
    const account = await createAccount(fixture.db.knex, { role: 'ADMIN' });
    const client = new Client(fixture.server.url);
    assert.equal((await client.signIn(account.email, account.password)).status, 200);
    return { client, ...account };
  }

  before(async () => {
    admin = await signedInAs(fixture.server.url, fixture.db.knex, 'ADMIN');
    callers.mailing = await newAdmin();
    callers.limited = await newAdmin();
    sink = await startSmtpSink();
    hook = await startWebhookReceiver();
    assert.equal((await admin.put('/api/settings/smtp', smtpSettingsOf(sink))).status, 200);
  });
  after(async () => {
    await sink.close();
    await hook.close();
  });

  it('mails "Send test" of an e-mail channel to the caller only, never to the listed addresses', async () => {
    const { client: caller, ...account } = callers.mailing;
    const created = await caller.post('/api/notification-channels', {
      name: 'On call',
      type: 'email',
      target: 'oncall@example.com; lead@example.com',
    });
    assert.equal(created.body.target, 'oncall@example.com, lead@example.com');
    const tested = await caller.post(`/api/notification-channels/${created.body.id}/test`);
    assert.deepEqual(tested.body, { ok: true, outcome: 'delivered', status: null });
    const mail = await sink.nthMail(1);
    assert.deepEqual([...mail.to], [account.email.toLowerCase()]);
    assert.match(mail.headers, /^Subject: =\?UTF-8\?Q\?=5BArgus=5D_Test_notification_from_Argus/m);
    assert.match(mail.text, /This is a test from Argus: the channel works\./);
  });

  it('refuses a loopback target when it is sent, saying only that the policy refused it, and sends nothing', async () => {
    const created = await admin.post('/api/notification-channels', {
      name: 'Inside',
      type: 'webhook',
      target: `${hook.url}/hook`,
    });
    assert.equal(created.status, 201);
    const tested = await admin.post(`/api/notification-channels/${created.body.id}/test`);
    assert.deepEqual(tested.body, { ok: false, outcome: 'refused by policy', status: null });
    assert.equal(hook.received.length, 0);
  });

  it('limits "Send test" per channel and per account (429 with Retry-After), auditing each test sent', async () => {
    const db = fixture.db.knex;
    const { client: admin, id: adminId } = callers.limited;
    const channel = async (name: string) =>
      (await admin.post('/api/notification-channels', { name, type: 'webhook', target: `${hook.url}/${name}` })).body
        .id as number;
    const audited = async () => Number((await db('audit_log').where({ action: 'channel.test' }).count('* as n'))[0]?.n);
    const first = await channel('first');
    const before = await audited();
    for (let i = 0; i < 5; i += 1)
      assert.equal((await admin.post(`/api/notification-channels/${first}/test`)).status, 200);
    const refused = await admin.post(`/api/notification-channels/${first}/test`);
    assert.equal(refused.status, 429);
    assert.ok(Number(refused.headers.get('retry-after')) > 0);
    assert.equal(refused.body.error, 'Too many tests of this channel (at most 5 in 5 minutes): try again later');
    assert.equal(await audited(), before + 5, 'a refused test stores nothing');

    const row = await db('audit_log')
      .where({ action: 'channel.test', target_id: String(first) })
      .orderBy('id')
      .first();
    assert.equal(row.actor_type, 'user');
    assert.equal(Number(row.actor_id), adminId);
    assert.deepEqual(row.after, { outcome: 'refused by policy', status: null });

    // the account's own limit, over several channels
    let sent = 6; // counted so far for this account: five tests and the refused one
    let last = { status: 200, body: {} as { error?: string } };
    while (last.status === 200 && sent < 30) {
      const id = await channel(`more-${sent}`);
      for (let i = 0; i < 5 && last.status === 200; i += 1, sent += 1)
        last = await admin.post(`/api/notification-channels/${id}/test`);
    }
    assert.equal(last.status, 429);
    assert.equal(sent, 21, 'the 21st test of the hour is refused');
    assert.equal(last.body.error, 'Too many channel tests from this account (at most 20 in an hour): try again later');
  });
});
