/** /api/incidents: a cluster incident with its member alerts, for the accounts that may see its customer. */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import type { Knex } from 'knex';
import { createCustomer } from '../testing/accounts.js';
import { useTestServer } from '../testing/app.js';
import { signedInAs, type Client } from '../testing/http.js';

describe('/api/incidents', () => {
  const fixture = useTestServer();
  let db: Knex;
  let incidentId: number;
  let viewer: Client;
  let stranger: Client;

  before(async () => {
    db = fixture.db.knex;
    const mine = await createCustomer(db, 'Mine');
    const theirs = await createCustomer(db, 'Theirs');
    const [cluster] = await db('clusters')
      .insert({ customer_id: mine, name: 'dc-1', enrollment_key: 'k-incidents' })
      .returning<{ id: number }[]>('id');
    const [incident] = await db('incidents')
      .insert({ customer_id: mine, cluster_id: cluster?.id, title: 'Site down: dc-1', started_at: new Date() })
      .returning<{ id: string }[]>('id');
    incidentId = Number(incident?.id);
    for (const name of ['web-02', 'web-01', 'web-03']) {
      const [system] = await db('systems')
        .insert({ customer_id: mine, cluster_id: cluster?.id, name })
        .returning<{ id: number }[]>('id');
      await db('alerts').insert({
        rule_key: 'system.offline',
        rule_kind: 'offline',
        system_id: system?.id,
        customer_id: mine,
        severity: 'CRITICAL',
        started_at: new Date(),
        incident_id: incidentId,
      });
    }
    viewer = await signedInAs(fixture.server.url, db, 'VIEWER', [mine]);
    stranger = await signedInAs(fixture.server.url, db, 'OPERATOR', [theirs]);
  });

  it('lists incidents with their member alerts, and the alerts name their incident', async () => {
    const list = await viewer.get('/api/incidents?state=open');
    assert.equal(list.status, 200);
    assert.equal(list.body.length, 1);
    const [incident] = list.body;
    assert.equal(incident.title, 'Site down: dc-1');
    assert.equal(incident.clusterName, 'dc-1');
    assert.equal(incident.customerName, 'Mine');
    assert.deepEqual(
      incident.alerts.map((a: { systemName: string }) => a.systemName),
      ['web-01', 'web-02', 'web-03'],
    );
    assert.equal((await viewer.get('/api/incidents?state=resolved')).body.length, 0);
    const alert = await viewer.get(`/api/alerts/${incident.alerts[0].id}`);
    assert.equal(alert.body.incidentId, incidentId);
    assert.equal((await viewer.get(`/api/incidents/${incidentId}`)).body.id, incidentId);
  });

  it('hides them from accounts that may not see the customer, and names a bad filter', async () => {
    assert.deepEqual((await stranger.get('/api/incidents')).body, []);
    assert.equal((await stranger.get(`/api/incidents/${incidentId}`)).status, 404);
    const bad = await viewer.get('/api/incidents?state=closed');
    assert.equal(bad.status, 400);
    assert.match(bad.body.error, /^state: /);
  });
});
