/**
 * The feature graph of the composition root: one line per feature, in dependency order. Each
 * feature's `assembly.ts` builds its repos, services and routes from the shared core (db, bus,
 * clock, logger, secret box, rate limits, audit) and the services of the features it names in its
 * signature, so every repo and service exists once. Only app.ts (the HTTP pipeline that mounts what
 * this returns) and tests import it.
 */
import type Koa from 'koa';
import type Router from '@koa/router';
import type { Redis } from 'ioredis';
import type { Knex } from 'knex';
import { assembleAgentSettings } from './agent-settings/assembly.js';
import { assembleAgents } from './agents/assembly.js';
import { assembleAlerts } from './alerts/assembly.js';
import { assembleAudit } from './audit/assembly.js';
import { assembleAuth } from './auth/assembly.js';
import type { Bus } from './bus/bus.js';
import { assembleChannels } from './channels/assembly.js';
import { assembleChecks } from './checks/assembly.js';
import type { AppConfig } from './config.js';
import { assembleCustomers } from './customers/assembly.js';
import { assembleEvaluation } from './evaluation/assembly.js';
import { assembleHealth } from './health/assembly.js';
import { assembleHousekeeping } from './housekeeping/assembly.js';
import type { OriginRule } from './http/origin.js';
import { assembleIngest } from './ingest/assembly.js';
import type { Clock } from './lib/clock.js';
import type { Logger } from './lib/logger.js';
import type { PasswordHasher } from './lib/password-hasher.js';
import type { SecretBox } from './lib/secret-box.js';
import { assembleLive } from './live/assembly.js';
import { assembleMaintenance } from './maintenance/assembly.js';
import { assembleNotifications } from './notifications/assembly.js';
import { assembleOverview } from './overview/assembly.js';
import { assemblePasswordReset } from './password-reset/assembly.js';
import { limiterFactory, type RateLimitStore } from './ratelimit/rate-limiter.js';
import { assembleReports } from './reports/assembly.js';
import { assembleRules } from './rules/assembly.js';
import { createScopeRepo } from './scopes/repo.js';
import { assembleSearch } from './search/assembly.js';
import { checkSecretsKey } from './secrets/key-check.js';
import { createSecretsRepo } from './secrets/repo.js';
import { assembleSelfMetrics } from './self-metrics/assembly.js';
import type { SelfMetricsRegistry } from './self-metrics/registry.js';
import { assembleSettings } from './settings/assembly.js';
import { assembleSso } from './sso/assembly.js';
import { assembleStatusPages } from './status-pages/assembly.js';
import { assembleSystems } from './systems/assembly.js';

export interface AppDeps {
  config: AppConfig;
  log: Logger;
  db: Knex;
  redis: Redis | null;
  bus: Bus;
  rateLimitStore: RateLimitStore;
  clock: Clock;
  hasher: PasswordHasher;
  /** Seals and opens secrets stored in the database. */
  box: SecretBox;
  /** Base of the growing delay after failed sign-ins (tests make it tiny). */
  loginFailureDelayMs?: number;
  /** Tests: wraps every request, outside the error mapping, so it sees the final answer. */
  outermost?: Koa.Middleware;
}

/** How long housekeeping keeps audit rows, agent events and samples, from the configuration. */
function housekeepingRetention(config: AppConfig) {
  return {
    auditRetentionMs: config.auditRetention.ms,
    agentEventRetentionMs: config.retention.rawRetention.ms,
    sampleRetention: {
      rawMs: config.retention.rawRetention.ms,
      rollup5mMs: config.retention.rollup5mRetention.ms,
      rollup1hMs: config.retention.rollup1hRetention.ms,
    },
  };
}

/**
 * Every feature's assembly, in dependency order. `origins` is the one Origin rule of every
 * browser-facing check.
 */
function assembleFeatures(deps: AppDeps, origins: OriginRule, selfMetrics: SelfMetricsRegistry) {
  const { config, db, clock, log } = deps;
  const { authUrl, publicUrl, allowPrivateWebhooks } = config;
  const core = { db, bus: deps.bus, clock, log, box: deps.box, hasher: deps.hasher };
  const limiter = limiterFactory(deps.rateLimitStore, log);
  const auditLog = assembleAudit(core);
  // the scope lookup (customer, cluster or system) of rules, maintenance windows and status pages
  const shared = { ...core, limiter, audit: auditLog.audit, scopes: createScopeRepo(db) };

  const settings = assembleSettings(shared);
  const { mailer } = settings;
  const failureDelayMs = deps.loginFailureDelayMs ?? 250;
  const singleSignOn = config.sso !== null;
  const authSecret = config.authSecret;
  const auth = assembleAuth({ ...shared, mailer, origins, authSecret, authUrl, failureDelayMs, singleSignOn });
  const { authentication } = auth;
  const sso = assembleSso({ ...shared, config: config.sso, authUrl, sessions: auth.sessions, users: auth.users });
  const passwordReset = assemblePasswordReset({ ...shared, mailer, authUrl, origins });
  const webhookSecret = config.webhookSecret;
  const agents = assembleAgents({ ...shared, distDir: config.agentDistDir, publicUrl, webhookSecret });
  const { agentSettings, ...agentSettingsModule } = assembleAgentSettings(shared);
  // network checks: their routes, the runner main.ts starts, and the checks agents run
  const checks = assembleChecks({ ...shared, allowPrivate: config.allowPrivateChecks });
  const ingest = assembleIngest({
    ...core,
    webhookSecret,
    rawRetentionMs: config.retention.rawRetention.ms,
    maxNewSystemsPerClusterPerHour: config.enrollPerClusterPerHour,
    reportsPerSystemPerMinute: config.reportsPerSystemPerMinute,
    rateLimitStore: deps.rateLimitStore,
    updateOffer: (system) => agents.updates.offerAfterReport(system),
    effectiveSettings: (systemId) => agentSettings.effectiveSettingsForAgent(systemId),
    agentChecks: (system) => checks.agentChecks.assignedTo(system),
    checkRuns: (system, runs) => checks.agentChecks.recordRuns(system, runs),
    metrics: selfMetrics.ingest,
  });
  const notifications = assembleNotifications({ ...core, mailer, authUrl, allowPrivateWebhooks });
  const rules = assembleRules(shared);
  const { notifier } = notifications;
  const cronSecret = config.cronSecret;
  const evaluation = assembleEvaluation({
    ...core,
    mailer,
    notifier,
    rules: rules.rules,
    forecastSettings: settings.forecastSettings,
    cronSecret,
    metrics: selfMetrics.evaluation,
  });
  const maintenance = assembleMaintenance(shared);
  const alerts = assembleAlerts({ ...shared, notifications: notifier.acknowledgements(evaluation.suppressionNow) });
  const channels = assembleChannels({ ...shared, mailer, authUrl, allowPrivateWebhooks });
  const reports = assembleReports({ ...shared, mailer, authUrl, retention: settings.alertRetention });
  const statusPages = assembleStatusPages({ ...shared, reports: reports.reports, publicUrl });
  const customers = assembleCustomers({
    ...shared,
    publicUrl,
    enrollPerClusterPerHour: config.enrollPerClusterPerHour,
  });
  const systems = assembleSystems(shared);
  const overview = assembleOverview(core);
  const search = assembleSearch(core);
  const housekeeping = assembleHousekeeping({
    ...shared,
    alertRetention: settings.alertRetention,
    monthlyReports: reports.monthly,
    ...housekeepingRetention(config),
  });
  const troubledStorageJobs = () => housekeeping.housekeeping.troubledStorageJobs();
  const health = assembleHealth({ ...core, redis: deps.redis, troubledStorageJobs });
  const metricsToken = config.metricsToken;
  const metrics = assembleSelfMetrics({ metrics: selfMetrics, metricsToken, authentication });
  // the key of stored secrets, checked once at start (main.ts runs it before anything else starts)
  const secrets = createSecretsRepo(db);
  const secretsKeyCheck = () => checkSecretsKey({ repo: secrets, box: deps.box, log });
  const live = assembleLive({
    ...core,
    authentication,
    origins,
    systems: systems.systems,
    overview: overview.overview,
    metrics: selfMetrics.live,
  });
  // prettier-ignore
  return {
    auditLog, settings, auth, sso, passwordReset, agents, agentSettings: agentSettingsModule, ingest,
    notifications, rules, evaluation, maintenance, alerts, channels, reports, statusPages, customers, systems,
    overview, search, housekeeping, health, metrics, live, checks, secretsKeyCheck,
  };
}

/** The feature graph, as app.ts mounts it: what goes before authentication, then the routers in order. */
export function features(deps: AppDeps, origins: OriginRule, selfMetrics: SelfMetricsRegistry) {
  const f = assembleFeatures(deps, origins, selfMetrics);
  return {
    // health answers before authentication: a monitor with a stale token still sees it
    health: f.health.routes,
    // agents sign their own JWT and send gzip bodies up to 4 MiB: the webhook sits before the
    // console's body parser and bearer-token authentication
    agentIngest: f.ingest.router,
    // the scheduler's bearer is CRON_SECRET, not an API token: also before authentication
    cronEvaluation: f.evaluation.cronRoutes,
    // a scraper's bearer may be METRICS_TOKEN, no API token: it runs the authentication itself
    selfMetricsRoute: f.metrics.routes,
    authentication: f.auth.authentication,
    /** GET /status/<slug>: before authentication, so no cookie is read or written. */
    publicStatusPage: f.statusPages.publicPage,
    /** The `/api/live` hub on the app (the WebSocket upgrade is not a Koa route; see live/assembly.ts). */
    liveHub: f.live.hub,
    /** The hourly housekeeping: main.ts starts and stops it. */
    housekeeping: f.housekeeping.housekeeping,
    /** The network checks run from the server: main.ts starts it. */
    checkRunner: f.checks.runner,
    /** The start-up check of the key that seals stored secrets: main.ts runs it. */
    secretsKeyCheck: f.secretsKeyCheck,
    routers: [
      f.auth.routes,
      // single sign-on with an OpenID provider configured by OIDC_* (sso/)
      f.sso,
      f.auth.usersRoutes,
      f.auth.tokensRoutes,
      f.auth.secondFactorRoutes,
      f.customers.routes,
      f.customers.enrollmentRoutes,
      f.systems.routes,
      f.evaluation.forecastRoutes,
      f.live.routes,
      f.agents.routes,
      f.agents.rolloutRoutes,
      f.passwordReset.routes,
      f.settings.smtpRoutes,
      // alerting management: rules, maintenance windows, alerts, alert retention
      // the preview first: POST /api/alert-rules/preview would otherwise meet the rules' /:id
      f.evaluation.previewRoutes,
      f.rules.routes,
      f.maintenance.routes,
      f.alerts.routes,
      f.alerts.incidentsRoutes,
      f.notifications.deliveryLogRoutes(f.alerts.alerts),
      f.channels.routes,
      f.settings.alertRetentionRoutes,
      f.settings.forecastRoutes,
      f.reports.routes,
      f.agentSettings.routes,
      f.auditLog.routes,
      f.housekeeping.storageRoutes,
      f.search.routes,
      f.overview.routes,
      f.statusPages.routes,
      f.checks.routes,
    ] satisfies Router[],
    /** Stores what agents sent and lets reset mails finish before the pool closes. */
    shutdown: async () => {
      await f.checks.runner.stop();
      await f.ingest.close();
      await f.passwordReset.settled();
      await f.evaluation.settled();
    },
  };
}
