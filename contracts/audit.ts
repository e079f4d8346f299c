/** The audit log: GET /api/audit-log (docs/api.md "Audit log"). */
import { z } from 'zod';
import { id, instant, pageLimit } from './common.js';

const text = z.string().trim().min(1).max(200).optional();

export const auditQuery = z
  .object({
    /** `system`, `user:<id>`, `token:<id>`, or part of the actor's name. */
    actor: text,
    customer: z.coerce.number({ error: 'must be a customer id' }).int().positive().max(2_147_483_647).optional(),
    /** An action, or its leading part: `customer` matches `customer.create` and `customer.delete`. */
    action: text,
    /** A target type, or `type:id`. */
    target: text,
    from: z.iso.datetime({ offset: true }).optional(),
    to: z.iso.datetime({ offset: true }).optional(),
    /** `nextCursor` of the previous page. */
    cursor: z.string().max(200).optional(),
    limit: pageLimit(200, 50),
  })
  .strict();

export const auditEntry = z
  .object({
    id,
    at: instant,
    actor: z.object({ type: z.enum(['user', 'token', 'system']), id: id.nullable(), name: z.string().nullable() }),
    address: z.string().nullable(),
    action: z.string(),
    target: z.object({ type: z.string(), id: z.string().nullable() }),
    customerId: id.nullable(),
    /** The changed fields before and after; every secret is "[sealed]". */
    before: z.record(z.string(), z.unknown()).nullable(),
    after: z.record(z.string(), z.unknown()).nullable(),
  })
  .meta({ id: 'AuditEntry' });
export type AuditEntry = z.infer<typeof auditEntry>;

export const auditPage = z
  .object({ items: z.array(auditEntry), nextCursor: z.string().nullable() })
  .meta({ id: 'AuditPage' });
export type AuditPage = z.infer<typeof auditPage>;
