/** GET /api/audit-log: ADMIN every row, OPERATOR its customers' rows, VIEWER 403. */
import { routeOf } from '../http/route.js';
import type { AuditService } from './service.js';
import { auditPage, auditQuery } from '../../../contracts/audit.js';

const route = routeOf<AuditService>();

export const auditRoutes = [
  route({
    method: 'get',
    path: '/api/audit-log',
    tag: 'Audit',
    access: 'admin-or-operator',
    summary: 'Who changed what: every write through the API, newest first',
    description:
      "An OPERATOR sees the rows of the customers granted to them. Page with `cursor` = the last answer's `nextCursor`.",
    query: auditQuery,
    responses: { 200: { description: 'A page of entries', schema: auditPage } },
    handler: (audit, { principal, query }) =>
      audit.list(
        principal,
        {
          actor: query.actor,
          customerId: query.customer,
          action: query.action,
          target: query.target,
          from: query.from ? new Date(query.from) : undefined,
          to: query.to ? new Date(query.to) : undefined,
          cursor: query.cursor,
        },
        query.limit,
      ),
  }),
];
