/**
 * The per-system report limit is a variable: with AGENT_REPORTS_PER_SYSTEM_PER_MINUTE=700 a system
 * has 700 reports accepted in a minute (a full buffer of 500 and 200 more), and the next request is
 * answered 429 with Retry-After and a message naming the variable; nothing of it is stored.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { agentToken } from '../../../agent/src/jwt.js';
import { deliver } from '../../../agent/src/send.js';
import { useTestServer } from '../testing/app.js';
import { signedInAs } from '../testing/http.js';

const WEBHOOK_SECRET = 'report-limit-webhook-secret-0123456789ab';

describe('AGENT_REPORTS_PER_SYSTEM_PER_MINUTE', () => {
  const fixture = useTestServer({ WEBHOOK_SECRET, AGENT_REPORTS_PER_SYSTEM_PER_MINUTE: '700' });

  it('accepts 700 reports of a system in a minute and refuses the next with 429, Retry-After and the limit named', async () => {
    const admin = await signedInAs(fixture.server.url, fixture.db.knex, 'ADMIN');
    const customer = await admin.post('/api/customers', { name: 'Busy Hosts AG' });
    const cluster = await admin.post('/api/clusters', { customerId: customer.body.id, name: 'batch' });
    const url = `${fixture.server.url}/api/webhook/metrics`;
    const now = Date.now();
    const reports = (count: number, from: number) =>
      Array.from({ length: count }, (_, i) => ({
        ts: new Date(now - (from + i) * 1000).toISOString(),
        metrics: [{ name: 'uptime.s', value: from + i }],
      }));
    // the first request enrols with the cluster's key; the answer's agent key signs the next ones
    const send = (batch: ReturnType<typeof reports>, agentKey?: string) =>
      deliver(url, agentToken(WEBHOOK_SECRET, { sub: 'busy-host-1', ak: agentKey ?? null }), {
        agent: {
          version: '0.1.0',
          hostname: 'busy-1',
          ...(agentKey ? {} : { enrollment: cluster.body.enrollmentKey as string }),
        },
        reports: batch,
      });

    const first = await send(reports(500, 0));
    assert.equal(first.status, 200, 'a full buffer');
    const agentKey = (first.body as { agentKey: string }).agentKey;
    assert.equal((await send(reports(200, 500), agentKey)).status, 200, '700 in the minute');
    const refused = await send(reports(1, 700), agentKey);
    assert.equal(refused.status, 429);
    assert.ok(refused.retryAfter !== null && refused.retryAfter >= 1 && refused.retryAfter <= 60);
    assert.match(
      (refused.body as { error: string }).error,
      /^Too many reports for this system: more than 700 a minute \(AGENT_REPORTS_PER_SYSTEM_PER_MINUTE\): send them again in \d+ s$/,
    );
    const [system] = await fixture.db.knex('systems').where({ hostname: 'busy-1' }).select('id');
    const stored = await fixture.db
      .knex('metric_samples')
      .where({ system_id: system.id })
      .count<{ n: string }[]>('* as n');
    assert.equal(Number(stored[0]?.n), 700, 'nothing of the refused request is stored');
  });
});
