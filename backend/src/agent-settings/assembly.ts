/** The layered agent settings, built once by the composition root; ingest reads them for each report. */
import type { Knex } from 'knex';
import type { Bus } from '../bus/bus.js';
import { mountRoutes } from '../http/route.js';
import type { AuditTrail } from '../lib/audit-trail.js';
import type { Clock } from '../lib/clock.js';
import type { Logger } from '../lib/logger.js';
import type { SecretBox } from '../lib/secret-box.js';
import { createAgentSettingsRepo } from './repo.js';
import { agentSettingsRoutes } from './routes.js';
import { createAgentSettingsService } from './service.js';

export interface AgentSettingsAssemblyDeps {
  db: Knex;
  box: SecretBox;
  clock: Clock;
  log: Logger;
  bus: Bus;
  audit: AuditTrail;
}

export function assembleAgentSettings(deps: AgentSettingsAssemblyDeps) {
  const { box, clock, log, bus, audit } = deps;
  const agentSettings = createAgentSettingsService({
    repo: createAgentSettingsRepo(deps.db),
    box,
    clock,
    log,
    bus,
    audit,
  });
  return { agentSettings, routes: mountRoutes(agentSettingsRoutes, agentSettings) };
}
