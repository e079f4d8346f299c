/**
 * GET /api/storage, the console's storage panel, on plain PostgreSQL (the TimescaleDB side:
 * storage-jobs.test.ts): administrators only; sizes from the database itself, no jobs to show.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createAccount } from '../testing/accounts.js';
import { useTestServer } from '../testing/app.js';
import { Client } from '../testing/http.js';

describe('GET /api/storage', () => {
  const t = useTestServer();

  async function signedIn(role: 'ADMIN' | 'OPERATOR' | 'VIEWER') {
    const account = await createAccount(t.db.knex, { role });
    const client = new Client(t.server.url);
    assert.equal((await client.signIn(account.email, account.password)).status, 200);
    return client;
  }

  it('shows an administrator the database size, the samples and no jobs without TimescaleDB', async () => {
    const reply = await (await signedIn('ADMIN')).get('/api/storage');
    assert.equal(reply.status, 200);
    assert.equal(reply.body.timescale, false);
    assert.ok(reply.body.databaseBytes > 0);
    assert.ok(reply.body.metricsBytes > 0 && reply.body.metricsBytes < reply.body.databaseBytes);
    assert.deepEqual(
      { chunks: reply.body.chunks, compressedChunks: reply.body.compressedChunks, compression: reply.body.compression },
      { chunks: 0, compressedChunks: 0, compression: null },
    );
    assert.deepEqual(reply.body.jobs, []);
  });

  it('refuses operators and viewers', async () => {
    for (const role of ['OPERATOR', 'VIEWER'] as const) {
      assert.equal((await (await signedIn(role)).get('/api/storage')).status, 403, role);
    }
  });
});
