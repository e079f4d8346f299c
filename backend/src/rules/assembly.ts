/** Alert and event rules, built once by the composition root (the evaluation's preview reads them too). */
import type { Knex } from 'knex';
import type { Bus } from '../bus/bus.js';
import { mountRoutes } from '../http/route.js';
import type { AuditTrail } from '../lib/audit-trail.js';
import type { ScopeRepo } from '../scopes/repo.js';
import { createRulesRepo } from './repo.js';
import { rulesRoutes } from './routes.js';
import { createRulesService } from './service.js';

export function assembleRules(deps: { db: Knex; scopes: ScopeRepo; bus: Bus; audit: AuditTrail }) {
  const rules = createRulesService({
    repo: createRulesRepo(deps.db),
    scopes: deps.scopes,
    bus: deps.bus,
    audit: deps.audit,
  });
  return { rules, routes: mountRoutes(rulesRoutes, rules) };
}
