/** What monitors and the scheduler read: health and the evaluation run's summary (spec "Endpoints"). */
import { z } from 'zod';
import { instant } from './common.js';

const serviceState = z.enum(['ok', 'error']);

export const healthReport = z
  .object({
    status: z.enum(['ok', 'degraded']),
    timestamp: instant,
    services: z.object({ database: serviceState, redis: serviceState }),
    /** Present when TimescaleDB policy jobs fail or run late: the app works, storage upkeep does not. */
    storage: z.object({ troubledJobs: z.array(z.string()) }).optional(),
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

export const evaluationFailure = z.object({ success: z.literal(false), error: z.string() });
