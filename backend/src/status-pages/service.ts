/**
 * Managing customer status pages: ADMIN, or an OPERATOR granted the customer,
 * publishes, edits, rotates and revokes; a page of a customer the account may not see is a 404.
 * Every change is audited in its own transaction; the slug (a capability) never goes into the log.
 */
import type {
  StatusPage,
  StatusPageChanges,
  StatusPageCreate,
  StatusPageItemBody,
} from '../../../contracts/status-pages.js';
import { canSeeCustomer, canWriteCustomer, visibleTo, type Principal } from '../lib/access.js';
import type { Knex } from 'knex';
import type { AuditActor, AuditEntry, AuditTrail } from '../lib/audit-trail.js';
import type { Clock } from '../lib/clock.js';
import { randomToken, sha256 } from '../lib/crypto.js';
import { Forbidden, Invalid, NotFound } from '../lib/errors.js';
import type { ScopeRepo } from '../scopes/repo.js';
import type { StatusPageFields, StatusPageRow, StatusPagesRepo } from './repo.js';

/** 18 random bytes: 24 characters of base64url, 144 bits (the issue asks for at least 128). */
const SLUG_BYTES = 18;
export const SLUG_PATTERN = /^[A-Za-z0-9_-]{24}$/;

export const newSlug = (): { slug: string; slugHash: string } => {
  const slug = randomToken(SLUG_BYTES);
  return { slug, slugHash: sha256(slug) };
};

const auditView = (page: Pick<StatusPageRow, 'title' | 'announcement' | 'items'>) => ({
  title: page.title,
  announcement: page.announcement,
  items: page.items.map((item) => ({ kind: item.kind, id: item.id, displayName: item.displayName })),
});

export function createStatusPagesService(deps: {
  repo: StatusPagesRepo;
  scopes: ScopeRepo;
  clock: Clock;
  audit: AuditTrail;
  publicUrl: string;
  /** Drops the public page's cached answer for a slug that stops working or changes (public-page.ts). */
  forget: (slugHash: string) => void;
}) {
  const { repo, scopes, clock, audit, publicUrl, forget } = deps;

  const view = (row: StatusPageRow): StatusPage => ({
    id: row.id,
    customerId: row.customerId,
    customerName: row.customerName,
    title: row.title,
    announcement: row.announcement,
    slug: row.slug,
    url: `${publicUrl}/status/${row.slug}`,
    items: row.items,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  });

  async function writablePage(principal: Principal, id: number): Promise<StatusPageRow> {
    const row = await repo.find(id);
    if (!row || !canSeeCustomer(principal, row.customerId)) throw new NotFound('No such status page');
    if (!canWriteCustomer(principal, row.customerId)) throw new Forbidden('You may not change this customer');
    return row;
  }

  /**
   * A change of a published page with its audit row in one transaction; afterwards the public page's
   * cached answer for the current slug is dropped, so the change (or the 404) shows at once.
   */
  async function changeOf<T>(
    actor: AuditActor,
    current: StatusPageRow,
    action: 'update' | 'rotate' | 'delete',
    write: (trx: Knex) => Promise<{ result: T; audit: Pick<AuditEntry, 'before' | 'after'> }>,
  ): Promise<T> {
    const result = await repo.transaction(async (trx) => {
      const done = await write(trx);
      await audit.record(trx, actor, {
        action: `status_page.${action}`,
        targetType: 'status_page',
        targetId: current.id,
        customerId: current.customerId,
        ...done.audit,
      });
      return done.result;
    });
    forget(sha256(current.slug));
    return result;
  }

  /** Each item must be a system or cluster of the page's customer; the refusal names the item's field. */
  async function checkedItems(customerId: number, items: StatusPageItemBody[]): Promise<StatusPageFields['items']> {
    const checked: StatusPageFields['items'] = [];
    for (const [index, item] of items.entries()) {
      const kind = item.systemId !== undefined ? 'system' : 'cluster';
      const id = (item.systemId ?? item.clusterId) as number;
      const target = await scopes.find(kind, id);
      if (!target || target.customerId !== customerId) {
        const field = `items.${index}.${kind}Id`;
        throw new Invalid(`${field}: no such ${kind} of this customer`, { field });
      }
      checked.push({ kind, id, displayName: item.displayName });
    }
    return checked;
  }

  return {
    async list(principal: Principal, customerId?: number): Promise<StatusPage[]> {
      return (await repo.list(visibleTo(principal), customerId)).map(view);
    },

    async create(actor: AuditActor, principal: Principal, input: StatusPageCreate): Promise<StatusPage> {
      const customer = await scopes.find('customer', input.customerId);
      if (!customer || !canSeeCustomer(principal, customer.id))
        throw new Invalid('customerId: no such customer', { field: 'customerId' });
      if (!canWriteCustomer(principal, customer.id)) throw new Forbidden('You may not change this customer');
      const fields: StatusPageFields = {
        title: input.title,
        announcement: input.announcement,
        items: await checkedItems(customer.id, input.items),
      };
      const created = await repo.transaction(async (trx) => {
        const id = await repo.insert({ ...fields, customerId: customer.id, ...newSlug(), now: clock.now() }, trx);
        const row = (await repo.find(id, trx)) as StatusPageRow;
        await audit.record(trx, actor, {
          action: 'status_page.create',
          targetType: 'status_page',
          targetId: id,
          customerId: customer.id,
          after: auditView(row),
        });
        return row;
      });
      return view(created);
    },

    async update(actor: AuditActor, principal: Principal, id: number, changes: StatusPageChanges): Promise<StatusPage> {
      const current = await writablePage(principal, id);
      const fields: StatusPageFields = {
        title: changes.title ?? current.title,
        announcement: changes.announcement ?? current.announcement,
        items: changes.items ? await checkedItems(current.customerId, changes.items) : current.items,
      };
      const updated = await changeOf(actor, current, 'update', async (trx) => {
        await repo.update(id, { ...fields, now: clock.now() }, trx);
        const row = (await repo.find(id, trx)) as StatusPageRow;
        return { result: row, audit: { before: auditView(current), after: auditView(row) } };
      });
      return view(updated);
    },

    /** A new slug: the old address answers 404 from now on. */
    async rotate(actor: AuditActor, principal: Principal, id: number): Promise<StatusPage> {
      const current = await writablePage(principal, id);
      const { slug, slugHash } = newSlug();
      const rotated = await changeOf(actor, current, 'rotate', async (trx) => {
        await repo.rotate(id, slug, slugHash, clock.now(), trx);
        return { result: (await repo.find(id, trx)) as StatusPageRow, audit: {} };
      });
      return view(rotated);
    },

    async remove(actor: AuditActor, principal: Principal, id: number): Promise<void> {
      const current = await writablePage(principal, id);
      await changeOf(actor, current, 'delete', async (trx) => {
        await repo.delete(id, trx);
        return { result: undefined, audit: { before: auditView(current) } };
      });
    },
  };
}

export type StatusPagesService = ReturnType<typeof createStatusPagesService>;
