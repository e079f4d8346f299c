/** /api/status-pages: a customer's published status pages, for its writers. */
import { z } from 'zod';
import {
  statusPage,
  statusPageChanges,
  statusPageCreate,
  statusPageListQuery,
} from '../../../contracts/status-pages.js';
import { idParam, routeOf } from '../http/route.js';
import type { StatusPagesService } from './service.js';

const route = routeOf<StatusPagesService>();
const tag = 'Status pages';
const pageId = { id: idParam('status page') };

// the list holds the slugs, which are the pages' keys: writers only, like the pages themselves
export const statusPagesRoutes = [
  route({
    method: 'get',
    path: '/api/status-pages',
    tag,
    access: 'admin-or-operator',
    summary: 'The published status pages of the customers the account may change (optionally one customer)',
    query: statusPageListQuery,
    responses: { 200: { description: 'The pages, with their public addresses', schema: z.array(statusPage) } },
    handler: (pages, { principal, query }) => pages.list(principal, query.customer),
  }),
  route({
    method: 'post',
    path: '/api/status-pages',
    tag,
    access: 'admin-or-operator',
    summary: "Publish a status page of a customer's systems and clusters at /status/<slug>",
    description:
      'Each item names a system or a cluster of the same customer and the name the public page shows ' +
      "(the system's own name and hostname never appear there). The slug is 144 random bits.",
    body: statusPageCreate,
    responses: { 201: { description: 'Published', schema: statusPage } },
    handler: (pages, { actor, principal, body }) => pages.create(actor, principal, body),
  }),
  route({
    method: 'patch',
    path: '/api/status-pages/:id',
    tag,
    access: 'admin-or-operator',
    summary: "Change a status page's title, items or announcement",
    params: pageId,
    body: statusPageChanges,
    responses: { 200: { description: 'Changed', schema: statusPage } },
    handler: (pages, { actor, principal, params, body }) => pages.update(actor, principal, params.id, body),
  }),
  route({
    method: 'post',
    path: '/api/status-pages/:id/rotate',
    tag,
    access: 'admin-or-operator',
    summary: 'Give the page a new address; the old one answers 404 from now on',
    params: pageId,
    responses: { 200: { description: 'The page at its new address', schema: statusPage } },
    handler: (pages, { actor, principal, params }) => pages.rotate(actor, principal, params.id),
  }),
  route({
    method: 'delete',
    path: '/api/status-pages/:id',
    tag,
    access: 'admin-or-operator',
    summary: 'Revoke (delete) a status page: its address answers 404',
    params: pageId,
    responses: { 204: { description: 'Revoked' } },
    handler: async (pages, { actor, principal, params }) => {
      await pages.remove(actor, principal, params.id);
    },
  }),
];
