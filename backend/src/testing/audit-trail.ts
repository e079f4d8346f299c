/** What the audit trail tests share: browsers at a known client address, and the rows they wrote. */
import assert from 'node:assert/strict';
import { before } from 'node:test';
import type { Role } from '../lib/access.js';
import { createAccount, createCustomer } from './accounts.js';
import type { ServerFixture } from './app.js';
import { Client } from './http.js';

/** The address the proxy names in X-Forwarded-For for every browser of these tests. */
export const ADDRESS = '203.0.113.7';

export interface StoredRow {
  id: string;
  actor_type: string;
  actor_id: string | null;
  actor_name: string | null;
  address: string | null;
  action: string;
  target_type: string;
  target_id: string | null;
  customer_id: string | null;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
}

/** Registers a before hook (a customer "Mine" and a signed-in ADMIN); read the fields inside tests. */
export function useAuditTrail(fixture: ServerFixture) {
  const db = () => fixture.db.knex;
  const state = {} as { admin: Client; adminId: number; adminEmail: string; mine: number };

  /** A browser at ADDRESS signed in as a new account. */
  async function browserAs(role: Role, customerIds: number[] = []) {
    const account = await createAccount(db(), { role, customerIds });
    const client = new Client(fixture.server.url, { 'x-forwarded-for': ADDRESS });
    const reply = await client.signIn(account.email, account.password);
    assert.equal(reply.status, 200);
    return { client, ...account };
  }

  const rows = async (action: string): Promise<StoredRow[]> =>
    (await db()('audit_log').where({ action }).orderBy('id')) as StoredRow[];

  async function onlyRow(action: string): Promise<StoredRow> {
    const found = await rows(action);
    assert.equal(found.length, 1, `one ${action} row, got ${found.length}`);
    return found[0] as StoredRow;
  }

  function byAdmin(row: StoredRow) {
    assert.equal(row.actor_type, 'user');
    assert.equal(Number(row.actor_id), state.adminId);
    assert.equal(row.actor_name, state.adminEmail);
    assert.equal(row.address, ADDRESS);
  }

  const count = async () => Number((await db()('audit_log').count<{ count: string }[]>('* as count'))[0]?.count);
  const everything = async () => JSON.stringify(await db()('audit_log').select('*'));

  before(async () => {
    state.mine = await createCustomer(db(), 'Mine');
    const signedIn = await browserAs('ADMIN');
    state.admin = signedIn.client;
    state.adminId = signedIn.id;
    state.adminEmail = signedIn.email;
  });

  return { state, browserAs, rows, onlyRow, byAdmin, count, everything };
}
