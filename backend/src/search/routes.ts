/**
 * /api/search: the console's quick search (Ctrl+K), across systems, customers and alerts, within
 * what the account may see. A read of names the account could list anyway: no audit row.
 */
import Router from '@koa/router';
import { searchQuery, searchResults } from '../../../contracts/search.js';
import { currentPrincipal } from '../http/route-guards.js';
import type { RouteDoc } from '../http/openapi.js';
import { visibleTo } from '../lib/access.js';
import { parseInput } from '../lib/validate.js';
import type { SearchRepo } from './repo.js';

/** Enough to choose from while typing; more is a job for the lists' own filters. */
const PER_KIND = 8;

export function searchRoutes(repo: SearchRepo): Router {
  const router = new Router();
  router.get('/api/search', async (ctx) => {
    const principal = currentPrincipal(ctx.state);
    const { q } = parseInput(searchQuery, ctx.query);
    ctx.set('Cache-Control', 'no-store');
    ctx.body = await repo.search(q, visibleTo(principal), PER_KIND);
  });
  return router;
}

/** What search/routes.ts serves, for the OpenAPI document (http/openapi.ts). */
export const searchApi: RouteDoc[] = [
  {
    method: 'get',
    path: '/api/search',
    tag: 'Search',
    access: 'signed-in',
    summary: 'Systems, customers and alerts whose names contain the words typed (up to 8 of each)',
    query: searchQuery,
    responses: { 200: { description: 'The best matches of each kind, best first', schema: searchResults } },
  },
];
