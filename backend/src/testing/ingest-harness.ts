/**
 * Tests of the agent webhook: the ingest router on a small Koa app with the
 * real error middleware, a real PostgreSQL database, real Redis rate limits and
 * a real HTTP port. Agents are built here (tokens, bodies, bound systems).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import Koa from 'koa';
import { signAgentToken, type AgentTokenOptions } from './agent-token.js';
import type { Redis } from 'ioredis';
import { createMemoryBus } from '../bus/memory-bus.js';
import { parseBodies } from '../http/body.js';
import { clientAddress } from '../http/client-ip.js';
import { errorMiddleware } from '../http/error-middleware.js';
import { FakeClock } from '../lib/clock.js';
import { randomToken, sha256 } from '../lib/crypto.js';
import { createRedisClient, waitUntilReady } from '../lib/redis.js';
import { createCustomer } from './accounts.js';
import { createTestDatabase, type TestDatabase } from './database.js';
import { captureLogger } from './logger.js';
import { SHARED_REDIS_URL, testPrefix } from './redis.js';
import { assembleIngest, type IngestDeps, type IngestFeature } from '../ingest/assembly.js';

export const SECRET = 'ingest-test-webhook-secret-0123456789abcdef';
export const PATH = '/api/webhook/metrics';

export interface Reply {
  status: number;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON shapes
  text: string;
  headers: http.IncomingHttpHeaders;
}

export interface PostOptions {
  token?: string | null;
  headers?: Record<string, string>;
  gzip?: boolean;
  /** Client address as our proxy would append it. */
  ip?: string;
  /** Send without Content-Length, in 64 KiB chunks. */
  chunked?: boolean;
}

export type TokenOptions = Partial<AgentTokenOptions>;

let agentCounter = 0;

export async function startIngestHarness(
  overrides: Partial<IngestDeps> = {},
  options: { parseBodiesFirst?: boolean } = {},
) {
  const db: TestDatabase = await createTestDatabase();
  const logs = captureLogger();
  const clock = new FakeClock(new Date(Math.floor(Date.now() / 1000) * 1000));
  const bus = createMemoryBus();
  const published: { topic: string; event: unknown }[] = [];
  const realPublish = bus.publish.bind(bus);
  bus.publish = (topic, event) => {
    published.push({ topic, event: JSON.parse(JSON.stringify(event)) });
    return realPublish(topic, event);
  };
  const redis: Redis = createRedisClient(SHARED_REDIS_URL, logs.log);
  await waitUntilReady(redis, 2000);
  const feature: IngestFeature = assembleIngest({
    db: db.knex,
    bus,
    clock,
    log: logs.log,
    webhookSecret: SECRET,
    rawRetentionMs: 7 * 86_400_000,
    rateLimitStore: { kind: 'redis', client: redis, prefix: testPrefix() },
    ...overrides,
  });
  const app = new Koa();
  app.silent = true;
  app.use(errorMiddleware(logs.log));
  app.use(async (ctx, next) => {
    ctx.state.clientIp = clientAddress(ctx.get('x-forwarded-for') || undefined, ctx.req.socket.remoteAddress);
    await next();
  });
  if (options.parseBodiesFirst) app.use(parseBodies()); // the wrong assembly, on purpose
  app.use(feature.router.routes()).use(feature.router.allowedMethods());
  const server = http.createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;

  function token(sub: string, options: TokenOptions = {}): Promise<string> {
    return signAgentToken(sub, { now: clock.now(), ...options, secret: options.secret ?? SECRET });
  }

  function post(body: unknown, options: PostOptions = {}): Promise<Reply> {
    let payload: Buffer =
      typeof body === 'string' ? Buffer.from(body) : Buffer.isBuffer(body) ? body : Buffer.from(JSON.stringify(body));
    const headers: Record<string, string> = { 'content-type': 'application/json', ...options.headers };
    if (options.gzip) {
      payload = gzipSync(payload);
      headers['content-encoding'] = 'gzip';
    }
    if (options.token) headers['authorization'] = `Bearer ${options.token}`;
    if (options.ip) headers['x-forwarded-for'] = options.ip;
    if (!options.chunked) headers['content-length'] = String(payload.length);
    return new Promise((resolve, reject) => {
      let answered = false;
      const request = http.request({ host: '127.0.0.1', port, path: PATH, method: 'POST', headers }, (response) => {
        answered = true;
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: unknown = text;
          try {
            parsed = text ? JSON.parse(text) : null;
          } catch {
            // not JSON
          }
          resolve({ status: response.statusCode ?? 0, body: parsed, text, headers: response.headers });
        });
      });
      // the server may answer (413, 401) and close before it read all we send
      request.on('error', (error) => (answered ? undefined : reject(error)));
      if (!options.chunked) request.end(payload);
      else {
        for (let at = 0; at < payload.length; at += 65_536) request.write(payload.subarray(at, at + 65_536));
        request.end();
      }
    });
  }

  async function cluster(customerId?: number) {
    const customer = customerId ?? (await createCustomer(db.knex));
    const enrollmentKey = randomToken(16);
    const [row] = await db
      .knex('clusters')
      .insert({ customer_id: customer, name: `cluster-${++agentCounter}`, enrollment_key: enrollmentKey })
      .returning<{ id: number }[]>('id');
    return { id: (row as { id: number }).id, customerId: customer, enrollmentKey };
  }

  /** A system already bound to its agent key, as after its first report. */
  async function boundAgent(status = 'ONLINE') {
    const { id: clusterId, customerId } = await cluster();
    const sub = `machine-${++agentCounter}-${randomToken(4)}`;
    const ak = randomToken(32);
    const [row] = await db
      .knex('systems')
      .insert({
        customer_id: customerId,
        cluster_id: clusterId,
        name: sub,
        agent_id: sub,
        agent_key_hash: sha256(ak),
        status,
      })
      .returning<{ id: number }[]>('id');
    const systemId = (row as { id: number }).id;
    return { sub, ak, systemId, token: (options: TokenOptions = {}) => token(sub, { ak, ...options }) };
  }

  async function metricCount(systemId?: number): Promise<number> {
    const query = db.knex('metric_samples').count<{ n: string }[]>('* as n');
    if (systemId !== undefined) query.where({ system_id: systemId });
    const [row] = await query;
    return Number(row?.n ?? 0);
  }

  return {
    db,
    clock,
    logs,
    feature,
    bus,
    published,
    url: `http://127.0.0.1:${port}`,
    token,
    post,
    cluster,
    boundAgent,
    metricCount,
    /** A report at `offsetMs` from the clock's now with `count` samples. */
    report(offsetMs = 0, count = 3, extra: Record<string, unknown> = {}) {
      return {
        ts: new Date(clock.now().getTime() + offsetMs).toISOString(),
        metrics: Array.from({ length: count }, (_, i) => ({ name: `test.m${i}`, value: i + 0.5 })),
        ...extra,
      };
    },
    async close() {
      await new Promise((resolve) => server.close(resolve));
      await feature.close();
      redis.disconnect();
      await bus.close();
      await db.drop();
    },
  };
}

export type IngestHarness = Awaited<ReturnType<typeof startIngestHarness>>;
