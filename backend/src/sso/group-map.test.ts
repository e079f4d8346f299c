/**
 * The group mapping of OIDC_GROUP_MAP (automated installs), against a real OpenID provider: it
 * decides roles and grants (customers by name), and the console shows it without changing it.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { adminClient, customer, refusal, signInThroughProvider, useSsoServer } from '../testing/sso.js';
import type { Client } from '../testing/http.js';

describe('single sign-on with the group mapping of OIDC_GROUP_MAP', () => {
  const t = useSsoServer({
    OIDC_GROUP_MAP: 'argus-admins=ADMIN; acme-ops=OPERATOR:acme,Initech; ghosts=VIEWER:Nobody',
  });
  let admin: Client;
  let acme: number;
  before(async () => {
    admin = await adminClient(t);
    acme = await customer(t, 'Acme');
    await customer(t, 'Globex');
  });

  it('gives the role and the customers named, and refuses someone in no group it lists', async () => {
    t.op.accounts.set('otto', { email: 'otto@example.com', email_verified: true, groups: ['acme-ops'] });
    const { browser, landed } = await signInThroughProvider(t, 'otto');
    assert.equal(landed.status, 302);
    const user = JSON.parse((await browser.fetch(`${t.url}/api/auth/me`)).text).user;
    assert.equal(user.role, 'OPERATOR');
    assert.deepEqual(user.customerIds, [acme], 'Acme by name, any case; Initech does not exist (yet)');

    t.op.accounts.set('eve', { email: 'eve@example.com', email_verified: true, groups: ['marketing'] });
    assert.match(refusal((await signInThroughProvider(t, 'eve')).landed.location), /"argus-admins"/);
  });

  it('shows the mapping as it applies, and refuses to change it in the console', async () => {
    const settings = await admin.get('/api/settings/sso');
    assert.equal(settings.body.mappingSource, 'environment');
    assert.deepEqual(settings.body.mappings, [
      { group: 'argus-admins', role: 'ADMIN', customerIds: [] },
      { group: 'acme-ops', role: 'OPERATOR', customerIds: [acme] },
      { group: 'ghosts', role: 'VIEWER', customerIds: [] },
    ]);
    const put = await admin.put('/api/settings/sso/group-mappings', { mappings: [] });
    assert.equal(put.status, 409);
    assert.match(put.body.error, /OIDC_GROUP_MAP/);
    assert.equal((await t.db.knex('sso_group_mappings')).length, 0, 'nothing stored');
  });
});
