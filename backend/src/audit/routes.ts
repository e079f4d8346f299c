/** GET /api/audit-log: ADMIN every row, OPERATOR its customers' rows, VIEWER 403. */
import Router from '@koa/router';
import { currentPrincipal, requireRole } from '../http/route-guards.js';
import { parseInput } from '../lib/validate.js';
import type { AuditService } from './service.js';
import type { RouteDoc } from '../http/openapi.js';
import { auditPage, auditQuery } from '../../../contracts/audit.js';

export function auditRoutes(audit: AuditService): Router {
  const router = new Router();
  router.get('/api/audit-log', requireRole('ADMIN', 'OPERATOR'), async (ctx) => {
    const input = parseInput(auditQuery, ctx.query);
    ctx.body = await audit.list(
      currentPrincipal(ctx.state),
      {
        actor: input.actor,
        customerId: input.customer,
        action: input.action,
        target: input.target,
        from: input.from ? new Date(input.from) : undefined,
        to: input.to ? new Date(input.to) : undefined,
        cursor: input.cursor,
      },
      input.limit,
    );
  });
  return router;
}

export const auditApi: RouteDoc[] = [
  {
    method: 'get',
    path: '/api/audit-log',
    tag: 'Audit',
    access: 'admin-or-operator',
    summary: 'Who changed what: every write through the API, newest first',
    description:
      "An OPERATOR sees the rows of the customers granted to them. Page with `cursor` = the last answer's `nextCursor`.",
    query: auditQuery,
    responses: { 200: { description: 'A page of entries', schema: auditPage } },
  },
];
