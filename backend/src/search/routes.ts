/**
 * /api/search: the console's quick search (Ctrl+K), across systems, customers, containers and alerts, within
 * what the account may see. A read of names the account could list anyway: no audit row.
 */
import { searchQuery, searchResults } from '../../../contracts/search.js';
import { routeOf } from '../http/route.js';
import { visibleTo } from '../lib/access.js';
import type { ContainerIndex } from './container-index.js';
import type { SearchRepo } from './repo.js';

/** Enough to choose from while typing; more is a job for the lists' own filters. */
const PER_KIND = 8;

const route = routeOf<{ repo: SearchRepo; containers: ContainerIndex }>();

export const searchRoutes = [
  route({
    method: 'get',
    path: '/api/search',
    tag: 'Search',
    access: 'signed-in',
    summary: 'Systems, customers, containers and alerts whose names contain the words typed (up to 8 of each)',
    query: searchQuery,
    headers: { 'Cache-Control': 'no-store' },
    responses: { 200: { description: 'The best matches of each kind, best first', schema: searchResults } },
    handler: async ({ repo, containers }, { principal, query }) => {
      const visible = visibleTo(principal);
      const [found, containerHits] = await Promise.all([
        repo.search(query.q, visible, PER_KIND),
        containers.search(query.q, visible, PER_KIND),
      ]);
      return { ...found, containers: containerHits };
    },
  }),
];
