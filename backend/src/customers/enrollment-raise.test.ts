/**
 * Enrolment at MSP scale in the console: each cluster's refused hosts of the last
 * hour and why, and an ADMIN's raise of one cluster's limit for the next hour, which ends by itself.
 * AGENT_ENROLL_PER_CLUSTER_PER_HOUR is 3 throughout; time is a fake clock.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { agentToken } from '../../../agent/src/jwt.js';
import { deliver } from '../../../agent/src/send.js';
import type { ClusterEnrollment } from '../../../contracts/fleet.js';
import { FakeClock } from '../lib/clock.js';
import { useTestServer } from '../testing/app.js';
import { signedInAs, type Client } from '../testing/http.js';

const WEBHOOK_SECRET = 'enrolment-raise-webhook-secret-0123456789';
const MINUTE = 60_000;

describe('enrolment refusals and the one-hour raise per cluster', () => {
  const clock = new FakeClock(new Date(Math.floor(Date.now() / 1000) * 1000));
  const fixture = useTestServer({ WEBHOOK_SECRET, AGENT_ENROLL_PER_CLUSTER_PER_HOUR: '3' }, { clock });

  async function clusterOf(admin: Client, name: string) {
    const customer = await admin.post('/api/customers', { name });
    const cluster = await admin.post('/api/clusters', { customerId: customer.body.id, name: 'web farm' });
    return {
      id: cluster.body.id as number,
      customerId: customer.body.id as number,
      key: cluster.body.enrollmentKey as string,
    };
  }

  function enrol(key: string, host: string) {
    return deliver(
      `${fixture.server.url}/api/webhook/metrics`,
      agentToken(WEBHOOK_SECRET, { sub: host }, clock.now().getTime()),
      {
        agent: { version: '0.1.0', hostname: host, enrollment: key },
        reports: [{ ts: clock.now().toISOString(), metrics: [{ name: 'uptime.s', value: 100 }] }],
      },
    );
  }

  async function statusOf(client: Client, clusterId: number): Promise<ClusterEnrollment> {
    const reply = await client.get('/api/clusters/enrollment');
    assert.equal(reply.status, 200, JSON.stringify(reply.body));
    const entry = (reply.body as ClusterEnrollment[]).find((candidate) => candidate.clusterId === clusterId);
    assert.ok(entry, `cluster ${clusterId} listed`);
    return entry;
  }

  const hostsOf = async (clusterId: number) =>
    ((await fixture.db.knex('systems').where({ cluster_id: clusterId }).pluck('hostname')) as string[]).sort();

  it('counts the hosts refused in the last hour and why, one per host however often it retries', async () => {
    const admin = await signedInAs(fixture.server.url, fixture.db.knex, 'ADMIN');
    const cluster = await clusterOf(admin, 'Refusals GmbH');
    for (const host of ['a-1', 'a-2', 'a-3']) assert.equal((await enrol(cluster.key, host)).status, 200);
    for (const host of ['a-4', 'a-4', 'a-5']) assert.equal((await enrol(cluster.key, host)).status, 429, host);

    const status = await statusOf(admin, cluster.id);
    assert.equal(status.hourlyLimit, 3);
    assert.equal(status.defaultLimit, 3);
    assert.equal(status.raise, null);
    assert.equal(status.enrolledLastHour, 3);
    assert.deepEqual(status.refusedLastHour, {
      hosts: 2,
      attempts: 3,
      hourlyLimit: 2,
      otherCustomer: 0,
      lastAt: clock.now().toISOString(),
    });
    assert.deepEqual(await hostsOf(cluster.id), ['a-1', 'a-2', 'a-3'], 'a refusal stores no system');

    // an operator granted the customer sees the same figures; one without the grant does not see the cluster
    const granted = await signedInAs(fixture.server.url, fixture.db.knex, 'OPERATOR', [cluster.customerId]);
    assert.equal((await statusOf(granted, cluster.id)).refusedLastHour.hosts, 2);
    const stranger = await signedInAs(fixture.server.url, fixture.db.knex, 'OPERATOR');
    assert.deepEqual((await stranger.get('/api/clusters/enrollment')).body, []);

    clock.advance(61 * MINUTE);
    const later = await statusOf(admin, cluster.id);
    assert.equal(later.refusedLastHour.hosts, 0, 'refusals older than an hour are not counted');
    assert.equal(later.enrolledLastHour, 0);
  });

  it("lets an ADMIN's raise enrol the 4th host, records it in the audit log, and refuses everyone else", async () => {
    const admin = await signedInAs(fixture.server.url, fixture.db.knex, 'ADMIN');
    const cluster = await clusterOf(admin, 'Raise GmbH');
    for (const host of ['b-1', 'b-2', 'b-3']) assert.equal((await enrol(cluster.key, host)).status, 200);
    assert.equal((await enrol(cluster.key, 'b-4')).status, 429);

    const operator = await signedInAs(fixture.server.url, fixture.db.knex, 'OPERATOR', [cluster.customerId]);
    const viewer = await signedInAs(fixture.server.url, fixture.db.knex, 'VIEWER', [cluster.customerId]);
    for (const client of [operator, viewer]) {
      const refused = await client.post(`/api/clusters/${cluster.id}/enrollment-limit`, { limit: 4 });
      assert.equal(refused.status, 403, JSON.stringify(refused.body));
    }
    assert.equal(
      await fixture.db.knex('cluster_enrollment_raises').where({ cluster_id: cluster.id }).first(),
      undefined,
    );
    assert.equal((await enrol(cluster.key, 'b-4')).status, 429, 'still refused after the refused raises');

    const tooLow = await admin.post(`/api/clusters/${cluster.id}/enrollment-limit`, { limit: 3 });
    assert.equal(tooLow.status, 400);
    assert.match(tooLow.body.error, /^limit: /);
    assert.equal((await admin.post('/api/clusters/999999/enrollment-limit', { limit: 10 })).status, 404);

    const raised = await admin.post(`/api/clusters/${cluster.id}/enrollment-limit`, { limit: 4 });
    assert.equal(raised.status, 200, JSON.stringify(raised.body));
    const until = new Date(clock.now().getTime() + 60 * MINUTE).toISOString();
    assert.equal(raised.body.hourlyLimit, 4);
    assert.equal(raised.body.raise.hourlyLimit, 4);
    assert.equal(raised.body.raise.until, until);
    const audit = await fixture.db.knex('audit_log').where({ action: 'cluster.enrollment_limit.raise' });
    assert.equal(audit.length, 1);
    assert.equal(audit[0].target_id, String(cluster.id));
    assert.equal(Number(audit[0].customer_id), cluster.customerId);
    assert.deepEqual(audit[0].after, { raise: { hourlyLimit: 4, expiresAt: until } });

    assert.equal((await enrol(cluster.key, 'b-4')).status, 200, 'the raise lets the 4th host in');
    const fifth = await enrol(cluster.key, 'b-5');
    assert.equal(fifth.status, 429);
    assert.match(
      (fifth.body as { error: string }).error,
      new RegExp(`enrolled 4 new systems in the last hour, its limit \\(raised by an administrator until ${until}\\)`),
    );
    assert.deepEqual(await hostsOf(cluster.id), ['b-1', 'b-2', 'b-3', 'b-4']);
  });

  it('ends the raise by itself an hour after it was made', async () => {
    const admin = await signedInAs(fixture.server.url, fixture.db.knex, 'ADMIN');
    const cluster = await clusterOf(admin, 'Expiry GmbH');
    assert.equal((await admin.post(`/api/clusters/${cluster.id}/enrollment-limit`, { limit: 5 })).status, 200);

    clock.advance(59 * MINUTE);
    for (const host of ['c-1', 'c-2', 'c-3', 'c-4', 'c-5'])
      assert.equal((await enrol(cluster.key, host)).status, 200, `${host} enrols under the raise`);
    assert.equal((await statusOf(admin, cluster.id)).hourlyLimit, 5);

    clock.advance(2 * MINUTE);
    const status = await statusOf(admin, cluster.id);
    assert.equal(status.raise, null, 'the raise has run out');
    assert.equal(status.hourlyLimit, 3);
    assert.equal(status.enrolledLastHour, 5);
    const sixth = await enrol(cluster.key, 'c-6');
    assert.equal(sixth.status, 429, 'the variable applies again');
    assert.match((sixth.body as { error: string }).error, /\(AGENT_ENROLL_PER_CLUSTER_PER_HOUR\)/);
    assert.equal((await statusOf(admin, cluster.id)).refusedLastHour.hourlyLimit, 1);
  });
});
