/**
 * /api/search: the console's quick search (Ctrl+K), across systems, customers, containers and alerts, within
 * what the account may see. A read of names the account could list anyway: no audit row.
 */
import { searchQuery, searchResults } from '../../../contracts/search.js';
import { routeOf } from '../http/route.js';
import type { SearchService } from './service.js';

const route = routeOf<SearchService>();

export const searchRoutes = [
  route({
    method: 'get',
    path: '/api/search',
    tag: 'Search',
    access: 'signed-in',
    summary: 'Systems, checks, customers, containers and alerts whose names contain the words typed (up to 8 of each)',
    query: searchQuery,
    headers: { 'Cache-Control': 'no-store' },
    responses: { 200: { description: 'The best matches of each kind, best first', schema: searchResults } },
    handler: (search, { principal, query }) => search.search(principal, query.q),
  }),
];
