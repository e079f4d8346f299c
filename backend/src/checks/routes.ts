/** /api/checks: network checks of a customer, and "Try it now". */
import { z } from 'zod';
import {
  check,
  checkChanges,
  checkCreate,
  checkResult,
  checksQuery,
  checksSummary,
  checkTryBody,
} from '../../../contracts/checks.js';
import { idParam, routeOf } from '../http/route.js';
import type { ChecksService } from './service.js';

const route = routeOf<ChecksService>();
const tag = 'Checks';
const checkId = { id: idParam('check') };

export const checksRoutes = [
  route({
    method: 'get',
    path: '/api/checks',
    tag,
    access: 'signed-in',
    summary: 'List the network checks the account may see',
    description:
      'Each with its state (UP, DOWN, DEGRADED, PENDING, PAUSED) and last result; `customer` keeps one customer.',
    query: checksQuery,
    responses: { 200: { description: 'The checks', schema: z.array(check) } },
    handler: (checks, { principal, query }) => checks.list(principal, query.customer ?? null),
  }),
  // before /:id, which would take "summary" for an id
  route({
    method: 'get',
    path: '/api/checks/summary',
    tag,
    access: 'signed-in',
    summary: 'How many checks of each visible customer are in each state',
    description: 'One entry per customer that has checks: `total` and the count of each state.',
    responses: { 200: { description: 'Counts per customer', schema: checksSummary } },
    handler: (checks, { principal }) => checks.summary(principal),
  }),
  // before /:id, which would take "try" for an id
  route({
    method: 'post',
    path: '/api/checks/try',
    tag,
    access: 'customer-writer',
    summary: 'Run a check once from the server before saving it',
    description:
      'Answers the status, timing, certificate and whether the keyword matched — never the body. The address ' +
      'policy of the server applies: a refused target answers `up: false` with the reason.',
    body: checkTryBody,
    responses: { 200: { description: 'What the run measured', schema: checkResult } },
    handler: (checks, { principal, body }) => checks.tryNow(principal, body),
  }),
  route({
    method: 'get',
    path: '/api/checks/:id',
    tag,
    access: 'signed-in',
    summary: 'One check',
    params: checkId,
    responses: { 200: { description: 'The check', schema: check } },
    handler: (checks, { principal, params }) => checks.get(principal, params.id),
  }),
  // the service checks the grant on the check's customer: 404 unseen, 403 read-only
  route({
    method: 'post',
    path: '/api/checks',
    tag,
    access: 'customer-writer',
    summary: 'Create a check',
    body: checkCreate,
    responses: { 201: { description: 'Created', schema: check } },
    handler: (checks, { actor, principal, body }) => checks.create(actor, principal, body),
  }),
  route({
    method: 'patch',
    path: '/api/checks/:id',
    tag,
    access: 'customer-writer',
    summary: 'Change a check: its settings, timing, cluster, or pause and resume it',
    params: checkId,
    body: checkChanges,
    responses: { 200: { description: 'Changed', schema: check } },
    handler: (checks, { actor, principal, params, body }) => checks.update(actor, principal, params.id, body),
  }),
  route({
    method: 'delete',
    path: '/api/checks/:id',
    tag,
    access: 'customer-writer',
    summary: 'Delete a check with its results and alerts',
    params: checkId,
    responses: { 204: { description: 'Deleted' } },
    handler: async (checks, { actor, principal, params }) => {
      await checks.remove(actor, principal, params.id);
    },
  }),
];
