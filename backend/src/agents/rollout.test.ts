import assert from 'node:assert/strict';
import { SYSTEM_ACTOR } from '../lib/audit-trail.js';
import { auditTrailOn } from '../testing/audit.js';
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { after, before, beforeEach, describe, it } from 'node:test';
import Koa from 'koa';
import { koaBody } from 'koa-body';
import type { Principal, Role } from '../lib/access.js';
import { errorMiddleware } from '../http/error-middleware.js';
import { FakeClock } from '../lib/clock.js';
import { createRateLimiter } from '../ratelimit/rate-limiter.js';
import { createCustomer } from '../testing/accounts.js';
import { createTestDatabase, type TestDatabase } from '../testing/database.js';
import { captureLogger } from '../testing/logger.js';
import { createAgentDist } from './dist.js';
import { createAgentsRepo } from './repo.js';
import { createAgentUpdates, type AgentUpdates } from './rollout.js';
import { agentRoutes } from './routes.js';
import { mountRoutes } from '../http/route.js';
import { rolloutRoutes } from './rollout-routes.js';
import { createAgentEndpoints } from './service.js';

const BASE = 'https://argus.example.com';
const NEW = '2.28.1';
const OLD = '2.27.0';
const MINUTE = 60_000;
const build = Buffer.from('fake agent 2.28.1');
const buildSha = createHash('sha256').update(build).digest('hex');

interface TestSystem {
  id: number;
  customerId: number;
  arch: string;
}

describe('agent updates: rollout and the update-failure guard', () => {
  const logs = captureLogger();
  const clock = new FakeClock(new Date('2026-11-21T10:00:00Z'));
  let db: TestDatabase;
  let distDir: string;
  let updates: AgentUpdates;
  let server: http.Server;
  let base: string;

  async function createSystem(customerId: number, options: { arch?: string; lastSeenAgoMs?: number } = {}) {
    const arch = options.arch ?? 'x86_64';
    const [row] = await db
      .knex('systems')
      .insert({
        customer_id: customerId,
        name: `host-${Math.random().toString(36).slice(2, 8)}`,
        arch,
        agent_version: OLD,
        status: 'ONLINE',
        last_seen_at: new Date(clock.now().getTime() - (options.lastSeenAgoMs ?? 0)),
      })
      .returning<{ id: number }[]>('id');
    return { id: row?.id ?? 0, customerId, arch } satisfies TestSystem;
  }

  /** What the ingest path asks for an accepted request (records the reported version, then offers). */
  async function report(system: TestSystem, version = OLD) {
    return updates.offerAfterReport({ ...system, agentVersion: version });
  }

  async function call(method: string, url: string, role: Role | null, body?: unknown) {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (role) headers['x-test-role'] = role;
    const response = await fetch(`${base}${url}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : null };
  }

  before(async () => {
    db = await createTestDatabase();
    distDir = await mkdtemp(path.join(os.tmpdir(), 'argus-rollout-'));
    await mkdir(path.join(distDir, NEW));
    for (const arch of ['x86_64', 'aarch64'])
      await writeFile(path.join(distDir, NEW, `argus-agent-linux-${arch}`), build);
    const entry = { sha256: buildSha, size: build.length };
    await writeFile(
      path.join(distDir, NEW, 'manifest.json'),
      JSON.stringify({ version: NEW, files: { x86_64: entry, aarch64: entry } }),
    );
    const dist = createAgentDist({ dir: distDir, publicUrl: BASE, clock, log: logs.log });
    updates = createAgentUpdates({ db: db.knex, dist, clock, log: logs.log, audit: auditTrailOn(db.knex) });
    const endpoints = createAgentEndpoints({
      repo: createAgentsRepo(db.knex),
      dist,
      webhookSecret: null,
      keyFailures: createRateLimiter({ kind: 'memory' }, { name: 'k', points: 5, durationSeconds: 60 }, logs.log),
    });
    const app = new Koa();
    app.silent = true;
    app.use(errorMiddleware(logs.log));
    app.use(koaBody());
    app.use(async (ctx, next) => {
      // stands in for authentication: the role comes from a test header
      const role = ctx.get('x-test-role') as Role | '';
      if (role) {
        const principal: Principal = {
          ...{ userId: 1, role, email: 'a@example.com', via: 'token', sessionId: null, tokenId: 1 },
          customerIds: new Set(),
        };
        ctx.state.principal = principal;
      }
      await next();
    });
    for (const router of [mountRoutes(agentRoutes, { endpoints, updates }), mountRoutes(rolloutRoutes, { updates })])
      app.use(router.routes()).use(router.allowedMethods());
    server = http.createServer(app.callback());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });

  after(async () => {
    await new Promise((resolve) => server.close(resolve));
    await db.drop();
    await rm(distDir, { recursive: true, force: true });
  });

  beforeEach(async () => {
    await updates.setRolloutMode(SYSTEM_ACTOR, 'all');
  });

  it('mode "all" offers the newest build to every system not on it, never a downgrade', async () => {
    const customer = await createCustomer(db.knex);
    const offer = { version: NEW, url: `${BASE}/api/agent/download/${NEW}/x86_64`, sha256: buildSha };
    assert.deepEqual(await report(await createSystem(customer)), offer);
    assert.deepEqual(await report(await createSystem(customer, { arch: 'amd64' })), offer);
    assert.equal(await report(await createSystem(customer), NEW), null);
    assert.equal(await report(await createSystem(customer), '2.30.0'), null);
    assert.equal(await report(await createSystem(customer, { arch: 'riscv64' })), null);
  });

  it('mode "canary" offers one canary per customer first, and the rest after 10 minutes on the new version', async () => {
    assert.deepEqual(await call('PUT', '/api/settings/agent-rollout', 'ADMIN', { mode: 'canary' }), {
      status: 200,
      body: { mode: 'canary' },
    });
    const c = await createCustomer(db.knex);
    const d = await createCustomer(db.knex);
    const gone = await createSystem(c, { lastSeenAgoMs: 60 * MINUTE }); // lowest id, but not reporting: no canary
    const canary = await createSystem(c);
    const rest = [await createSystem(c), await createSystem(c)];
    const arm = await createSystem(c, { arch: 'aarch64' }); // the only one of its architecture
    const otherCanary = await createSystem(d);
    const otherRest = await createSystem(d);

    for (const system of rest) assert.equal(await report(system), null);
    assert.equal((await report(canary))?.version, NEW);
    assert.equal((await report(otherCanary))?.version, NEW);
    assert.equal((await report(arm))?.url, `${BASE}/api/agent/download/${NEW}/aarch64`);
    assert.equal(await report(otherRest), null);
    assert.equal(gone.id < canary.id, true);

    assert.equal(await report(canary, NEW), null); // the canary updated
    clock.advance(9 * MINUTE);
    assert.equal(await report(canary, NEW), null);
    for (const system of rest) assert.equal(await report(system), null, 'not before 10 minutes');
    clock.advance(MINUTE);
    assert.equal(await report(canary, NEW), null);
    for (const system of rest) assert.equal((await report(system))?.version, NEW);
    assert.equal(await report(otherRest), null, "another customer's rollout waits for its own canary");
  });

  it("widens a canary rollout only on the canary's own report: a failed canary halts it until an admin resumes it", async () => {
    await updates.setRolloutMode(SYSTEM_ACTOR, 'canary');
    const customer = await createCustomer(db.knex);
    const canary = await createSystem(customer);
    const liar = await createSystem(customer);
    const third = await createSystem(customer);
    const rolloutOf = async () =>
      (await call('GET', '/api/agent-rollouts', 'ADMIN')).body.rollouts.find(
        (rollout: { customerId: number }) => rollout.customerId === customer,
      );

    assert.equal((await report(canary))?.version, NEW); // offered
    for (let n = 1; n < 3; n++) assert.equal((await report(canary))?.version, NEW); // came back on 2.27.0
    assert.equal(await report(canary), null); // the third time: its update failed
    assert.equal((await rolloutOf()).state, 'halted');
    assert.ok(logs.messages().some((message) => message.startsWith('Agent rollout halted')));

    // another system says it runs the new version it was never offered, for longer than the canary period
    assert.equal(await report(liar, NEW), null);
    clock.advance(10 * MINUTE);
    assert.equal(await report(liar, NEW), null);
    assert.equal(await report(third), null, 'a halted rollout is not released by another system');
    assert.equal(await report(canary), null);
    const halted = await rolloutOf();
    assert.deepEqual(
      [halted.state, halted.canary.id, halted.version, halted.arch],
      ['halted', canary.id, NEW, 'x86_64'],
    );

    const resume = `/api/agent-rollouts/${halted.id}/resume`;
    assert.equal((await call('POST', resume, 'OPERATOR')).status, 403);
    assert.equal((await call('POST', resume, null)).status, 401);
    assert.equal((await call('POST', '/api/agent-rollouts/999999/resume', 'ADMIN')).status, 404);
    const resumed = await call('POST', resume, 'ADMIN');
    assert.equal(resumed.status, 200, JSON.stringify(resumed.body));
    assert.deepEqual([resumed.body.state, resumed.body.canary.id], ['canary', canary.id]);
    const again = await call('POST', resume, 'ADMIN');
    assert.deepEqual([again.status, again.body.error], [409, 'Only a halted rollout can be resumed']);
    const audit = await db.knex('audit_log').where({ action: 'agent_rollout.resume', target_id: String(halted.id) });
    assert.equal(audit.length, 1);

    // the canary is offered the build again; the rest wait for its own report
    assert.equal((await report(canary))?.version, NEW);
    assert.equal(await report(third), null);
    assert.equal(await report(canary, NEW), null);
    clock.advance(10 * MINUTE);
    assert.equal(await report(canary, NEW), null);
    assert.equal((await report(third))?.version, NEW);
    assert.equal((await rolloutOf()).state, 'released');
  });

  it("resumes a halted rollout with the canary's own retry-update, and never hands the canary to another system", async () => {
    await updates.setRolloutMode(SYSTEM_ACTOR, 'canary');
    const customer = await createCustomer(db.knex);
    const canary = await createSystem(customer);
    const other = await createSystem(customer);
    for (let n = 0; n < 3; n++) await report(canary);
    assert.equal(await report(canary), null); // failed: halted

    // the canary goes quiet for longer than the canary window: no other system becomes the canary
    clock.advance(30 * MINUTE);
    await db.knex('systems').where({ id: other.id }).update({ last_seen_at: clock.now() });
    assert.equal(await report(other), null);

    assert.equal((await call('POST', `/api/systems/${canary.id}/retry-update`, 'ADMIN')).status, 204);
    const [row] = await db.knex('agent_rollouts').where({ customer_id: customer });
    assert.deepEqual([row.state, row.canary_system_id], ['canary', canary.id]);
    assert.equal((await report(canary))?.version, NEW);
    assert.equal(await report(other), null, 'the rest still wait for the canary');
  });

  it('marks an update failed after three reports of another version, offers it no more, and "retry update" clears it', async () => {
    const system = await createSystem(await createCustomer(db.knex));
    assert.equal((await report(system))?.version, NEW); // offered
    assert.equal((await report(system))?.version, NEW); // came back on 2.27.0: 1
    assert.equal((await report(system))?.version, NEW); // 2
    assert.equal(await report(system), null); // 3: marked
    assert.equal(await report(system), null);
    const row = await db.knex('systems').where({ id: system.id }).first();
    assert.equal(row.update_failed_version, NEW);
    assert.equal(row.offered_version, null);
    assert.ok(logs.messages().some((message) => message.startsWith('Agent update failed')));

    const retry = `/api/systems/${system.id}/retry-update`;
    assert.equal((await call('POST', retry, 'OPERATOR')).status, 403);
    assert.equal((await call('POST', retry, null)).status, 401);
    assert.equal((await call('POST', '/api/systems/999999/retry-update', 'ADMIN')).status, 404);
    assert.equal((await call('POST', retry, 'ADMIN')).status, 204);
    assert.equal((await db.knex('systems').where({ id: system.id }).first()).update_failed_version, null);
    assert.equal((await report(system))?.version, NEW);
    assert.equal(await report(system, NEW), null);
    const updated = await db.knex('systems').where({ id: system.id }).first();
    assert.deepEqual([updated.offered_version, updated.update_failures, updated.reported_version], [null, 0, NEW]);
  });

  it('does not count an agent that takes the offered update', async () => {
    const system = await createSystem(await createCustomer(db.knex));
    assert.equal((await report(system))?.version, NEW);
    assert.equal((await report(system))?.version, NEW); // one report before it updated
    assert.equal(await report(system, NEW), null);
    const row = await db.knex('systems').where({ id: system.id }).first();
    assert.deepEqual([row.update_failures, row.update_failed_version, row.offered_version], [0, null, null]);
  });

  it('keeps the rollout mode in the settings API, for administrators only', async () => {
    assert.deepEqual((await call('GET', '/api/settings/agent-rollout', 'ADMIN')).body, { mode: 'all' });
    assert.equal((await call('GET', '/api/settings/agent-rollout', 'OPERATOR')).status, 403);
    assert.equal((await call('PUT', '/api/settings/agent-rollout', 'OPERATOR', { mode: 'canary' })).status, 403);
    assert.equal((await call('GET', '/api/settings/agent-rollout', null)).status, 401);
    const bad = await call('PUT', '/api/settings/agent-rollout', 'ADMIN', { mode: 'some' });
    assert.equal(bad.status, 400);
    assert.deepEqual(bad.body.details, { field: 'mode' });
    await call('PUT', '/api/settings/agent-rollout', 'ADMIN', { mode: 'canary' });
    assert.deepEqual((await db.knex('app_settings').where({ key: 'agent_rollout' }).first()).value, { mode: 'canary' });
  });
});
