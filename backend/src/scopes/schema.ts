/** The scope of a rule or a maintenance window in a request body: a customer, a cluster or a system, or null for everything. */
import { z } from 'zod';

export const scopeSchema = z
  .object({
    type: z.enum(['customer', 'cluster', 'system'], { error: 'must be customer, cluster or system' }),
    id: z
      .number({ error: 'must be an id' })
      .int('must be an id')
      .positive('must be an id')
      .max(2_147_483_647, 'must be an id'),
  })
  .nullable();
