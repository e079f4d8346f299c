/** /api/status-pages: a customer's published status pages (issue 16 item 4), for its writers. */
import Router from '@koa/router';
import { z } from 'zod';
import {
  statusPage,
  statusPageChanges,
  statusPageCreate,
  statusPageListQuery,
} from '../../../contracts/status-pages.js';
import { auditActor } from '../http/audit-actor.js';
import type { RouteDoc } from '../http/openapi.js';
import { currentPrincipal, requireRole } from '../http/route-guards.js';
import { idOf } from '../lib/ids.js';
import { parseInput } from '../lib/validate.js';
import type { StatusPagesService } from './service.js';

export function statusPagesRoutes(pages: StatusPagesService): Router {
  const router = new Router();
  // the list holds the slugs, which are the pages' keys: writers only, like the pages themselves
  const writer = requireRole('ADMIN', 'OPERATOR');
  const pageId = (raw: string | undefined) => idOf(raw, 'status page');

  router.get('/api/status-pages', writer, async (ctx) => {
    const { customer } = parseInput(statusPageListQuery, ctx.query);
    ctx.body = await pages.list(currentPrincipal(ctx.state), customer);
  });
  router.post('/api/status-pages', writer, async (ctx) => {
    const input = parseInput(statusPageCreate, ctx.request.body);
    ctx.body = await pages.create(auditActor(ctx), currentPrincipal(ctx.state), input);
    ctx.status = 201;
  });
  router.patch('/api/status-pages/:id', writer, async (ctx) => {
    const changes = parseInput(statusPageChanges, ctx.request.body);
    ctx.body = await pages.update(auditActor(ctx), currentPrincipal(ctx.state), pageId(ctx.params['id']), changes);
  });
  router.post('/api/status-pages/:id/rotate', writer, async (ctx) => {
    ctx.body = await pages.rotate(auditActor(ctx), currentPrincipal(ctx.state), pageId(ctx.params['id']));
  });
  router.delete('/api/status-pages/:id', writer, async (ctx) => {
    await pages.remove(auditActor(ctx), currentPrincipal(ctx.state), pageId(ctx.params['id']));
    ctx.status = 204;
  });
  return router;
}

const STATUS_PAGES = 'Status pages';
export const statusPagesApi: RouteDoc[] = [
  {
    method: 'get',
    path: '/api/status-pages',
    tag: STATUS_PAGES,
    access: 'admin-or-operator',
    summary: 'The published status pages of the customers the account may change (optionally one customer)',
    query: statusPageListQuery,
    responses: { 200: { description: 'The pages, with their public addresses', schema: z.array(statusPage) } },
  },
  {
    method: 'post',
    path: '/api/status-pages',
    tag: STATUS_PAGES,
    access: 'admin-or-operator',
    summary: "Publish a status page of a customer's systems and clusters at /status/<slug>",
    description:
      'Each item names a system or a cluster of the same customer and the name the public page shows ' +
      "(the system's own name and hostname never appear there). The slug is 144 random bits.",
    body: statusPageCreate,
    responses: { 201: { description: 'Published', schema: statusPage } },
  },
  {
    method: 'patch',
    path: '/api/status-pages/:id',
    tag: STATUS_PAGES,
    access: 'admin-or-operator',
    summary: "Change a status page's title, items or announcement",
    body: statusPageChanges,
    responses: { 200: { description: 'Changed', schema: statusPage } },
  },
  {
    method: 'post',
    path: '/api/status-pages/:id/rotate',
    tag: STATUS_PAGES,
    access: 'admin-or-operator',
    summary: 'Give the page a new address; the old one answers 404 from now on',
    responses: { 200: { description: 'The page at its new address', schema: statusPage } },
  },
  {
    method: 'delete',
    path: '/api/status-pages/:id',
    tag: STATUS_PAGES,
    access: 'admin-or-operator',
    summary: 'Revoke (delete) a status page: its address answers 404',
    responses: { 204: { description: 'Revoked' } },
  },
];

/** The public page itself (status-pages/public-page.ts): HTML, for people, listed for completeness. */
export const publicStatusPageApi: RouteDoc[] = [
  {
    method: 'get',
    path: '/status/:slug',
    tag: STATUS_PAGES,
    access: 'public',
    summary: 'A published status page (HTML, no sign-in, no cookies, noindex)',
    description:
      'Cached for 30 s (`Cache-Control: public, max-age=30`, and once per 30 s on the server), rate-limited ' +
      'per client address (429 with Retry-After, as HTML). An unknown or revoked address answers the same 404 page.',
    responses: {
      200: { description: 'The status page', contentType: 'text/html' },
      404: { description: 'No status page at this address (HTML)', contentType: 'text/html' },
      429: { description: 'Too many requests from this address; see Retry-After (HTML)', contentType: 'text/html' },
      503: { description: 'The page could not be computed just now (HTML)', contentType: 'text/html' },
    },
  },
];
