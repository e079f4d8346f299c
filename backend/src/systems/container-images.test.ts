/** GET /api/systems/:id/container-images: the images its agent last listed, for those who may see the system. */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import type { Knex } from 'knex';
import { createCustomer } from '../testing/accounts.js';
import { useTestServer } from '../testing/app.js';
import { signedInAs } from '../testing/http.js';

describe('GET /api/systems/:id/container-images', () => {
  const fixture = useTestServer();
  let db: Knex;
  let systemId: number;
  let acme: number;
  let globex: number;
  const reportedAt = new Date('2026-11-28T10:00:00.000Z');

  before(async () => {
    db = fixture.db.knex;
    acme = await createCustomer(db, 'Acme');
    globex = await createCustomer(db, 'Globex');
    const [row] = await db('systems')
      .insert({ customer_id: acme, name: 'web-01', hostname: 'web-01', status: 'ONLINE' })
      .returning<{ id: number }[]>('id');
    systemId = row!.id;
    await db('container_images').insert([
      { system_id: systemId, name: 'web', image: 'nginx:1.27', reported_at: reportedAt },
      { system_id: systemId, name: 'db', image: 'postgres:16', reported_at: reportedAt },
    ]);
  });

  it('lists them by name for a user of the customer, and is a 404 for another customer’s user', async () => {
    const viewer = await signedInAs(fixture.server.url, db, 'VIEWER', [acme]);
    const answer = await viewer.get(`/api/systems/${systemId}/container-images`);
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.deepEqual(answer.body, [
      { name: 'db', image: 'postgres:16', reportedAt: reportedAt.toISOString() },
      { name: 'web', image: 'nginx:1.27', reportedAt: reportedAt.toISOString() },
    ]);
    const stranger = await signedInAs(fixture.server.url, db, 'VIEWER', [globex]);
    assert.equal((await stranger.get(`/api/systems/${systemId}/container-images`)).status, 404);
  });
});
