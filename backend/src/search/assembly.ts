/** Search (Ctrl+K), built once by the composition root. */
import type { Knex } from 'knex';
import { mountRoutes } from '../http/route.js';
import { createSearchRepo } from './repo.js';
import { searchRoutes } from './routes.js';
import { createSearchService } from './service.js';

export function assembleSearch(deps: { db: Knex }) {
  return { routes: mountRoutes(searchRoutes, createSearchService({ repo: createSearchRepo(deps.db) })) };
}
