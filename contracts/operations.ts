/** What monitors and the scheduler read: health and the evaluation run's summary (docs/protocol.md "Scheduler and health"). */
import { z } from 'zod';
import { instant } from './common.js';

const serviceState = z.enum(['ok', 'error']);

export const healthReport = z
  .object({
    status: z.enum(['ok', 'degraded']),
    timestamp: instant,
    services: z.object({ database: serviceState, redis: serviceState }),
    /**
     * Components this instance runs without (the demo runs on an in-memory bus, without Redis): their
     * state in `services` stays `ok` for monitors, and the console shows them as not used.
     */
    notUsed: z.array(z.enum(['redis'])).optional(),
    /** Present when TimescaleDB policy jobs fail or run late: the app works, storage upkeep does not. */
    storage: z.object({ troubledJobs: z.array(z.string()) }).optional(),
    /**
     * Present when the latest evaluation run failed, for all customers (`failedCustomers: "all"`) or
     * some: alerts are not raised or resolved for them until a run succeeds.
     */
    evaluation: z
      .object({
        lastRunAt: instant,
        failedCustomers: z.union([z.literal('all'), z.number().int().min(1)]),
        /** When a run last evaluated every customer (null: none yet). */
        lastCompleteAt: instant.nullable(),
      })
      .optional(),
  })
  .meta({ id: 'Health' });
export type HealthReport = z.infer<typeof healthReport>;

const count = z.number().int().min(0);

export const evaluationResult = z
  .object({
    success: z.literal(true),
    timestamp: instant,
    alerts: z.object({ evaluated: count, triggered: count, resolved: count }),
    health: z.object({ marked_offline: count }),
    /** Per cluster id. */
    clusters: z.record(z.string(), z.object({ systems: count, online: count, offline: count, openAlerts: count })),
  })
  .meta({ id: 'EvaluationRun' });

export const evaluationFailure = z.object({
  success: z.literal(false),
  error: z.string(),
  /** The customers not evaluated when the run failed for some only (the rest of the fleet was). */
  failedCustomers: z.array(z.number().int()).optional(),
});
