/**
 * `npm run bench -- live`: N dashboards (default 1,000) hold
 * `/api/live` open, subscribed to `alert` and `systems.list`, spread over a few
 * accounts (several audiences). Each round inserts an open alert and publishes
 * its transition on the bus, as the evaluation run does; the bench times the
 * publish → the last client's `msg`, and → the last client's re-pushed `snap`
 * (the system's open-alert count changed). Then the app's memory per idle
 * connection (heap + buffers after GC, and RSS, with N vs. no connections).
 * Figures only; nothing passes or fails.
 *
 *   npm run bench -- live [--clients 1000] [--rounds 20]
 */
import { SYSTEM_ACTOR } from '../../backend/src/lib/audit-trail.js';
import { auditTrailOn } from '../../backend/src/testing/audit.js';
import { fork } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import WebSocket from 'ws';
import type { AlertEvent } from '../../backend/src/alerts/alert-json.js';
import { createRedisBus } from '../../backend/src/bus/redis-bus.js';
import { systemClock } from '../../backend/src/lib/clock.js';
import { createLogger } from '../../db/logger.js';
import { createRedisClient, waitUntilReady } from '../../backend/src/lib/redis.js';
import { createAccount, createCustomer } from '../../backend/src/testing/accounts.js';
import { createTestDatabase } from '../../backend/src/testing/database.js';
import { SHARED_REDIS_URL, testPrefix } from '../../backend/src/testing/redis.js';
import { createTokensRepo } from '../../backend/src/tokens/repo.js';
import { createTokensService } from '../../backend/src/tokens/service.js';

interface Mem {
  rss: number;
  heapUsed: number;
  external: number;
  arrayBuffers: number;
  connections: number;
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;

export async function benchLive(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: { clients: { type: 'string', default: '1000' }, rounds: { type: 'string', default: '20' } },
  });
  const clientCount = Number(values.clients);
  const rounds = Number(values.rounds);
  const log = createLogger({ level: 'warn', name: 'bench-live' });
  const db = await createTestDatabase();
  const prefix = testPrefix();

  // a fleet of 3 customers × 20 systems; accounts: an admin and viewers with different grants
  const customers = [
    await createCustomer(db.knex, 'Bench A'),
    await createCustomer(db.knex, 'Bench B'),
    await createCustomer(db.knex, 'Bench C'),
  ];
  const systemIds: number[] = [];
  for (const customerId of customers)
    for (let i = 0; i < 20; i += 1) {
      const [row] = await db
        .knex('systems')
        .insert({
          customer_id: customerId,
          name: `host-${customerId}-${i}`,
          status: 'ONLINE',
          last_seen_at: new Date(),
        })
        .returning<{ id: number }[]>('id');
      systemIds.push((row as { id: number }).id);
    }
  const [a, b, c] = customers as [number, number, number];
  const grants: (number[] | null)[] = [null, [a], [a, b], [a, c], [a, b, c]];
  const tokens = createTokensService({
    repo: createTokensRepo(db.knex),
    clock: systemClock,
    audit: auditTrailOn(db.knex),
  });
  const bearerTokens: string[] = [];
  for (const grant of grants) {
    const account = await createAccount(db.knex, grant ? { role: 'VIEWER', customerIds: grant } : { role: 'ADMIN' });
    bearerTokens.push((await tokens.create(SYSTEM_ACTOR, account.id, 'bench', null)).token);
  }

  const here = path.dirname(fileURLToPath(import.meta.url));
  const child = fork(path.join(here, 'live-server.ts'), [db.url, prefix], {
    execArgv: ['--expose-gc', '--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const ask = async <T>(message: object, type: string): Promise<T> => {
    const answer = new Promise<T>((resolve) => {
      const onMessage = (m: { t: string }) => {
        if (m.t !== type) return;
        child.off('message', onMessage);
        resolve(m as T);
      };
      child.on('message', onMessage);
    });
    child.send(message);
    return answer;
  };
  const [ready] = (await once(child, 'message')) as [{ port: number }];
  const url = `ws://127.0.0.1:${ready.port}/api/live`;

  const publisher = createRedisClient(SHARED_REDIS_URL, log);
  const subscriber = createRedisClient(SHARED_REDIS_URL, log, { subscriber: true });
  await waitUntilReady(publisher, 2000);
  const bus = createRedisBus({ publisher, subscriber, prefix, log });

  try {
    const idle = await ask<Mem>({ t: 'mem' }, 'mem');
    // clients: the receive time of the newest msg and snap per client
    const lastMsg = new Float64Array(clientCount);
    const lastSnap = new Float64Array(clientCount);
    const msgCount = new Int32Array(clientCount);
    const snapCount = new Int32Array(clientCount);
    const sockets: WebSocket[] = [];
    const openStarted = performance.now();
    for (let batch = 0; batch < clientCount; batch += 100) {
      await Promise.all(
        Array.from({ length: Math.min(100, clientCount - batch) }, async (_, j) => {
          const i = batch + j;
          const ws = new WebSocket(url, {
            headers: { authorization: `Bearer ${bearerTokens[i % bearerTokens.length]}` },
          });
          sockets.push(ws);
          ws.on('message', (data) => {
            const text = data.toString();
            if (text.startsWith('{"t":"msg"')) {
              lastMsg[i] = performance.now();
              msgCount[i] = (msgCount[i] ?? 0) + 1;
            } else if (text.startsWith('{"t":"snap"')) {
              lastSnap[i] = performance.now();
              snapCount[i] = (snapCount[i] ?? 0) + 1;
            }
          });
          await once(ws, 'open');
          ws.send(JSON.stringify({ t: 'sub', sid: 'alerts', topic: 'alert', after: null }));
          ws.send(JSON.stringify({ t: 'sub', sid: 'fleet', topic: 'systems.list', after: null }));
        }),
      );
    }
    const waitUntil = async (check: () => boolean, timeoutMs = 30_000) => {
      const deadline = Date.now() + timeoutMs;
      while (!check()) {
        if (Date.now() > deadline) throw new Error('timed out');
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    };
    await waitUntil(() => snapCount.every((n) => n >= 1));
    console.log(
      `live: ${clientCount} clients connected and subscribed in ${((performance.now() - openStarted) / 1000).toFixed(1)} s`,
    );
    await new Promise((resolve) => setTimeout(resolve, 500));
    const loaded = await ask<Mem>({ t: 'mem' }, 'mem');

    const msgTimes: number[] = [];
    const snapTimes: number[] = [];
    for (let round = 0; round < rounds; round += 1) {
      const systemId = systemIds[round % systemIds.length] as number;
      const customerId = a; // everyone sees customer A, so every client gets the msg
      const [row] = await db
        .knex('alerts')
        .insert({
          rule_key: `bench.${round}`,
          rule_kind: 'metric',
          system_id: systemIds[round % 20] ?? systemId,
          customer_id: customerId,
          severity: 'CRITICAL',
          started_at: new Date(),
        })
        .returning<{ id: number }[]>('id');
      const event: AlertEvent = {
        type: 'raised',
        alert: {
          id: Number((row as { id: number }).id),
          ruleKey: `bench.${round}`,
          severity: 'CRITICAL',
          systemId: systemIds[round % 20] ?? systemId,
          customerId,
          instance: '',
          value: 1,
          message: 'bench',
          state: 'open',
          acknowledged: false,
          startedAt: new Date().toISOString(),
          resolvedAt: null,
        },
      };
      const msgsBefore = msgCount.reduce((s, n) => s + n, 0);
      const snapsBefore = Array.from(snapCount);
      const published = performance.now();
      await bus.publish('alert', event);
      await waitUntil(() => msgCount.reduce((s, n) => s + n, 0) === msgsBefore + clientCount);
      msgTimes.push(Math.max(...lastMsg) - published);
      await waitUntil(() => snapCount.every((n, i) => n > (snapsBefore[i] ?? 0)));
      snapTimes.push(Math.max(...lastSnap) - published);
      await new Promise((resolve) => setTimeout(resolve, 300)); // past the 250 ms snapshot window
    }
    msgTimes.sort((x, y) => x - y);
    snapTimes.sort((x, y) => x - y);
    const perConnection = (loaded.heapUsed + loaded.external - idle.heapUsed - idle.external) / clientCount;
    console.log(
      `live: publish → last of ${clientCount} clients, alert msg: p50 ${percentile(msgTimes, 50).toFixed(1)} ms, ` +
        `p99 ${percentile(msgTimes, 99).toFixed(1)} ms, max ${(msgTimes.at(-1) ?? 0).toFixed(1)} ms (${rounds} publishes)`,
    );
    console.log(
      `live: publish → last of ${clientCount} clients, systems.list snap (5 audiences): p50 ${percentile(snapTimes, 50).toFixed(1)} ms, ` +
        `p99 ${percentile(snapTimes, 99).toFixed(1)} ms`,
    );
    console.log(
      `live: app memory per idle connection: ${kib(perConnection)} heap+external after GC, ` +
        `${kib((loaded.rss - idle.rss) / clientCount)} RSS (${loaded.connections} connections; RSS ${(loaded.rss / 1048576).toFixed(0)} MiB)`,
    );
    for (const ws of sockets) ws.terminate();
  } finally {
    child.send({ t: 'stop' });
    await Promise.race([once(child, 'exit'), new Promise((resolve) => setTimeout(resolve, 5000))]);
    child.kill('SIGKILL');
    await bus.close();
    publisher.disconnect();
    subscriber.disconnect();
    await db.drop();
  }
}
