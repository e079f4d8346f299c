/**
 * Ambiguous input refused at the edge: JSON with a key given twice (400 naming the key), names
 * holding control or text-direction characters (400 naming the field), and path ids in any form
 * but plain decimal (404, as for any id that names no row). A refused request stores nothing.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import type { z } from 'zod';
import { createAccount, createCustomer } from '../testing/accounts.js';
import { useTestServer } from '../testing/app.js';
import { signedInAs, type Client } from '../testing/http.js';
import { duplicateKey } from './duplicate-keys.js';
import { SAFE_NAME_MESSAGE } from '../../../contracts/common.js';
import { createTokenBody, createUserBody, profileBody, updateUserBody } from '../../../contracts/accounts.js';
import { setupBody } from '../../../contracts/auth.js';
import { createClusterBody, createCustomerBody, updateClusterBody } from '../../../contracts/fleet.js';
import { windowSchema } from '../../../contracts/maintenance.js';
import { createAlertRuleSchema, createEventRuleSchema } from '../../../contracts/rules.js';
import { statusPageCreate, statusPageItemBody } from '../../../contracts/status-pages.js';
import { updateSystemBody } from '../../../contracts/systems.js';
import { channelSchema } from '../channels/schema.js';

/** CR, LF, ESC, DEL, a C1 control, and each bidi control. */
const UNSAFE = ['\r', '\n', '\u001b', '\u007f', '\u0085', '\u061c', '\u200e', '\u200f']
  .concat(['\u202a', '\u202b', '\u202c', '\u202d', '\u202e', '\u2066', '\u2067', '\u2068', '\u2069'])
  .map((char) => `Acme${char}GmbH`);

describe('duplicate keys in a JSON body', () => {
  it('names the first key an object holds twice, wherever it is and however it is spelt', () => {
    assert.equal(duplicateKey('{"a":1,"b":2}'), null);
    assert.equal(duplicateKey('{"a":1,"a":2}'), 'a');
    assert.equal(duplicateKey('{"a":1, "\\u0061" :2}'), 'a');
    assert.equal(duplicateKey('{"scope":{"type":"x","id":1,"type":"y"}}'), 'scope.type');
    assert.equal(duplicateKey('{"items":[{"id":1},{"id":2,"id":3}]}'), 'items.1.id');
    assert.equal(duplicateKey('[{"a":"\\"a\\":","b":{"a":1}}]'), null, 'a key text inside a string or another object');
    assert.equal(duplicateKey('{"a":[1,{"a":1}],"b":"}","c":{"d":1},"d":2}'), null);
  });
});

describe('names hold no control or text-direction characters', () => {
  const names: [string, z.ZodType][] = [
    ['customer', createCustomerBody.shape.name],
    ['cluster', createClusterBody.shape.name],
    ['cluster rename', updateClusterBody.shape.name],
    ['system', updateSystemBody.shape.name],
    ['alert rule', createAlertRuleSchema.shape.name],
    ['event rule', createEventRuleSchema.shape.name],
    ['channel', channelSchema.shape.name],
    ['user', createUserBody.shape.name],
    ['user update', updateUserBody.shape.name],
    ['own profile', profileBody.shape.name],
    ['first account', setupBody.shape.name],
    ['API token', createTokenBody.shape.name],
    ['status page', statusPageCreate.shape.title],
    ['status page entry', statusPageItemBody.shape.displayName],
    ['maintenance window', windowSchema.in.shape.name],
  ];
  for (const [what, schema] of names) {
    it(`${what}: refuses them in the name, keeps a plain one`, () => {
      assert.equal(schema.safeParse('Acme GmbH – Köln').success, true);
      for (const name of UNSAFE) {
        const parsed = schema.safeParse(name);
        assert.equal(parsed.success, false, JSON.stringify(name));
        assert.equal(parsed.error?.issues[0]?.message, SAFE_NAME_MESSAGE);
      }
    });
  }
});

describe('ambiguous input at the HTTP edge', () => {
  const fixture = useTestServer();
  let admin: Client;
  const count = async (table: string) => Number((await fixture.db.knex(table).count('* as n'))[0]?.n);

  before(async () => {
    admin = await signedInAs(fixture.server.url, fixture.db.knex, 'ADMIN');
  });

  it('refuses a body with a key given twice with 400 naming the key, and stores nothing', async () => {
    const customers = await count('customers');
    const reply = await admin.post('/api/customers', '{"name":"Acme","notes":"","name":"Evil"}');
    assert.equal(reply.status, 400);
    assert.deepEqual(reply.body, {
      error: 'name: is given more than once',
      code: 'bad_request',
      details: { field: 'name' },
    });
    assert.equal(await count('customers'), customers);
  });

  it('refuses control and text-direction characters in names with 400 naming the field, and stores nothing', async () => {
    const customerId = await createCustomer(fixture.db.knex);
    const before = await Promise.all(['customers', 'clusters', 'users', 'api_tokens'].map(count));
    const refusals = [
      await admin.post('/api/customers', { name: 'Acme\r\nGmbH' }),
      await admin.post('/api/clusters', { customerId, name: 'prod\u001b[2J' }),
      await admin.post('/api/users', {
        email: 'bidi@example.com',
        name: 'Mallory\u202Egpj.exe',
        role: 'VIEWER',
        password: 'a long enough password 123',
      }),
      await admin.post('/api/tokens', { name: 'backup\u2066script' }),
    ];
    for (const reply of refusals) {
      assert.equal(reply.status, 400, JSON.stringify(reply.body));
      assert.equal(reply.body.error, `name: ${SAFE_NAME_MESSAGE}`);
      assert.deepEqual(reply.body.details, { field: 'name' });
    }
    assert.deepEqual(await Promise.all(['customers', 'clusters', 'users', 'api_tokens'].map(count)), before);
  });

  it('reads path ids only in plain decimal: 0x1, 1e0, +1, " 1" and 01 name no row', async () => {
    const customerId = await createCustomer(fixture.db.knex);
    const user = await createAccount(fixture.db.knex);
    assert.equal((await admin.patch(`/api/customers/${customerId}`, { notes: 'plain' })).status, 200);
    const forms = [
      `0x${customerId.toString(16)}`,
      `${customerId}e0`,
      `+${customerId}`,
      `%20${customerId}`,
      `0${customerId}`,
    ];
    for (const form of forms) {
      const reply = await admin.patch(`/api/customers/${form}`, { notes: form });
      assert.deepEqual([reply.status, reply.body.error], [404, 'No such customer'], form);
    }
    for (const form of [`0${user.id}`, `${user.id}.0`, `0x${user.id.toString(16)}`]) {
      const reply = await admin.patch(`/api/users/${form}`, { name: 'Renamed' });
      assert.deepEqual([reply.status, reply.body.error], [404, 'No such user'], form);
    }
    assert.equal((await admin.delete(`/api/tokens/1e0`)).status, 404);
  });
});
