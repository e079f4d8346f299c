/** The quick search (Ctrl+K) within what the account may see. A read of names it could list anyway: no audit row. */
import { visibleTo, type Principal } from '../lib/access.js';
import type { SearchHit, SearchRepo } from './repo.js';

/** Enough to choose from while typing; more is a job for the lists' own filters. */
const PER_KIND = 8;

export function createSearchService({ repo }: { repo: SearchRepo }) {
  return {
    search(principal: Principal, term: string): Promise<SearchHit> {
      return repo.search(term, visibleTo(principal), PER_KIND);
    },
  };
}

export type SearchService = ReturnType<typeof createSearchService>;
