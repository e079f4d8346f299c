/** The quick search (Ctrl+K) within what the account may see. A read of names it could list anyway: no audit row. */
import { visibleTo, type Principal } from '../lib/access.js';
import type { ContainerIndex } from './container-index.js';
import type { SearchRepo } from './repo.js';

/** Enough to choose from while typing; more is a job for the lists' own filters. */
const PER_KIND = 8;

export function createSearchService({ repo, containers }: { repo: SearchRepo; containers: ContainerIndex }) {
  return {
    async search(principal: Principal, term: string) {
      const visible = visibleTo(principal);
      const [found, containerHits] = await Promise.all([
        repo.search(term, visible, PER_KIND),
        containers.search(term, visible, PER_KIND),
      ]);
      return { ...found, containers: containerHits };
    },
  };
}

export type SearchService = ReturnType<typeof createSearchService>;
