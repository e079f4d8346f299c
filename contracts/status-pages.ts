/**
 * Customer status pages (docs/decisions.md "Status pages"): a read-only page at
 * /status/<slug> that a customer opens without an account. The console manages them at
 * /api/status-pages; the public page itself is HTML, not part of the JSON API.
 */
import { z } from 'zod';
import { id, instant, SAFE_NAME, SAFE_NAME_MESSAGE } from './common.js';

export const MAX_STATUS_PAGE_ITEMS = 50;
export const MAX_ANNOUNCEMENT = 2000;

const title = z
  .string({ error: 'must be a string' })
  .trim()
  .min(1, 'is required')
  .max(200, 'is too long')
  .regex(SAFE_NAME, SAFE_NAME_MESSAGE);
const displayName = z
  .string({ error: 'must be a string' })
  .trim()
  .min(1, 'is required')
  .max(100, 'is too long')
  .regex(SAFE_NAME, SAFE_NAME_MESSAGE);
const announcement = z
  .string({ error: 'must be a string' })
  .trim()
  .max(MAX_ANNOUNCEMENT, `is too long (at most ${MAX_ANNOUNCEMENT} characters)`);
const itemId = z.number({ error: 'must be an id' }).int('must be an id').positive('must be an id').max(2_147_483_647);

/** One entry of the page: a system or a cluster of the page's customer, under a public name. */
export const statusPageItemBody = z
  .object({
    systemId: itemId.optional(),
    clusterId: itemId.optional(),
    displayName,
  })
  .superRefine((item, ctx) => {
    if ((item.systemId === undefined) === (item.clusterId === undefined))
      ctx.addIssue({ code: 'custom', path: ['systemId'], message: 'give either systemId or clusterId' });
  });
export type StatusPageItemBody = z.infer<typeof statusPageItemBody>;

const items = z
  .array(statusPageItemBody, { error: 'must be a list' })
  .min(1, 'must name at least one system or cluster')
  .max(MAX_STATUS_PAGE_ITEMS, `at most ${MAX_STATUS_PAGE_ITEMS} entries`);

export const statusPageCreate = z.object({
  customerId: itemId,
  title,
  items,
  announcement: announcement.default(''),
});
export type StatusPageCreate = z.infer<typeof statusPageCreate>;

/** PATCH: any of title, items, announcement (the customer stays). */
export const statusPageChanges = z
  .object({ title: title.optional(), items: items.optional(), announcement: announcement.optional() })
  .strict();
export type StatusPageChanges = z.infer<typeof statusPageChanges>;

export const statusPageListQuery = z.object({
  customer: z.coerce
    .number({ error: 'must be an id' })
    .int('must be an id')
    .positive('must be an id')
    .max(2_147_483_647)
    .optional(),
});

export const statusPageItem = z.object({
  kind: z.enum(['system', 'cluster']),
  id,
  /** The system's or cluster's own name, for the console (never shown on the public page). */
  name: z.string(),
  displayName: z.string(),
});

export const statusPage = z
  .object({
    id,
    customerId: id,
    customerName: z.string(),
    title: z.string(),
    announcement: z.string(),
    slug: z.string(),
    /** The public address, on PUBLIC_URL. */
    url: z.string(),
    items: z.array(statusPageItem),
    createdAt: instant,
    updatedAt: instant,
  })
  .meta({ id: 'StatusPage' });
export type StatusPage = z.infer<typeof statusPage>;
