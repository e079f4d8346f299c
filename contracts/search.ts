/** The console's quick search: /api/search (docs/api.md "Search"). */
import { z } from 'zod';
import { id, severity } from './common.js';
import { alertState } from './alerts.js';
import { CHECK_STATES, CHECK_TYPES } from './checks.js';
import { systemStatus } from './systems.js';

export const searchQuery = z.object({
  q: z.string().trim().min(1, 'is required').max(100, 'must be at most 100 characters'),
});

export const searchResults = z
  .object({
    systems: z.array(
      z.object({ id, name: z.string(), hostname: z.string(), status: systemStatus, customerName: z.string() }),
    ),
    /** Network checks by name (the systems above are the agents' only). */
    checks: z.array(
      z.object({
        id,
        name: z.string(),
        type: z.enum(CHECK_TYPES),
        state: z.enum(CHECK_STATES),
        customerName: z.string(),
      }),
    ),
    customers: z.array(z.object({ id, name: z.string(), active: z.boolean() })),
    /**
     * Containers by name or image, from the series their systems sent in the last day; `image` as the
     * agent last listed it (null from an agent that does not send images).
     */
    containers: z.array(
      z.object({
        name: z.string(),
        image: z.string().nullable(),
        systemId: id,
        systemName: z.string(),
        running: z.boolean(),
      }),
    ),
    alerts: z.array(
      z.object({
        id: z.number().int().positive().max(Number.MAX_SAFE_INTEGER),
        ruleKey: z.string(),
        severity,
        state: alertState,
        message: z.string(),
        systemName: z.string(),
        /** The customer's IANA time zone: the console shows the instants in `message` on that clock. */
        timeZone: z.string(),
      }),
    ),
  })
  .meta({ id: 'SearchResults' });
export type SearchResults = z.infer<typeof searchResults>;
