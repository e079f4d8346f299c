/**
 * The per-cluster enrolment limit is a variable: with
 * AGENT_ENROLL_PER_CLUSTER_PER_HOUR=3, three hosts enrol and the fourth is answered 429 with
 * Retry-After and a message naming the limit; nothing of it is stored.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { agentToken } from '../../../agent/src/jwt.js';
import { deliver } from '../../../agent/src/send.js';
import { useTestServer } from '../testing/app.js';
import { signedInAs } from '../testing/http.js';

const WEBHOOK_SECRET = 'enrolment-limit-webhook-secret-0123456789';

describe('AGENT_ENROLL_PER_CLUSTER_PER_HOUR', () => {
  const fixture = useTestServer({ WEBHOOK_SECRET, AGENT_ENROLL_PER_CLUSTER_PER_HOUR: '3' });

  it('enrols 3 hosts of a cluster in an hour and refuses the 4th with 429, Retry-After and the limit named', async () => {
    const admin = await signedInAs(fixture.server.url, fixture.db.knex, 'ADMIN');
    const customer = await admin.post('/api/customers', { name: 'Rollout GmbH' });
    const cluster = await admin.post('/api/clusters', { customerId: customer.body.id, name: 'web farm' });
    const url = `${fixture.server.url}/api/webhook/metrics`;
    const enrol = (host: number) =>
      deliver(url, agentToken(WEBHOOK_SECRET, { sub: `rollout-host-${host}` }), {
        agent: { version: '0.1.0', hostname: `web-${host}`, enrollment: cluster.body.enrollmentKey as string },
        reports: [{ ts: new Date().toISOString(), metrics: [{ name: 'uptime.s', value: 100 }] }],
      });

    for (const host of [1, 2, 3]) assert.equal((await enrol(host)).status, 200, `host ${host} enrols`);
    const refused = await enrol(4);
    assert.equal(refused.status, 429);
    assert.ok(
      refused.retryAfter !== null && refused.retryAfter > 3500 && refused.retryAfter <= 3600,
      `Retry-After ${refused.retryAfter}`,
    );
    assert.match(
      (refused.body as { error: string }).error,
      /^This cluster enrolled 3 new systems in the last hour, its limit \(AGENT_ENROLL_PER_CLUSTER_PER_HOUR\): try again in \d+ s$/,
    );
    const systems = await fixture.db.knex('systems').where({ cluster_id: cluster.body.id }).pluck('hostname');
    assert.deepEqual(systems.sort(), ['web-1', 'web-2', 'web-3'], 'nothing of the refused host is stored');
  });
});
