/** Systems: /api/systems and their chart data (docs/api.md "Systems"). */
import { z } from 'zod';
import { id, instant } from './common.js';

export const systemStatus = z.enum(['PENDING', 'ONLINE', 'WARNING', 'CRITICAL', 'OFFLINE', 'STANDBY']);
export type SystemStatus = z.infer<typeof systemStatus>;

const named = z.object({ id, name: z.string() });

export const system = z
  .object({
    id,
    name: z.string(),
    hostname: z.string(),
    status: systemStatus,
    customer: named,
    cluster: named.nullable(),
    lastSeenAt: instant.nullable(),
    agentVersion: z.string().nullable(),
    os: z.string().nullable(),
    openAlerts: z.object({ critical: z.number().int(), warning: z.number().int(), info: z.number().int() }),
  })
  .meta({ id: 'System' });
export type System = z.infer<typeof system>;

export const systemDetail = system
  .extend({
    kernel: z.string().nullable(),
    arch: z.string().nullable(),
    cores: z.number().int().nullable(),
    offlineAlerts: z.boolean(),
    /** Set when an offered agent build failed (the update-failure guard); cleared by "retry update". */
    updateFailedVersion: z.string().nullable(),
  })
  .meta({ id: 'SystemDetail' });
export type SystemDetail = z.infer<typeof systemDetail>;

export const updateSystemBody = z
  .object({
    name: z.string().trim().min(1, 'is required').max(200),
    customerId: id,
    clusterId: id.nullable(),
    offlineAlerts: z.boolean(),
  })
  .partial()
  .strict()
  .meta({ id: 'UpdateSystem' });
export type SystemChanges = z.input<typeof updateSystemBody>;

export const seriesList = z.array(z.object({ name: z.string(), instance: z.string() })).meta({ id: 'SeriesList' });
export type SeriesName = z.infer<typeof seriesList>[number];

export const metricsQuery = z.object({
  name: z.string().regex(/^[a-z0-9_.]{1,64}$/, 'must be a metric name'),
  instance: z.string().max(128).default(''),
  from: z.iso.datetime({ offset: true }).optional(),
  to: z.iso.datetime({ offset: true }).optional(),
});

export const chartData = z
  .object({
    source: z.enum(['raw', '5m', '1h']),
    bucketSeconds: z.number().int().positive(),
    /** [epoch milliseconds, average, minimum, maximum] per bucket, oldest first. */
    points: z.array(z.tuple([z.number(), z.number(), z.number(), z.number()])),
  })
  .meta({ id: 'ChartData' });
export type ChartData = z.infer<typeof chartData>;
