/** Search (Ctrl+K), built once by the composition root. */
import type { Knex } from 'knex';
import { mountRoutes } from '../http/route.js';
import type { Clock } from '../lib/clock.js';
import { createContainerIndex } from './container-index.js';
import { createSearchRepo } from './repo.js';
import { searchRoutes } from './routes.js';

export function assembleSearch(deps: { db: Knex; clock: Clock }) {
  const repo = createSearchRepo(deps.db);
  return { routes: mountRoutes(searchRoutes, { repo, containers: createContainerIndex(repo, deps.clock) }) };
}
