/**
 * Helpers of the live channel tests: accounts signed in over HTTP, tokens,
 * systems and alert events, and a barrier that proves earlier frames were handled.
 */
import assert from 'node:assert/strict';
import type { AlertEvent } from '../alerts/alert-json.js';
import { createAccount } from './accounts.js';
import type { ServerFixture } from './app.js';
import { Client } from './http.js';
import type { LiveClient } from './live-client.js';

let alertIds = 0;
export function alertEvent(customerId: number, systemId: number, type: AlertEvent['type'] = 'raised'): AlertEvent {
  alertIds += 1;
  return {
    type,
    alert: {
      id: alertIds,
      ruleKey: 'disk.readonly',
      severity: 'CRITICAL',
      systemId,
      customerId,
      instance: '/',
      value: 1,
      message: 'read-only filesystem',
      state: 'open',
      acknowledged: false,
      startedAt: new Date().toISOString(),
      resolvedAt: null,
    },
  };
}

/** Frames are handled in order: an error answer to a junk frame means every earlier frame was handled. */
export async function barrier(client: LiveClient): Promise<void> {
  const from = client.frames.length;
  client.send({ t: 'barrier' });
  await client.next((f) => f['t'] === 'error', 5_000, from);
}

export function cookieHeader(client: Client): string {
  return `argus.sid=${client.cookie('argus.sid')}; argus.sid.sig=${client.cookie('argus.sid.sig')}`;
}

export function liveFixtures(t: ServerFixture) {
  return {
    async signedIn(role: 'ADMIN' | 'OPERATOR' | 'VIEWER', customerIds: number[] = []) {
      const account = await createAccount(t.db.knex, { role, customerIds });
      const client = new Client(t.server.url);
      const reply = await client.signIn(account.email, account.password);
      assert.equal(reply.status, 200);
      return { account, client };
    },

    async tokenOf(client: Client): Promise<{ token: string; id: number }> {
      const reply = await client.post('/api/tokens', { name: `live ${Date.now()}` });
      assert.equal(reply.status, 201, JSON.stringify(reply.body));
      return { token: reply.body.token, id: reply.body.id };
    },

    async system(customerId: number, name = `host-${Math.random().toString(36).slice(2, 8)}`): Promise<number> {
      const [row] = await t.db
        .knex('systems')
        .insert({ customer_id: customerId, name })
        .returning<{ id: number }[]>('id');
      return (row as { id: number }).id;
    },
  };
}
