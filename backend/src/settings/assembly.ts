/**
 * The settings edited at runtime, built once by the composition root: the SMTP settings with the
 * mailer that reads them, the alert retention (reports and housekeeping share the one service) and
 * the forecast settings (the evaluation reads them through their service).
 */
import type { Knex } from 'knex';
import { mountRoutes } from '../http/route.js';
import type { AuditTrail } from '../lib/audit-trail.js';
import type { Clock } from '../lib/clock.js';
import type { Logger } from '../lib/logger.js';
import type { SecretBox } from '../lib/secret-box.js';
import { createMailer } from '../mail/smtp-mailer.js';
import { createAlertRetentionRepo } from './alert-retention/repo.js';
import { alertRetentionRoutes } from './alert-retention/routes.js';
import { createAlertRetentionService } from './alert-retention/service.js';
import { createForecastSettingsRepo } from './forecast/repo.js';
import { forecastSettingsRoutes } from './forecast/routes.js';
import { createForecastSettingsService } from './forecast/service.js';
import { smtpSettingsRoutes } from './smtp/routes.js';
import { createSmtpSettingsService } from './smtp/service.js';

export interface SettingsAssemblyDeps {
  db: Knex;
  box: SecretBox;
  clock: Clock;
  log: Logger;
  audit: AuditTrail;
}

export function assembleSettings(deps: SettingsAssemblyDeps) {
  const { db, clock, audit } = deps;
  const smtp = createSmtpSettingsService({ db, box: deps.box, audit });
  const mailer = createMailer({ smtp, log: deps.log });
  const alertRetention = createAlertRetentionService({ repo: createAlertRetentionRepo(db), clock, audit });
  const forecastSettings = createForecastSettingsService({ repo: createForecastSettingsRepo(db), audit });
  return {
    mailer,
    alertRetention,
    /** The window and data share of forecast rules: the evaluation's runs, preview and charts read them here. */
    forecastSettings,
    smtpRoutes: mountRoutes(smtpSettingsRoutes, { smtp, mailer }),
    alertRetentionRoutes: mountRoutes(alertRetentionRoutes, alertRetention),
    forecastRoutes: mountRoutes(forecastSettingsRoutes, forecastSettings),
  };
}
