import assert from 'node:assert/strict';
import { SYSTEM_ACTOR } from '../lib/audit-trail.js';
import { auditTrailOn } from '../testing/audit.js';
import http from 'node:http';
import { after, before, describe, it } from 'node:test';
import Koa from 'koa';
import { koaBody } from 'koa-body';
import { authenticate } from '../auth/authenticate.js';
import { createSessionRepo } from '../auth/session-repo.js';
import { createSessions } from '../auth/sessions.js';
import { createMemoryBus } from '../bus/memory-bus.js';
import { errorMiddleware } from '../http/error-middleware.js';
import { systemClock } from '../lib/clock.js';
import { createPasswordHasher } from '../lib/password-hasher.js';
import { createRateLimiter } from '../ratelimit/rate-limiter.js';
import { createAccount, createCustomer } from '../testing/accounts.js';
import { createTestDatabase, type TestDatabase } from '../testing/database.js';
import { captureLogger } from '../testing/logger.js';
import { freePort } from '../testing/net.js';
import { createTokensRepo } from '../tokens/repo.js';
import { createTokensService } from '../tokens/service.js';
import { createUsersRepo } from '../users/repo.js';
import { createUsersService } from '../users/service.js';
import { createAgentDist } from './dist.js';
import { createAgentsRepo } from './repo.js';
import { createAgentUpdates } from './rollout.js';
import { createOriginRule } from '../http/origin.js';
import { agentRoutes } from './routes.js';
import { mountRoutes } from '../http/route.js';
import { createAgentEndpoints } from './service.js';

const SECRET = 'webhook-secret "quoted" \\ #not-a-comment: 0123456789';
const KEY_A = 'enrollA_0123456789abcdefghijklmn';
const KEY_B = 'enrollB_0123456789abcdefghijklmn';

describe('GET /api/agent/config', () => {
  const logs = captureLogger();
  const hasher = createPasswordHasher(4, 1);
  const servers: http.Server[] = [];
  let db: TestDatabase;
  let base: string;
  let bare: string; // WEBHOOK_SECRET unset
  const tokens: Record<string, string> = {};
  const clusters: Record<string, number> = {};

  /** The agent router behind the real authentication (bearer tokens, grants read per request). */
  async function serve(webhookSecret: string | null): Promise<string> {
    const { knex } = db;
    const port = await freePort();
    const publicUrl = `http://127.0.0.1:${port}`;
    const dist = createAgentDist({ dir: '/nonexistent', publicUrl, clock: systemClock, log: logs.log });
    const limiter = (name: string, points: number) =>
      createRateLimiter({ kind: 'memory' }, { name, points, durationSeconds: 600 }, logs.log);
    const endpoints = createAgentEndpoints({
      repo: createAgentsRepo(knex),
      dist,
      webhookSecret,
      keyFailures: limiter('agent-key', 3),
    });
    const app = new Koa();
    app.silent = true;
    app.use(errorMiddleware(logs.log));
    app.use(async (ctx, next) => {
      ctx.state.clientIp = ctx.get('x-test-ip') || '127.0.0.1';
      await next();
    });
    app.use(koaBody());
    app.use(
      authenticate({
        sessions: createSessions({ repo: createSessionRepo(knex), clock: systemClock, authSecret: 'x'.repeat(40) }),
        tokens: createTokensService({ repo: createTokensRepo(knex), clock: systemClock, audit: auditTrailOn(knex) }),
        users: createUsersService({
          db: knex,
          repo: createUsersRepo(knex),
          hasher,
          bus: createMemoryBus(),
          audit: auditTrailOn(knex),
        }),
        bearerFailures: limiter('bearer', 100),
        origins: createOriginRule(publicUrl),
      }),
    );
    const updates = createAgentUpdates({
      db: knex,
      dist,
      clock: systemClock,
      log: logs.log,
      audit: auditTrailOn(knex),
    });
    const router = mountRoutes(agentRoutes, { endpoints, updates });
    app.use(router.routes()).use(router.allowedMethods());
    const server = http.createServer(app.callback());
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    return publicUrl;
  }

  async function get(url: string, options: { token?: string | undefined; ip?: string } = {}) {
    const headers: Record<string, string> = {};
    if (options.token) headers['authorization'] = `Bearer ${options.token}`;
    if (options.ip) headers['x-test-ip'] = options.ip;
    const response = await fetch(url, { headers });
    const text = await response.text();
    const json = response.headers.get('content-type')?.startsWith('application/json') ? JSON.parse(text) : null;
    return { status: response.status, headers: response.headers, text, json };
  }

  const config = (query: string, token?: string) => get(`${base}/api/agent/config${query}`, { token });

  before(async () => {
    db = await createTestDatabase();
    const a = await createCustomer(db.knex);
    const b = await createCustomer(db.knex);
    for (const [name, customer, key] of [
      ['a', a, KEY_A],
      ['b', b, KEY_B],
    ] as const) {
      const [row] = await db
        .knex('clusters')
        .insert({ customer_id: customer, name: `cluster ${name}`, enrollment_key: key })
        .returning<{ id: number }[]>('id');
      clusters[name] = row?.id ?? 0;
    }
    const tokenService = createTokensService({
      repo: createTokensRepo(db.knex),
      clock: systemClock,
      audit: auditTrailOn(db.knex),
    });
    for (const [name, role, customerIds] of [
      ['admin', 'ADMIN', []],
      ['operatorA', 'OPERATOR', [a]],
      ['operatorB', 'OPERATOR', [b]],
      ['viewerA', 'VIEWER', [a]],
    ] as const) {
      const account = await createAccount(db.knex, { role, customerIds: [...customerIds] });
      tokens[name] = (await tokenService.create(SYSTEM_ACTOR, account.id, name, null)).token;
    }
    base = await serve(SECRET);
    bare = await serve(null);
  });

  after(async () => {
    for (const server of servers) await new Promise((resolve) => server.close(resolve));
    await hasher.close();
    await db.drop();
  });

  it('answers 500 "Server misconfigured" exactly while WEBHOOK_SECRET is unset', async () => {
    const reply = await get(`${bare}/api/agent/config?key=${KEY_A}`);
    assert.equal(reply.status, 500);
    assert.deepEqual(reply.json, { error: 'Server misconfigured' });
  });

  it('answers 401 {error: "Unauthorized"} without a valid key or a signed-in account', async () => {
    for (const query of ['', '?key=enrollX_0123456789abcdefghijklmn', '?key=bad', `?cluster=${clusters['a']}`]) {
      const reply = await get(`${base}/api/agent/config${query}`, { ip: '10.0.0.1' });
      assert.equal(reply.status, 401, query);
      assert.deepEqual(reply.json, { error: 'Unauthorized' });
    }
  });

  it('gives the YAML to a valid enrollment key, every value quoted', async () => {
    const reply = await config(`?key=${KEY_A}`);
    assert.equal(reply.status, 200);
    assert.match(reply.headers.get('content-type') ?? '', /^text\/yaml/);
    assert.equal(reply.headers.get('cache-control'), 'no-store');
    assert.deepEqual(
      reply.text.split('\n').filter((line) => !line.startsWith('#')),
      [
        `webhook_url: "${base}/api/webhook/metrics"`,
        'webhook_secret: "webhook-secret \\"quoted\\" \\\\ #not-a-comment: 0123456789"',
        `enrollment: "${KEY_A}"`,
        '',
      ],
    );
  });

  it("gives it to an admin or an operator of the cluster's customer, and to nobody else", async () => {
    const mine = await config(`?cluster=${clusters['a']}`, tokens['operatorA']);
    assert.equal(mine.status, 200);
    assert.match(mine.text, new RegExp(`^enrollment: "${KEY_A}"$`, 'm'));
    assert.match((await config(`?cluster=${clusters['b']}`, tokens['admin'])).text, new RegExp(KEY_B));
    assert.equal((await config(`?cluster=${clusters['a']}`, tokens['operatorB'])).status, 403);
    assert.equal((await config(`?cluster=${clusters['a']}`, tokens['viewerA'])).status, 403);
    // a cluster that does not exist is refused like another customer's (its existence is not leaked)
    assert.equal((await config('?cluster=999999', tokens['operatorA'])).status, 403);
    assert.equal((await config('?cluster=999999', tokens['admin'])).status, 404);
    assert.equal((await config('', tokens['operatorA'])).status, 400);
  });

  it('limits failed key checks per client address (429 with Retry-After)', async () => {
    const wrong = `${base}/api/agent/config?key=enrollZ_0123456789abcdefghijklmn`;
    for (let i = 0; i < 3; i += 1) assert.equal((await get(wrong, { ip: '10.9.9.9' })).status, 401);
    const limited = await get(`${base}/api/agent/config?key=${KEY_A}`, { ip: '10.9.9.9' });
    assert.equal(limited.status, 429);
    assert.ok(Number(limited.headers.get('retry-after')) > 0);
    assert.equal((await get(`${base}/api/agent/config?key=${KEY_A}`, { ip: '10.9.9.10' })).status, 200);
  });
});
