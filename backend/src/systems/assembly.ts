/** Systems (list, page, detail, move, delete, charts), built once by the composition root on one systems repository. */
import type { Knex } from 'knex';
import type { Bus } from '../bus/bus.js';
import { mountRoutes } from '../http/route.js';
import type { AuditTrail } from '../lib/audit-trail.js';
import type { Clock } from '../lib/clock.js';
import { createSystemsListing } from './listing.js';
import { createSystemsPageRepo } from './page-repo.js';
import { createSystemsRepo } from './repo.js';
import { systemsRoutes } from './routes.js';
import { createContainerImagesReader } from './container-images-repo.js';
import { createScriptChecksReader } from './script-checks-repo.js';
import { createSystemsService } from './service.js';

export function assembleSystems(deps: { db: Knex; bus: Bus; clock: Clock; audit: AuditTrail }) {
  const { db, bus, clock, audit } = deps;
  const repo = createSystemsRepo(db);
  const systems = createSystemsService({
    repo,
    scriptChecks: createScriptChecksReader(db),
    containerImages: createContainerImagesReader(db),
    bus,
    clock,
    audit,
  });
  const listing = createSystemsListing({ repo, pages: createSystemsPageRepo(db) });
  return { systems, routes: mountRoutes(systemsRoutes, { systems, clock, listing }) };
}
