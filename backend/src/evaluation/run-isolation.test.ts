/**
 * A run that fails does not fail forever: when the run fails, it goes on customer by customer, so a
 * customer whose work fails (here: PostgreSQL refuses its offline alerts) does not stop the rest of
 * the fleet; the cron caller gets 500 naming that customer; the health endpoint and the self-metrics
 * (`outcome="partial"`) show it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ensureDefaultRules } from '../../../db/seed-rules.js';
import { FakeClock } from '../lib/clock.js';
import { randomToken } from '../lib/crypto.js';
import { createCustomer } from '../testing/accounts.js';
import { startTestServer, testConfig, type TestServer } from '../testing/app.js';
import { createTestDatabase, type TestDatabase } from '../testing/database.js';
import { EVALUATE_PATH } from './routes.js';

const MINUTE = 60_000;
const METRICS_TOKEN = 'metrics-token-for-the-isolation-test-0123456789';

async function silentCustomer(db: TestDatabase, clock: FakeClock) {
  const customerId = await createCustomer(db.knex);
  const [cluster] = await db
    .knex('clusters')
    .insert({ customer_id: customerId, name: 'c', enrollment_key: randomToken(16) })
    .returning<{ id: number }[]>('id');
  const [system] = await db
    .knex('systems')
    .insert({
      customer_id: customerId,
      cluster_id: cluster?.id,
      name: `s-${randomToken(3)}`,
      status: 'ONLINE',
      last_seen_at: clock.now(),
    })
    .returning<{ id: number }[]>('id');
  return { customerId, systemId: system?.id as number };
}

async function json(server: TestServer, method: 'GET' | 'POST', path: string) {
  const response = await fetch(server.url + path, { method });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

describe('a run that fails for one customer', () => {
  let db: TestDatabase;
  let server: TestServer;
  const clock = new FakeClock(new Date('2026-03-02T12:00:00.000Z'));
  before(async () => {
    db = await createTestDatabase();
    await ensureDefaultRules(db.knex);
    server = await startTestServer(testConfig(db.url, { METRICS_TOKEN }), { clock });
  });
  after(async () => {
    await server.stop();
    await db.drop();
  });

  it('evaluates the others, answers the cron caller 500 naming it, and shows it in health until a run completes', async () => {
    const [first, failing, last] = [
      await silentCustomer(db, clock),
      await silentCustomer(db, clock),
      await silentCustomer(db, clock),
    ];
    await db.knex.raw(`
      CREATE FUNCTION refuse_alert() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN RAISE EXCEPTION 'refused for the test'; END $$;
      CREATE TRIGGER refuse_alert BEFORE INSERT ON alerts FOR EACH ROW
        WHEN (NEW.customer_id = ${Number(failing?.customerId)}) EXECUTE FUNCTION refuse_alert();`);
    clock.advance(3 * MINUTE);

    const run = await json(server, 'POST', EVALUATE_PATH);
    assert.equal(run.status, 500);
    assert.deepEqual(run.body, { success: false, error: 'Evaluation failed', failedCustomers: [failing?.customerId] });
    const open = await db.knex('alerts').where({ state: 'open' }).orderBy('system_id').pluck('system_id');
    assert.deepEqual(open, [first?.systemId, last?.systemId], 'the other customers were evaluated');
    const statuses = await db.knex('systems').orderBy('id').pluck('status');
    assert.deepEqual(statuses, ['OFFLINE', 'ONLINE', 'OFFLINE'], "the failing customer's part was rolled back");
    assert.ok(
      server.logs.lines().some((l) => l['msg'] === 'Evaluation failed for a customer; the others were evaluated'),
    );

    const metrics = await fetch(`${server.url}/api/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
    assert.match(await metrics.text(), /^argus_evaluation_runs_total\{outcome="partial"\} 1$/m);

    const health = await json(server, 'GET', '/api/health');
    assert.equal(health.status, 200, 'the app itself works');
    assert.deepEqual(health.body['evaluation'], {
      lastRunAt: clock.now().toISOString(),
      failedCustomers: 1,
      lastCompleteAt: null,
    });

    // fixed: the next run completes (the pending work of that customer is done now) and health clears
    await db.knex.raw('DROP TRIGGER refuse_alert ON alerts');
    clock.advance(MINUTE);
    const next = await json(server, 'POST', EVALUATE_PATH);
    assert.equal(next.status, 200);
    assert.equal((next.body['alerts'] as { triggered: number }).triggered, 1);
    assert.equal((await json(server, 'GET', '/api/health')).body['evaluation'], undefined);
  });
});
