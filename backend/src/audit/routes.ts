/** GET /api/audit-log: ADMIN every row, OPERATOR its customers' rows, VIEWER 403. */
import Router from '@koa/router';
import { z } from 'zod';
import { currentPrincipal, requireRole } from '../http/route-guards.js';
import { pageLimit, parseInput } from '../lib/validate.js';
import type { AuditService } from './service.js';

const text = z.string().trim().min(1).max(200).optional();
const query = z
  .object({
    actor: text,
    customer: z.coerce.number({ error: 'must be a customer id' }).int().positive().max(2_147_483_647).optional(),
    action: text,
    target: text,
    from: z.iso.datetime({ offset: true }).optional(),
    to: z.iso.datetime({ offset: true }).optional(),
    cursor: z.string().max(200).optional(),
    limit: pageLimit(200, 50),
  })
  .strict();

export function auditRoutes(audit: AuditService): Router {
  const router = new Router();
  router.get('/api/audit-log', requireRole('ADMIN', 'OPERATOR'), async (ctx) => {
    const input = parseInput(query, ctx.query);
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
