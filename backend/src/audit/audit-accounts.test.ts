/**
 * The audit log of accounts through the real app: users and grants, own profile and
 * password, API tokens (and a token as actor), sign-in success and failure, the second factor.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Knex } from 'knex';
import { useTestServer } from '../testing/app.js';
import { ADDRESS, useAuditTrail, type StoredRow } from '../testing/audit-trail.js';
import { createAccount } from '../testing/accounts.js';
import { Client } from '../testing/http.js';
import { generate } from 'otplib';

describe('audit trail of accounts, tokens and sign-in', () => {
  const fixture = useTestServer({ ARGUS_ALLOW_PRIVATE_WEBHOOKS: 'true' });
  const { state, browserAs, rows, onlyRow, byAdmin } = useAuditTrail(fixture);
  const db = (): Knex => fixture.db.knex;

  it('records user create, update (grants, role, password) and delete, never a password or hash', async () => {
    const secretPassword = 'Tr0ub4dor&3-audit-only';
    const created = await state.admin.post('/api/users', {
      email: 'new.person@example.com',
      name: 'New Person',
      role: 'VIEWER',
      password: secretPassword,
      customerIds: [state.mine],
    });
    assert.equal(created.status, 201);
    const id = created.body.user.id as number;
    const create = await onlyRow('user.create');
    byAdmin(create);
    assert.equal(create.target_id, String(id));
    assert.deepEqual(create.after?.['customerIds'], [state.mine]);
    assert.equal(create.after?.['role'], 'VIEWER');

    const changed = await state.admin.patch(`/api/users/${id}`, {
      role: 'OPERATOR',
      customerIds: [],
      password: `${secretPassword}-2`,
    });
    assert.equal(changed.status, 200);
    const update = await onlyRow('user.update');
    assert.deepEqual(update.before, { role: 'VIEWER', customerIds: [state.mine] });
    assert.deepEqual(update.after, { role: 'OPERATOR', customerIds: [], password: '[sealed]' });

    assert.equal((await state.admin.delete(`/api/users/${id}`)).status, 204);
    const removed = await onlyRow('user.delete');
    assert.equal(removed.before?.['email'], 'new.person@example.com');

    const everything = JSON.stringify(await db()('audit_log').select('*'));
    assert.ok(!everything.includes(secretPassword));
    assert.ok(!everything.includes('$2'), 'no bcrypt hash in any row');
  });

  it("records an account's own profile and password changes", async () => {
    const own = await browserAs('OPERATOR', [state.mine]);
    assert.equal((await own.client.patch('/api/account', { name: 'Renamed' })).status, 200);
    const profile = await onlyRow('account.update');
    assert.equal(Number(profile.actor_id), own.id);
    assert.equal(profile.address, ADDRESS);
    assert.deepEqual(profile.after, { name: 'Renamed' });
    const changed = await own.client.post('/api/account/password', {
      currentPassword: own.password,
      newPassword: 'a completely new passphrase 42',
    });
    assert.equal(changed.status, 204);
    const password = await onlyRow('password.change');
    assert.deepEqual(password.after, { password: '[sealed]' });
    assert.ok(!JSON.stringify(await db()('audit_log').select('*')).includes('a completely new passphrase 42'));
  });

  it('records token creation and revocation, never the token; a token is named as actor', async () => {
    const created = await state.admin.post('/api/tokens', { name: 'script' });
    assert.equal(created.status, 201);
    const create = await onlyRow('token.create');
    byAdmin(create);
    assert.equal(create.target_id, String(created.body.id));
    assert.equal(create.after?.['name'], 'script');

    const script = new Client(fixture.server.url, {
      authorization: `Bearer ${created.body.token as string}`,
      'x-forwarded-for': '198.51.100.9',
    });
    assert.equal((await script.post('/api/customers', { name: 'By token' })).status, 201);
    const byToken = (await rows('customer.create')).find((r) => r.after?.['name'] === 'By token') as StoredRow;
    assert.equal(byToken.actor_type, 'token');
    assert.equal(Number(byToken.actor_id), created.body.id);
    assert.equal(byToken.actor_name, state.adminEmail);
    assert.equal(byToken.address, '198.51.100.9');

    assert.equal((await state.admin.delete(`/api/tokens/${created.body.id}`)).status, 200);
    byAdmin(await onlyRow('token.revoke'));
    assert.ok(!JSON.stringify(await db()('audit_log').select('*')).includes(created.body.token as string));
  });

  it('records sign-in success and failure, with the same answer for an unknown account', async () => {
    const account = await createAccount(db(), { role: 'VIEWER' });
    const browser = new Client(fixture.server.url, { 'x-forwarded-for': '192.0.2.44' });
    const unknown = await browser.post('/api/auth/login', { identifier: 'Nobody@Example.com', password: 'x' });
    const wrong = await browser.post('/api/auth/login', { identifier: account.email, password: 'not it' });
    assert.equal(unknown.status, 401);
    assert.deepEqual(wrong.body, unknown.body, 'an unknown account answers as a wrong password');
    assert.equal(wrong.status, unknown.status);
    const failures = (await rows('auth.sign_in_failed')).filter((r) => r.address === '192.0.2.44');
    assert.deepEqual(
      failures.map((r) => [r.actor_type, r.actor_id, r.actor_name, r.target_id]),
      [
        ['user', null, 'unknown', null], // what was typed names no account: not kept
        ['user', null, account.email.toLowerCase(), null],
      ],
    );
    assert.ok(!JSON.stringify(failures).includes('not it'), 'never the attempted password');

    assert.equal((await browser.signIn(account.email, account.password)).status, 200);
    const success = (await rows('auth.sign_in')).find((r) => Number(r.actor_id) === account.id) as StoredRow;
    assert.equal(success.address, '192.0.2.44');
    assert.equal(success.target_id, String(account.id));
  });

  it('records second-factor setup, enable and disable, never the TOTP secret', async () => {
    const own = await browserAs('VIEWER');
    const setup = await own.client.post('/api/account/totp/setup');
    assert.equal(setup.status, 200);
    const secret = setup.body.secret as string;
    const right = await generate({ secret });
    const wrong = await own.client.post('/api/account/totp/confirm', {
      code: right === '000000' ? '111111' : '000000',
    });
    assert.equal(wrong.status, 400);
    assert.equal((await rows('second_factor.enable')).length, 0, 'a wrong code stores no row');
    const confirmed = await own.client.post('/api/account/totp/confirm', { code: right });
    assert.equal(confirmed.status, 204);
    const enable = await onlyRow('second_factor.enable');
    assert.equal(Number(enable.actor_id), own.id);
    assert.equal(enable.target_id, String(own.id));
    assert.equal((await own.client.post('/api/account/totp/disable', { password: own.password })).status, 204);
    assert.equal((await onlyRow('second_factor.disable')).address, ADDRESS);
    assert.equal((await onlyRow('second_factor.setup')).actor_name, own.email);
    assert.ok(!JSON.stringify(await db()('audit_log').select('*')).includes(secret));
  });

  it('records a sign-out in the transaction that ends the session', async () => {
    const own = await browserAs('VIEWER');
    assert.equal((await own.client.post('/api/auth/logout')).status, 204);
    const out = (await rows('auth.sign_out')).find((r) => Number(r.actor_id) === own.id) as StoredRow;
    assert.equal(out.address, ADDRESS);
    assert.equal(out.target_id, String(own.id));
  });
});
