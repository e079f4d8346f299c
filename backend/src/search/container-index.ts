/**
 * The quick search's containers, from an index in memory instead of the fleet's newest values at
 * every keystroke: those are one row of arrays per system, so finding containers by name unnested
 * every series of every system with containers (a few hundred each) for each letter typed. The index
 * is the list of container names and images, read in one statement when a search finds it older than
 * CONTAINER_INDEX_MS (so never while nobody searches), shared by the searches meanwhile; a search
 * then filters it in memory. A container started, renamed or moved to another image is found within
 * that time.
 */
import type { Visible } from '../lib/access.js';
import type { Clock } from '../lib/clock.js';
import type { ContainerName, SearchRepo } from './repo.js';

/** How old the index may get before a search reads it again. */
export const CONTAINER_INDEX_MS = 30_000;
/** A container its system has not reported for a day was removed (the newest values still hold it). */
const GONE_AFTER_MS = 86_400_000;

export interface ContainerHit {
  name: string;
  image: string | null;
  systemId: number;
  systemName: string;
  running: boolean;
}

interface Entry extends ContainerName {
  lower: string;
  imageLower: string;
  systemLower: string;
}

/** Plain code-unit order: localeCompare made a search matching 40,000 containers take ~10 times longer. */
const order = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

export function createContainerIndex(repo: Pick<SearchRepo, 'containerNames'>, clock: Clock) {
  let entries: Entry[] = [];
  let builtAt = -Infinity;
  let building: Promise<void> | null = null;

  async function rebuild(): Promise<void> {
    const now = clock.now().getTime();
    const names = await repo.containerNames(new Date(now - GONE_AFTER_MS));
    entries = names.map((entry) => ({
      ...entry,
      lower: entry.name.toLowerCase(),
      imageLower: entry.image?.toLowerCase() ?? '',
      systemLower: entry.systemName.toLowerCase(),
    }));
    builtAt = now;
  }

  /** The index, read again when it is older than CONTAINER_INDEX_MS (one read for the searches waiting). */
  async function current(): Promise<Entry[]> {
    if (clock.now().getTime() - builtAt >= CONTAINER_INDEX_MS) {
      building ??= rebuild().finally(() => {
        building = null;
      });
      await building;
    }
    return entries;
  }

  return {
    /**
     * Up to `limit` containers whose name or image contains `term` (any case), on systems `visible`
     * shows, seen within a day: a name that starts with the term first, then a name that contains it,
     * then an image that does; then the shorter name, then by name.
     */
    async search(term: string, visible: Visible, limit: number): Promise<ContainerHit[]> {
      const needle = term.toLowerCase();
      const since = clock.now().getTime() - GONE_AFTER_MS;
      const nameMatch = (entry: Entry) => (entry.lower.startsWith(needle) ? 0 : entry.lower.includes(needle) ? 1 : 2);
      const before = (a: Entry, b: Entry) =>
        (nameMatch(a) - nameMatch(b) ||
          a.name.length - b.name.length ||
          order(a.lower, b.lower) ||
          order(a.systemLower, b.systemLower)) < 0;
      // the best `limit` in one pass: a term like "a" matches every container, and sorting them all
      // to keep eight cost more than the rest of the search
      const best: Entry[] = [];
      for (const entry of await current()) {
        if (!entry.lower.includes(needle) && !entry.imageLower.includes(needle)) continue;
        if (entry.seenAt.getTime() <= since) continue;
        if (visible !== null && !visible.has(entry.customerId)) continue;
        if (best.length === limit && !before(entry, best[limit - 1] as Entry)) continue;
        let at = best.length;
        while (at > 0 && before(entry, best[at - 1] as Entry)) at -= 1;
        best.splice(at, 0, entry);
        if (best.length > limit) best.pop();
      }
      return best.map(({ name, image, systemId, systemName, running }) => ({
        name,
        image,
        systemId,
        systemName,
        running,
      }));
    },
  };
}

export type ContainerIndex = ReturnType<typeof createContainerIndex>;
