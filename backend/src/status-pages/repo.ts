/** SQL of customer status pages (migration 0016): the pages, their items, and what the public page reads. */
import type { Knex } from 'knex';
import type { Visible } from '../lib/access.js';
import { transactionOf } from '../lib/transaction.js';

export interface StatusPageItemRow {
  kind: 'system' | 'cluster';
  id: number;
  /** The system's or cluster's own name (console only). */
  name: string;
  displayName: string;
}

export interface StatusPageRow {
  id: number;
  customerId: number;
  customerName: string;
  title: string;
  announcement: string;
  slug: string;
  createdAt: Date;
  updatedAt: Date;
  items: StatusPageItemRow[];
}

export interface StatusPageFields {
  title: string;
  announcement: string;
  items: Array<{ kind: 'system' | 'cluster'; id: number; displayName: string }>;
}

/** What the public page knows of its page: never the slug, never a system's own name. */
export interface PublishedPage {
  id: number;
  customerId: number;
  title: string;
  announcement: string;
  items: Array<{ kind: 'system' | 'cluster'; id: number; displayName: string }>;
}

export interface PublicSystemRow {
  id: number;
  clusterId: number | null;
  status: string;
}

type Raw = Record<string, unknown>;

export function createStatusPagesRepo(db: Knex) {
  async function select(q: Knex, where: (query: Knex.QueryBuilder) => void): Promise<StatusPageRow[]> {
    const query = q('status_pages as p')
      .join('customers as c', 'c.id', 'p.customer_id')
      .select(
        'p.id',
        'p.customer_id',
        'c.name as customer_name',
        'p.title',
        'p.announcement',
        'p.slug',
        'p.created_at',
        'p.updated_at',
        q.raw(
          `coalesce((SELECT json_agg(json_build_object(
                       'kind', CASE WHEN i.system_id IS NULL THEN 'cluster' ELSE 'system' END,
                       'id', coalesce(i.system_id, i.cluster_id),
                       'name', coalesce(s.name, cl.name),
                       'displayName', i.display_name) ORDER BY i.position)
                       FROM status_page_items i
                       LEFT JOIN systems s ON s.id = i.system_id
                       LEFT JOIN clusters cl ON cl.id = i.cluster_id
                      WHERE i.page_id = p.id), '[]') AS items`,
        ),
      )
      .orderBy([{ column: 'c.name' }, { column: 'p.title' }, { column: 'p.id' }]);
    where(query);
    return (await query).map((r: Raw) => ({
      id: r['id'] as number,
      customerId: r['customer_id'] as number,
      customerName: r['customer_name'] as string,
      title: r['title'] as string,
      announcement: r['announcement'] as string,
      slug: r['slug'] as string,
      createdAt: r['created_at'] as Date,
      updatedAt: r['updated_at'] as Date,
      items: r['items'] as StatusPageItemRow[],
    }));
  }

  async function writeItems(trx: Knex, pageId: number, items: StatusPageFields['items']): Promise<void> {
    await trx('status_page_items').where({ page_id: pageId }).delete();
    await trx('status_page_items').insert(
      items.map((item, position) => ({
        page_id: pageId,
        position,
        system_id: item.kind === 'system' ? item.id : null,
        cluster_id: item.kind === 'cluster' ? item.id : null,
        display_name: item.displayName,
      })),
    );
  }

  return {
    transaction: transactionOf(db),

    list(visible: Visible, customerId?: number): Promise<StatusPageRow[]> {
      return select(db, (query) => {
        if (visible) query.whereIn('p.customer_id', [...visible]);
        if (customerId !== undefined) query.where('p.customer_id', customerId);
      });
    },

    async find(id: number, q: Knex = db): Promise<StatusPageRow | null> {
      return (await select(q, (query) => query.where('p.id', id)))[0] ?? null;
    },

    async insert(
      page: StatusPageFields & { customerId: number; slug: string; slugHash: string; now: Date },
      trx: Knex = db,
    ): Promise<number> {
      const [row] = await trx('status_pages')
        .insert({
          customer_id: page.customerId,
          title: page.title,
          announcement: page.announcement,
          slug: page.slug,
          slug_hash: page.slugHash,
          created_at: page.now,
          updated_at: page.now,
        })
        .returning<{ id: number }[]>('id');
      const id = (row as { id: number }).id;
      await writeItems(trx, id, page.items);
      return id;
    },

    async update(id: number, page: StatusPageFields & { now: Date }, trx: Knex = db): Promise<void> {
      await trx('status_pages')
        .where({ id })
        .update({ title: page.title, announcement: page.announcement, updated_at: page.now });
      await writeItems(trx, id, page.items);
    },

    async rotate(id: number, slug: string, slugHash: string, now: Date, trx: Knex = db): Promise<void> {
      await trx('status_pages').where({ id }).update({ slug, slug_hash: slugHash, rotated_at: now, updated_at: now });
    },

    async delete(id: number, trx: Knex = db): Promise<void> {
      await trx('status_pages').where({ id }).delete();
    },

    /**
     * The page a slug's hash opens, with its items that still belong to the page's customer (a
     * system moved to another customer since drops off the page rather than showing there).
     */
    async findPublished(slugHash: string): Promise<PublishedPage | null> {
      const page = await db('status_pages')
        .where({ slug_hash: slugHash })
        .first<Raw | undefined>('id', 'customer_id', 'title', 'announcement');
      if (!page) return null;
      const customerId = page['customer_id'] as number;
      const items = await db('status_page_items as i')
        .leftJoin('systems as s', 's.id', 'i.system_id')
        .leftJoin('clusters as cl', 'cl.id', 'i.cluster_id')
        .where('i.page_id', page['id'] as number)
        .andWhere((q) => q.where('s.customer_id', customerId).orWhere('cl.customer_id', customerId))
        .orderBy('i.position')
        .select('i.system_id', 'i.cluster_id', 'i.display_name');
      return {
        id: page['id'] as number,
        customerId,
        title: page['title'] as string,
        announcement: page['announcement'] as string,
        items: items.map((r: Raw) => ({
          kind: r['system_id'] === null ? ('cluster' as const) : ('system' as const),
          id: (r['system_id'] ?? r['cluster_id']) as number,
          displayName: r['display_name'] as string,
        })),
      };
    },

    /** The customer's systems with their status (no names: the public page never shows them). */
    async systemStates(customerId: number): Promise<PublicSystemRow[]> {
      const rows = await db('systems')
        .where({ customer_id: customerId })
        .orderBy('id')
        .select('id', 'cluster_id', 'status');
      return rows.map((r: Raw) => ({
        id: r['id'] as number,
        clusterId: r['cluster_id'] as number | null,
        status: r['status'] as string,
      }));
    },

    /** The customer's open incidents (cluster outages), oldest first. */
    async openIncidents(customerId: number): Promise<Array<{ clusterId: number; startedAt: Date }>> {
      const rows = await db('incidents')
        .where({ customer_id: customerId, state: 'open' })
        .orderBy([{ column: 'started_at' }, { column: 'id' }])
        .select('cluster_id', 'started_at');
      return rows.map((r: Raw) => ({ clusterId: r['cluster_id'] as number, startedAt: r['started_at'] as Date }));
    },
  };
}

export type StatusPagesRepo = ReturnType<typeof createStatusPagesRepo>;
