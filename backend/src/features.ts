/**
 * The feature graph of the composition root: builds every feature (repos → services → routers) from
 * `AppDeps`. Only app.ts (the HTTP pipeline that mounts what this returns) and tests import it.
 */
import type Koa from 'koa';
import type Router from '@koa/router';
import type { Redis } from 'ioredis';
import type { Knex } from 'knex';
import { createAuditRepo } from './audit/repo.js';
import { auditRoutes } from './audit/routes.js';
import { createAuditService } from './audit/service.js';
import { authenticate } from './auth/authenticate.js';
import { assembleSignIn } from './auth/assembly.js';
import { authRoutes } from './auth/routes.js';
import type { Bus } from './bus/bus.js';
import type { AppConfig } from './config.js';
import { createHousekeepingRepo } from './housekeeping/repo.js';
import { createStorageReport } from './housekeeping/storage-report.js';
import { storageRoutes } from './housekeeping/storage-routes.js';
import type { Clock } from './lib/clock.js';
import type { Logger } from './lib/logger.js';
import type { PasswordHasher } from './lib/password-hasher.js';
import type { SecretBox } from './lib/secret-box.js';
import { createMailer } from './mail/smtp-mailer.js';
import { forgotPasswordLimits } from './password-reset/limits.js';
import { passwordResetRoutes } from './password-reset/routes.js';
import { createPasswordResetService } from './password-reset/service.js';
import { smtpSettingsRoutes } from './settings/smtp-routes.js';
import { alertRetentionRoutes } from './settings/alert-retention-routes.js';
import { createAlertRetentionRepo } from './settings/alert-retention-repo.js';
import { createAlertRetentionService } from './settings/alert-retention-service.js';
import { createAlertsRepo } from './alerts/repo.js';
import { alertsRoutes } from './alerts/routes.js';
import { createAlertsService } from './alerts/service.js';
import { createMaintenanceRepo } from './maintenance/repo.js';
import { maintenanceRoutes } from './maintenance/routes.js';
import { createMaintenanceService } from './maintenance/service.js';
import { createPreviewRepo } from './evaluation/preview-repo.js';
import { createRulePreview } from './evaluation/preview.js';
import { rulePreviewRoutes } from './evaluation/preview-routes.js';
import { createRulesRepo } from './rules/repo.js';
import { rulesRoutes } from './rules/routes.js';
import { createScopeRepo } from './scopes/repo.js';
import { createRulesService } from './rules/service.js';
import { createSmtpSettingsService } from './settings/smtp-service.js';
import { createAgentSettingsRepo } from './agent-settings/repo.js';
import { agentSettingsRoutes } from './agent-settings/routes.js';
import { createAgentSettingsService } from './agent-settings/service.js';
import { createAgentDist } from './agents/dist.js';
import { createAgentsRepo } from './agents/repo.js';
import { createAgentUpdates } from './agents/rollout.js';
import { agentRoutes } from './agents/routes.js';
import { rolloutRoutes } from './agents/rollout-routes.js';
import { createAgentEndpoints } from './agents/service.js';
import { createCustomersRepo } from './customers/repo.js';
import { createIngest } from './ingest/routes.js';
import { evaluationRoutes } from './evaluation/routes.js';
import { createEvaluation, currentSuppression } from './evaluation/service.js';
import { createNotificationsRepo } from './notifications/repo.js';
import { createAlertNotifier } from './notifications/service.js';
import { createDeliveriesRepo } from './notifications/deliveries-repo.js';
import { deliveryLogRoutes } from './notifications/log-routes.js';
import { createChannelsRepo } from './channels/repo.js';
import { channelsRoutes } from './channels/routes.js';
import { CHANNEL_TEST_LIMITS, createChannelsService } from './channels/service.js';
import { createPoliciesService } from './channels/policies.js';
import { createIncidentsRepo } from './alerts/incidents-repo.js';
import { incidentsRoutes } from './alerts/incidents.js';
import { liveRoutes } from './live/routes.js';
import { customersRoutes } from './customers/routes.js';
import { mountRoutes } from './http/route.js';
import { createCustomersService } from './customers/service.js';
import { createEnrollmentRepo } from './customers/enrollment-repo.js';
import { enrollmentRoutes } from './customers/enrollment-routes.js';
import { createEnrollmentService } from './customers/enrollment-service.js';
import { createSystemsRepo } from './systems/repo.js';
import { systemsRoutes } from './systems/routes.js';
import { createSystemsService } from './systems/service.js';
import { createSystemsListing } from './systems/listing.js';
import { createSystemsPageRepo } from './systems/page-repo.js';
import { secondFactorRoutes } from './second-factor/routes.js';
import { createRateLimiter, type RateLimitStore } from './ratelimit/rate-limiter.js';
import { tokensRoutes } from './tokens/routes.js';
import { createOverviewRepo } from './overview/repo.js';
import { overviewRoutes } from './overview/routes.js';
import { shareRecentOverviews } from './overview/recent.js';
import { createOverviewService } from './overview/service.js';
import { createSearchRepo } from './search/repo.js';
import { searchRoutes } from './search/routes.js';
import { usersRoutes } from './users/routes.js';
import type { OriginRule } from './http/origin.js';
import type { SelfMetricsRegistry } from './self-metrics/registry.js';
import { selfMetricsRoutes } from './self-metrics/routes.js';
import { createReportsRepo } from './reports/repo.js';
import { reportsRoutes } from './reports/routes.js';
import { createReportsService } from './reports/service.js';
import { createMonthlyReports } from './reports/monthly.js';
import { assembleSso } from './sso/assembly.js';
import { assembleStatusPages } from './status-pages/assembly.js';

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
  /** Storage jobs failing or late, as housekeeping last saw them (health names them). */
  troubledStorageJobs?: () => string[];
  /** Tests: wraps every request, outside the error mapping, so it sees the final answer. */
  outermost?: Koa.Middleware;
}

/**
 * The feature graph: repos → services → routers, and the authentication in front of them. `origins`
 * is the one Origin rule of every browser-facing check.
 */
export function features(deps: AppDeps, origins: OriginRule, selfMetrics: SelfMetricsRegistry) {
  const { config, db, clock, log, rateLimitStore } = deps;
  const limiter = (name: string, points: number, durationSeconds: number, blockDurationSeconds?: number) =>
    createRateLimiter(rateLimitStore, { name, points, durationSeconds, blockDurationSeconds }, log);

  // the audit log: every service that writes records its row in its own transaction
  const audit = createAuditService({ repo: createAuditRepo(db), clock });
  const smtp = createSmtpSettingsService({ db, box: deps.box, audit });
  const mailer = createMailer({ smtp, log });
  const resets = createPasswordResetService({
    db,
    clock,
    mailer,
    hasher: deps.hasher,
    authUrl: config.authUrl,
    log,
    audit,
  });
  const { users, sessions, tokens, secondFactor, login } = assembleSignIn({
    db,
    clock,
    log,
    bus: deps.bus,
    box: deps.box,
    hasher: deps.hasher,
    mailer,
    audit,
    authSecret: config.authSecret,
    authUrl: config.authUrl,
    limiter,
    failureDelayMs: deps.loginFailureDelayMs ?? 250,
    singleSignOn: config.sso !== null,
  });

  const agentDist = createAgentDist({ dir: config.agentDistDir, publicUrl: config.publicUrl, clock, log });
  const agentUpdates = createAgentUpdates({ db, dist: agentDist, clock, log, audit });
  // failed enrollment-key checks per client address (docs/limits.md)
  const enrollmentFailures = limiter('enrollment-address', 20, 10 * 60);

  const agentSettings = createAgentSettingsService({
    repo: createAgentSettingsRepo(db),
    box: deps.box,
    clock,
    log,
    bus: deps.bus,
    audit,
  });
  const ingest = createIngest({
    db,
    bus: deps.bus,
    clock,
    log,
    webhookSecret: config.webhookSecret,
    rawRetentionMs: config.retention.rawRetention.ms,
    maxNewSystemsPerClusterPerHour: config.enrollPerClusterPerHour,
    reportsPerSystemPerMinute: config.reportsPerSystemPerMinute,
    rateLimitStore,
    updateOffer: (system) => agentUpdates.offerAfterReport(system),
    effectiveSettings: (systemId) => agentSettings.effectiveSettingsForAgent(systemId),
    metrics: selfMetrics.ingest,
  });
  // notifications: routed to channels by policy, queued in the run or the acknowledgement
  const deliveries = createDeliveriesRepo(db);
  const notifier = createAlertNotifier({
    repo: createNotificationsRepo(db),
    deliveries,
    box: deps.box,
    mailer,
    clock,
    log,
    authUrl: config.authUrl,
    allowPrivateWebhooks: config.allowPrivateWebhooks,
  });
  // the evaluation run: only the cron endpoint starts it, never a timer
  const evaluation = createEvaluation({
    db,
    bus: deps.bus,
    clock,
    log,
    mailer,
    notifier,
    metrics: selfMetrics.evaluation,
  });
  const channelsRepo = createChannelsRepo(db);
  const alerts = createAlertsService({
    repo: createAlertsRepo(db),
    bus: deps.bus,
    clock,
    notifications: notifier.acknowledgements(() => currentSuppression(db, clock.now())),
    audit,
  });

  const alertRetention = createAlertRetentionService({ repo: createAlertRetentionRepo(db), clock, audit });
  // availability reports and the monthly report e-mail
  const reportsRepo = createReportsRepo(db);
  const reports = createReportsService({ repo: reportsRepo, clock, retention: alertRetention });
  const monthlyReports = createMonthlyReports({
    repo: reportsRepo,
    reports,
    mailer,
    audit,
    clock,
    log,
    authUrl: config.authUrl,
  });

  // customer status pages: the public page, cached and limited per address
  const statusPages = assembleStatusPages({
    db,
    reports,
    clock,
    audit,
    log,
    publicUrl: config.publicUrl,
    // a whole office behind one address reloading every 30 s stays well inside
    limiter: limiter('status-page', 120, 60),
  });

  const rules = createRulesService({ repo: createRulesRepo(db), scopes: createScopeRepo(db), bus: deps.bus, audit });
  const systems = createSystemsService({ repo: createSystemsRepo(db), bus: deps.bus, clock, audit });
  // the live snapshot shares GET /api/overview's computation at open (overview/recent.ts)
  const overviewService = createOverviewService({ repo: createOverviewRepo(db), clock });
  const overview = shareRecentOverviews(overviewService.compute, { clock });
  const authentication = authenticate({
    sessions,
    tokens,
    users,
    // 30 failed bearer attempts per 10 minutes per client address
    bearerFailures: limiter('bearer', 30, 10 * 60),
    origins,
  });

  return {
    // agents sign their own JWT and send gzip bodies up to 4 MiB: the webhook sits before the
    // console's body parser and bearer-token authentication
    agentIngest: ingest.router,
    // the scheduler's bearer is CRON_SECRET, not an API token: also before authentication
    cronEvaluation: mountRoutes(evaluationRoutes, { evaluation, cronSecret: config.cronSecret, log }),
    // a scraper's bearer may be METRICS_TOKEN, no API token: it runs the authentication itself
    selfMetricsRoute: mountRoutes(selfMetricsRoutes, {
      metrics: selfMetrics,
      metricsToken: config.metricsToken,
      authentication,
    }),
    authentication,
    /** GET /status/<slug>: before authentication, so no cookie is read or written. */
    publicStatusPage: statusPages.publicPage,
    /** What the live hub needs (the WebSocket upgrade is not a Koa route; see live/assembly.ts). */
    liveServices: { authentication, systems, overview },
    /** The hourly housekeeping sends what is due (main.ts). */
    monthlyReports,
    routers: [
      mountRoutes(authRoutes, {
        users,
        login,
        sessions,
        mailer,
        // docs/limits.md "Rate limits": 10 setup attempts per 10 minutes per client address
        setupLimit: limiter('setup', 10, 10 * 60),
        origins,
      }),
      // single sign-on with an OpenID provider configured by OIDC_* (sso/)
      assembleSso({ ...deps, config: config.sso, authUrl: config.authUrl, sessions, users, audit, limiter }),
      mountRoutes(usersRoutes, users),
      mountRoutes(tokensRoutes, tokens),
      mountRoutes(secondFactorRoutes, { secondFactor, users }),
      mountRoutes(
        customersRoutes,
        createCustomersService({ repo: createCustomersRepo(db), bus: deps.bus, publicUrl: config.publicUrl, audit }),
      ),
      // enrolment figures and an ADMIN's one-hour raise per cluster
      mountRoutes(
        enrollmentRoutes,
        createEnrollmentService({
          repo: createEnrollmentRepo(db),
          clusters: createCustomersRepo(db),
          bus: deps.bus,
          clock,
          audit,
          defaultLimit: config.enrollPerClusterPerHour,
        }),
      ),
      mountRoutes(systemsRoutes, {
        systems,
        clock,
        listing: createSystemsListing({ repo: createSystemsRepo(db), pages: createSystemsPageRepo(db) }),
      }),
      mountRoutes(liveRoutes, undefined),
      mountRoutes(agentRoutes, {
        endpoints: createAgentEndpoints({
          repo: createAgentsRepo(db),
          dist: agentDist,
          webhookSecret: config.webhookSecret,
          keyFailures: enrollmentFailures,
        }),
        updates: agentUpdates,
        log: deps.log,
      }),
      mountRoutes(rolloutRoutes, { updates: agentUpdates }),
      mountRoutes(passwordResetRoutes, {
        resets,
        origins,
        forgotLimits: forgotPasswordLimits({
          mailer,
          perAddress: limiter('forgot-address', 10, 15 * 60),
          perEmail: limiter('forgot-email', 3, 60 * 60),
        }),
      }),
      mountRoutes(smtpSettingsRoutes, { smtp, mailer }),
      // alerting management: rules, maintenance windows, alerts, alert retention
      // the preview first: POST /api/alert-rules/preview would otherwise meet the rules' /:id
      mountRoutes(rulePreviewRoutes, { rules, preview: createRulePreview({ repo: createPreviewRepo(db), clock }) }),
      mountRoutes(rulesRoutes, rules),
      mountRoutes(
        maintenanceRoutes,
        createMaintenanceService({
          repo: createMaintenanceRepo(db),
          scopes: createScopeRepo(db),
          bus: deps.bus,
          clock,
          audit,
        }),
      ),
      mountRoutes(alertsRoutes, alerts),
      mountRoutes(incidentsRoutes, createIncidentsRepo(db)),
      mountRoutes(deliveryLogRoutes, { alerts, deliveries }),
      mountRoutes(channelsRoutes, {
        channels: createChannelsService({
          repo: channelsRepo,
          box: deps.box,
          bus: deps.bus,
          clock,
          log,
          mailer,
          allowPrivateWebhooks: config.allowPrivateWebhooks,
          authUrl: config.authUrl,
          audit,
          testLimits: {
            perAccount: limiter(
              CHANNEL_TEST_LIMITS.perAccount.name,
              CHANNEL_TEST_LIMITS.perAccount.points,
              CHANNEL_TEST_LIMITS.perAccount.durationSeconds,
            ),
            perChannel: limiter(
              CHANNEL_TEST_LIMITS.perChannel.name,
              CHANNEL_TEST_LIMITS.perChannel.points,
              CHANNEL_TEST_LIMITS.perChannel.durationSeconds,
            ),
          },
        }),
        policies: createPoliciesService({ repo: channelsRepo, bus: deps.bus, audit }),
      }),
      mountRoutes(alertRetentionRoutes, alertRetention),
      mountRoutes(reportsRoutes, { reports, monthly: monthlyReports }),
      mountRoutes(agentSettingsRoutes, agentSettings),
      mountRoutes(auditRoutes, audit),
      mountRoutes(storageRoutes, createStorageReport({ repo: createHousekeepingRepo(db), clock })),
      mountRoutes(searchRoutes, createSearchRepo(db)),
      mountRoutes(overviewRoutes, { compute: overview.compute, trend: overviewService.trend }),
      statusPages.routes,
    ] satisfies Router[],
    /** Stores what agents sent and lets reset mails finish before the pool closes. */
    shutdown: async () => {
      await ingest.close();
      await resets.settled();
      await evaluation.settled();
    },
  };
}
