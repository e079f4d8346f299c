/**
 * bcrypt compares the first 72 bytes only: an account whose password is exactly 72 bytes must not
 * open with those bytes followed by anything. Every place a password is checked says "wrong".
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createAccount } from '../testing/accounts.js';
import { useTestServer } from '../testing/app.js';
import { Client } from '../testing/http.js';

const PASSWORD_72 = 'p'.repeat(60) + 'twelve bytes'; // 72 bytes of UTF-8
const LONGER = [`${PASSWORD_72}x`, `${PASSWORD_72} anything at all`, `${PASSWORD_72}é`];

describe('passwords past 72 bytes', () => {
  const t = useTestServer();

  it('never sign in, change a password or disable the second factor on their first 72 bytes', async () => {
    assert.equal(Buffer.byteLength(PASSWORD_72), 72);
    const account = await createAccount(t.db.knex, { password: PASSWORD_72 });
    for (const password of LONGER) {
      const refused = await new Client(t.server.url).signIn(account.email, password);
      assert.equal(refused.status, 401, password);
      assert.equal(refused.body.error, 'Invalid sign-in');
    }
    const client = new Client(t.server.url);
    assert.equal((await client.signIn(account.email, PASSWORD_72)).status, 200, 'the exact password works');

    for (const password of LONGER) {
      const change = await client.post('/api/account/password', {
        currentPassword: password,
        newPassword: 'a brand new password here',
      });
      assert.equal(change.status, 400, password);
      assert.equal(change.body.details?.field, 'currentPassword');
      const disable = await client.post('/api/account/totp/disable', { password });
      assert.equal(disable.status, 400, password);
      assert.equal(disable.body.details?.field, 'password');
    }
    assert.equal((await new Client(t.server.url).signIn(account.email, PASSWORD_72)).status, 200, 'unchanged');
  });
});
