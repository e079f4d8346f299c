/**
 * GET /api/systems at 10,000 systems: filters, sort and keyset pages on the server.
 * Without `limit` the answer stays the whole (filtered) array that existing callers read.
 */
import { systemStatus, type SystemsPage, type SystemsQuery } from '../../../contracts/systems.js';
import { visibleTo, type Principal } from '../lib/access.js';
import { Invalid } from '../lib/errors.js';
import { sortWidth, type Keyset, type SortKey, type SystemFilter, type SystemsPageRepo } from './page-repo.js';
import type { SystemsRepo } from './repo.js';
import { view, type SystemView } from './service.js';

const STATUSES = systemStatus.options;
/** A whole filtered list still has a ceiling: far above any fleet, below what would exhaust memory. */
const WHOLE_LIST = 100_000;

interface CursorContent {
  s: SortKey;
  o: 'asc' | 'desc';
  v: (string | number)[];
  id: number;
}

const encodeCursor = (content: CursorContent) => Buffer.from(JSON.stringify(content)).toString('base64url');

function decodeCursor(cursor: string, sort: SortKey, order: 'asc' | 'desc'): Keyset {
  const invalid = (why: string) => new Invalid(`cursor: ${why}`, { field: 'cursor' });
  let content: Partial<CursorContent>;
  try {
    content = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as Partial<CursorContent>;
  } catch {
    throw invalid('is not a cursor of this list');
  }
  const values = content?.v;
  if (
    !Array.isArray(values) ||
    !values.every((value) => typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value))) ||
    !Number.isSafeInteger(content.id)
  )
    throw invalid('is not a cursor of this list');
  if (content.s !== sort || content.o !== order) throw invalid('belongs to another sort order: start again without it');
  if (values.length !== sortWidth(sort)) throw invalid('is not a cursor of this list');
  return { values, id: content.id as number };
}

export function createSystemsListing(deps: { repo: Pick<SystemsRepo, 'list'>; pages: SystemsPageRepo }) {
  return {
    /** The whole list (`limit` undefined), or one page of it. */
    async query(
      principal: Principal,
      query: Omit<SystemsQuery, 'limit' | 'cursor'> & { limit?: number; cursor?: string | undefined },
    ): Promise<SystemView[] | SystemsPage> {
      const visible = visibleTo(principal);
      const filter: SystemFilter = {
        q: query.q || undefined,
        status: query.status,
        customer: query.customer,
        cluster: query.cluster,
        ids: query.ids,
      };
      const filtered = Object.values(filter).some((value) => value !== undefined);
      if (query.limit === undefined) {
        if (!filtered && query.sort === 'customer' && query.order === 'asc')
          return (await deps.repo.list(visible)).map(view);
      }
      const limit = query.limit ?? WHOLE_LIST;
      const after = query.cursor === undefined ? null : decodeCursor(query.cursor, query.sort, query.order);
      // a page is counted too: both statements at once
      const [{ rows, keys }, groups] = await Promise.all([
        deps.pages.page({
          visible,
          filter,
          sort: query.sort,
          descending: query.order === 'desc',
          after,
          limit: limit + 1, // one more tells whether a next page exists
        }),
        query.limit === undefined ? [] : deps.pages.countGroups(visible, filter),
      ]);
      const items = rows.slice(0, limit).map(view);
      if (query.limit === undefined) return items;
      const last = keys[limit - 1];
      const counts = Object.fromEntries(STATUSES.map((status) => [status, 0])) as SystemsPage['counts'];
      const wanted = new Set<string>(filter.status ?? STATUSES);
      const perCustomer = new Map<number, number>();
      for (const group of groups) {
        counts[group.status as keyof typeof counts] += group.count;
        if (wanted.has(group.status))
          perCustomer.set(group.customerId, (perCustomer.get(group.customerId) ?? 0) + group.count);
      }
      return {
        items: items as SystemsPage['items'],
        nextCursor:
          rows.length > limit && last
            ? encodeCursor({ s: query.sort, o: query.order, v: last.values, id: last.id })
            : null,
        total: [...perCustomer.values()].reduce((sum, count) => sum + count, 0),
        counts,
        customers: [...perCustomer].map(([id, count]) => ({ id, count })),
      };
    },
  };
}

export type SystemsListing = ReturnType<typeof createSystemsListing>;
