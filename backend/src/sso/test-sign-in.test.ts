/**
 * "Test sign-in" against a real OpenID provider: an administrator signs in at the provider as
 * someone else and reads the claims received and what the mapping makes of them; nobody is signed
 * in, no account is created, and the administrator's own session stays.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { createAccount } from '../testing/accounts.js';
import { RedirectBrowser } from '../testing/redirect-browser.js';
import { customer, useSsoServer } from '../testing/sso.js';

describe('test sign-in for an administrator setting up the mapping', () => {
  const t = useSsoServer();
  let acme: number;
  const browser = new RedirectBrowser();
  const api = async (path: string) => JSON.parse((await browser.fetch(`${t.url}${path}`)).text);
  before(async () => {
    acme = await customer(t, 'Acme');
    await t.db.knex('sso_group_mappings').insert({ group_name: 'acme-ops', role: 'OPERATOR' });
    await t.db.knex('sso_group_customers').insert({ group_name: 'acme-ops', customer_id: acme });
    const admin = await createAccount(t.db.knex, { role: 'ADMIN' });
    const login = await browser.fetch(`${t.url}/api/auth/login`, {
      method: 'POST',
      json: { identifier: admin.email, password: admin.password },
      headers: { origin: t.url },
    });
    assert.equal(login.status, 200);
  });

  it('shows the claims and the rights they map to, without signing anyone in', async () => {
    t.op.accounts.set('olga', {
      email: 'olga@example.com',
      email_verified: true,
      name: 'Olga',
      groups: ['acme-ops', 'x'],
    });
    assert.deepEqual(await api('/api/settings/sso/test'), { result: null });
    const callback = await browser.until(
      `${t.url}/api/settings/sso/test/start`,
      'olga',
      `${t.url}/api/auth/sso/callback`,
    );
    const back = await browser.fetch(callback);
    assert.equal(back.status, 302);
    assert.equal(back.location, `${t.url}/settings/sso`);

    const { result } = await api('/api/settings/sso/test');
    assert.equal(result.claims.email, 'olga@example.com');
    assert.equal(result.claims.sub, 'olga');
    assert.equal(result.claims.nonce, undefined, 'nothing about the token itself');
    assert.deepEqual(result.groups, ['acme-ops', 'x']);
    assert.equal(result.role, 'OPERATOR');
    assert.deepEqual(result.customerIds, [acme]);
    assert.equal(result.refused, null);
    assert.ok(!JSON.stringify(result).includes('eyJ'), 'no token');

    const me = await api('/api/auth/me');
    assert.notEqual(me.user.email, 'olga@example.com', 'still the administrator');
    assert.equal(await t.db.knex('users').where({ email: 'olga@example.com' }).first(), undefined);
  });

  it('says why someone would be refused', async () => {
    t.op.accounts.set('mallory', { email: 'mallory@example.com', email_verified: true, groups: ['marketing'] });
    const callback = await browser.until(
      `${t.url}/api/settings/sso/test/start`,
      'mallory',
      `${t.url}/api/auth/sso/callback`,
    );
    assert.equal((await browser.fetch(callback)).location, `${t.url}/settings/sso`);
    const { result } = await api('/api/settings/sso/test');
    assert.equal(result.role, null);
    assert.match(result.refused, /"acme-ops"/);
    assert.deepEqual(result.groups, ['marketing']);
  });

  it("refuses a test completed in another account's browser", async () => {
    t.op.accounts.set('olga', { email: 'olga@example.com', email_verified: true, groups: ['acme-ops'] });
    const callback = await browser.until(
      `${t.url}/api/settings/sso/test/start`,
      'olga',
      `${t.url}/api/auth/sso/callback`,
    );
    const other = new RedirectBrowser();
    const cookie = ['argus.sso', 'argus.sso.sig'].map((name) => `${name}=${browser.cookie(t.url, name)}`).join('; ');
    const stranger = await other.fetch(callback, { headers: { cookie } });
    assert.match(new URL(stranger.location as string).searchParams.get('ssoError') ?? '', /another account/);
    assert.equal(other.cookie(t.url, 'argus.sid'), undefined);
  });
});
