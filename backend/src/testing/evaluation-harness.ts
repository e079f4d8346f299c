/**
 * Tests of the evaluation run: the real service on a real PostgreSQL database
 * (migrated, default rules seeded), a real Redis bus whose `alert` and `systems`
 * events are recorded, a real SMTP sink behind the real mailer, and a fake
 * clock. Agents' reports are written the way ingest writes them (metric_latest,
 * last_seen_at, status back to ONLINE), since that table is the contract.
 */
import { auditTrailOn } from './audit.js';
import type { Knex } from 'knex';
import { ensureDefaultRules } from '../../../db/seed-rules.js';
import type { AlertEvent } from '../alerts/alert-json.js';
import type { Bus } from '../bus/bus.js';
import { createRedisBus } from '../bus/redis-bus.js';
import { FakeClock } from '../lib/clock.js';
import { randomToken } from '../lib/crypto.js';
import { createRedisClient, waitUntilReady } from '../lib/redis.js';
import { createSecretBox } from '../lib/secret-box.js';
import { createMailer } from '../mail/smtp-mailer.js';
import { createNotificationsRepo } from '../notifications/repo.js';
import { createRoutingRepo } from '../notifications/routing-repo.js';
import { createAlertNotifier } from '../notifications/service.js';
import { createDeliveriesRepo } from '../notifications/deliveries-repo.js';
import { createForecastSettingsRepo } from '../settings/forecast/repo.js';
import { createForecastSettingsService } from '../settings/forecast/service.js';
import { createSmtpSettingsService } from '../settings/smtp/service.js';
import { createAccount, createCustomer } from './accounts.js';
import { createTestDatabase, type TestDatabase } from './database.js';
import { captureLogger } from './logger.js';
import { freePort } from './net.js';
import { SHARED_REDIS_URL, testPrefix } from './redis.js';
import { startSmtpSink, type SmtpSink } from './smtp-sink.js';
import { createEvaluationRepos } from '../evaluation/assembly.js';
import { createEvaluation, type Evaluation } from '../evaluation/service.js';

export const AUTH_URL = 'https://argus.example.com';
export const MINUTE = 60_000;

export interface Sample {
  name: string;
  instance?: string;
  value: number;
}

let counter = 0;

/** Records what is published on a bus (Redis pub/sub) and can wait until everything sent so far arrived. */
export async function recordBus(bus: Bus) {
  const alerts: AlertEvent[] = [];
  const systems: { id: number }[] = [];
  const marks = new Set<string>();
  const offs = [
    await bus.subscribe('alert', (event) => alerts.push(event as AlertEvent)),
    await bus.subscribe('systems', (event) => systems.push(event as { id: number })),
    await bus.subscribe('test-flush', (event) => marks.add((event as { mark: string }).mark)),
  ];
  return {
    alerts,
    systems,
    /** Redis delivers in order: once our marker arrived, everything published before it has too. */
    async flush(): Promise<void> {
      const mark = randomToken(8);
      await bus.publish('test-flush', { mark });
      const deadline = Date.now() + 5000;
      while (!marks.has(mark)) {
        if (Date.now() > deadline) throw new Error('bus flush timed out');
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    },
    async stop() {
      for (const off of offs) await off();
    },
  };
}

export async function startEvaluationHarness() {
  const db: TestDatabase = await createTestDatabase();
  await ensureDefaultRules(db.knex);
  const knex: Knex = db.knex;
  const clock = new FakeClock(new Date('2026-03-02T12:00:00.000Z'));
  const logs = captureLogger();
  const publisher = createRedisClient(SHARED_REDIS_URL, logs.log);
  const subscriber = createRedisClient(SHARED_REDIS_URL, logs.log, { subscriber: true });
  await waitUntilReady(publisher, 2000);
  const bus = createRedisBus({ publisher, subscriber, prefix: testPrefix(), log: logs.log });
  const recorded = await recordBus(bus);
  const sink: SmtpSink = await startSmtpSink();
  const box = createSecretBox({ settingsEncryptionKey: null, authSecret: 'e'.repeat(40) }, logs.log);
  const smtp = createSmtpSettingsService({ db: knex, audit: auditTrailOn(knex), box });
  const mailer = createMailer({ smtp, log: logs.log });
  const notifier = createAlertNotifier({
    repo: createNotificationsRepo(knex),
    deliveries: createDeliveriesRepo(knex),
    routing: createRoutingRepo(knex),
    box,
    allowPrivateWebhooks: true,
    channelTimeoutMs: 2000,
    mailer,
    clock,
    log: logs.log,
    authUrl: AUTH_URL,
  });
  const repos = createEvaluationRepos(knex);
  const evaluation: Evaluation = createEvaluation({
    db: knex,
    repos,
    bus,
    clock,
    log: logs.log,
    mailer,
    notifier,
    forecastSettings: createForecastSettingsService({
      repo: createForecastSettingsRepo(knex),
      audit: auditTrailOn(knex),
    }),
  });

  async function setMail(options: { enabled: boolean; port?: number }): Promise<void> {
    await smtp.update({
      enabled: options.enabled,
      host: '127.0.0.1',
      port: options.port ?? sink.port,
      encryption: 'none',
      user: '',
      fromAddress: 'argus@example.com',
      fromName: 'Argus',
    });
  }
  await setMail({ enabled: true });

  async function customer(options: { timeZone?: string; active?: boolean } = {}): Promise<number> {
    const id = await createCustomer(knex, `Evaluation customer ${++counter}`);
    await knex('customers')
      .where({ id })
      .update({ time_zone: options.timeZone ?? 'UTC', active: options.active ?? true });
    return id;
  }

  async function cluster(customerId: number): Promise<number> {
    const [row] = await knex('clusters')
      .insert({ customer_id: customerId, name: `cluster-${++counter}`, enrollment_key: randomToken(16) })
      .returning<{ id: number }[]>('id');
    return (row as { id: number }).id;
  }

  /** A system that has just reported (ONLINE), in a cluster of a (new) customer unless given. */
  async function system(
    options: {
      customerId?: number;
      clusterId?: number | null;
      status?: string;
      offlineAlerts?: boolean;
      name?: string;
    } = {},
  ): Promise<{ id: number; customerId: number; clusterId: number | null }> {
    const customerId = options.customerId ?? (await customer());
    const clusterId = options.clusterId === undefined ? await cluster(customerId) : options.clusterId;
    const status = options.status ?? 'ONLINE';
    const name = options.name ?? `host-${++counter}`;
    const [row] = await knex('systems')
      .insert({
        customer_id: customerId,
        cluster_id: clusterId,
        name,
        hostname: `${name}.example.net`,
        status,
        offline_alerts: options.offlineAlerts ?? true,
        last_seen_at: status === 'PENDING' ? null : clock.now(),
      })
      .returning<{ id: number }[]>('id');
    return { id: (row as { id: number }).id, customerId, clusterId };
  }

  /** What ingest does for stored reports at the clock's now (newest values, last seen, status back to ONLINE). */
  async function reportMany(reports: readonly { systemId: number; samples: readonly Sample[] }[], ageMs = 0) {
    const time = new Date(clock.now().getTime() - ageMs);
    const rows = reports.flatMap(({ systemId, samples }) =>
      samples.map((s) => ({ system_id: systemId, name: s.name, instance: s.instance ?? '', value: s.value, time })),
    );
    // the view's INSTEAD OF trigger sets each series (db/migrations/0018)
    if (rows.length) await knex('metric_latest').insert(rows);
    await knex.raw(
      `UPDATE systems SET last_seen_at = GREATEST(last_seen_at, ?),
              status = CASE WHEN status IN ('WARNING', 'CRITICAL') THEN status ELSE 'ONLINE' END
        WHERE id = ANY(?::int[])`,
      [time, reports.map((r) => r.systemId)],
    );
  }

  function report(systemId: number, samples: readonly Sample[], ageMs = 0): Promise<void> {
    return reportMany([{ systemId, samples }], ageMs);
  }

  async function agentEvent(
    systemId: number,
    event: { type: string; severity?: string; message?: string; ageMs?: number },
  ): Promise<void> {
    const now = clock.now();
    await knex('agent_events').insert({
      system_id: systemId,
      time: new Date(now.getTime() - (event.ageMs ?? 0)),
      type: event.type,
      severity: event.severity ?? 'INFO',
      message: event.message ?? '',
      received_at: now,
    });
  }

  /** One run, then waits for its e-mails and its bus events. */
  async function run() {
    const result = await evaluation.run();
    await evaluation.settled();
    await recorded.flush();
    return result;
  }

  async function openAlerts(systemId?: number) {
    const query = knex('alerts').where({ state: 'open' }).orderBy('id');
    if (systemId !== undefined) query.where({ system_id: systemId });
    return query.select('*');
  }

  async function statusOf(systemId: number): Promise<string> {
    return (await knex('systems').where({ id: systemId }).first('status')).status;
  }

  async function deadSmtpPort(): Promise<number> {
    return freePort();
  }

  return {
    db,
    knex,
    box,
    notifier,
    clock,
    logs,
    bus,
    recorded,
    sink,
    repos,
    evaluation,
    setMail,
    customer,
    cluster,
    system,
    report,
    reportMany,
    agentEvent,
    run,
    openAlerts,
    statusOf,
    deadSmtpPort,
    account: (input: Parameters<typeof createAccount>[1]) => createAccount(knex, input),
    async close() {
      await evaluation.settled();
      await recorded.stop();
      await bus.close();
      publisher.disconnect();
      subscriber.disconnect();
      await sink.close();
      await db.drop();
    },
  };
}

export type EvaluationHarness = Awaited<ReturnType<typeof startEvaluationHarness>>;

/** Runs `fn` on a fresh harness and closes it whatever happens. */
export async function withHarness(fn: (h: EvaluationHarness) => Promise<void>): Promise<void> {
  const h = await startEvaluationHarness();
  try {
    await fn(h);
  } finally {
    await h.close();
  }
}
