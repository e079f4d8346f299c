/** Systems: /api/systems and their chart data (docs/api.md "Fleet"). */
import { z } from 'zod';
import { id, instant, SAFE_NAME, SAFE_NAME_MESSAGE } from './common.js';
import { MAX_BATCH_SERIES } from './metric-catalogue.js';

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
    /**
     * The newest CPU and memory use and the fullest disk, in percent; null when not reported (only series
     * reported within 5 minutes of the system's newest sample count). An offline system keeps its last.
     */
    usage: z.object({
      cpu: z.number().nullable(),
      memory: z.number().nullable(),
      disk: z.number().nullable(),
      /** The fullest disk's mount point. */
      diskMount: z.string().nullable(),
    }),
  })
  .meta({ id: 'System' });
export type System = z.infer<typeof system>;

export const systemDetail = system
  .extend({
    /** `check`: a network check's own row (its page is /checks/:id); every other system is an `agent`. */
    kind: z.enum(['agent', 'check']),
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
    name: z.string().trim().min(1, 'is required').max(200).regex(SAFE_NAME, SAFE_NAME_MESSAGE),
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

/** A system's script checks as its agent last reported them (docs/protocol.md "Script checks and drop-in metrics"). */
export const scriptCheckList = z
  .array(
    z.object({
      name: z.string(),
      state: z.enum(['OK', 'WARNING', 'CRITICAL', 'UNKNOWN']),
      message: z.string(),
      /** When the agent last ran the check. */
      ranAt: z.iso.datetime({ offset: true }),
      /** The report that last carried it: a check the agent stopped running stays at its last report. */
      reportedAt: z.iso.datetime({ offset: true }),
    }),
  )
  .meta({ id: 'ScriptCheckList' });
export type ScriptCheck = z.infer<typeof scriptCheckList>[number];

/** The image of each of a system's containers as its agent last listed them (docs/protocol.md "Containers and processes"). */
export const containerImageList = z
  .array(
    z.object({
      name: z.string(),
      image: z.string(),
      /** The report that last said so. */
      reportedAt: z.iso.datetime({ offset: true }),
    }),
  )
  .meta({ id: 'ContainerImageList' });
export type ContainerImage = z.infer<typeof containerImageList>[number];

export const metricsQuery = z.object({
  name: z.string().regex(/^[a-z0-9_.]{1,64}$/, 'must be a metric name'),
  instance: z.string().max(128).default(''),
  from: z.iso.datetime({ offset: true }).optional(),
  to: z.iso.datetime({ offset: true }).optional(),
});

export { MAX_BATCH_SERIES };

// "disk.used_pct|/var": the metric name, then after the first `|` the instance (absent or empty: none)
const seriesParam = z
  .string()
  .regex(/^[a-z0-9_.]{1,64}(\|[^\n]{0,128})?$/, 'must be a metric name, optionally followed by | and an instance')
  .transform((value) => {
    const bar = value.indexOf('|');
    return bar < 0 ? { name: value, instance: '' } : { name: value.slice(0, bar), instance: value.slice(bar + 1) };
  });

export const metricsBatchQuery = z.object({
  /** Repeat `series` once per series: `?series=cpu.usage_pct&series=disk.used_pct|/var`. */
  series: z
    .union([z.string(), z.array(z.string())])
    .transform((value) => (Array.isArray(value) ? value : [value]))
    .pipe(
      z
        .array(seriesParam)
        .min(1, 'name at least one series')
        .max(MAX_BATCH_SERIES, `at most ${MAX_BATCH_SERIES} series in one request`),
    ),
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

/** The answer of GET /api/systems/:id/metrics/batch: one source and bucket for the window, the points per series. */
export const chartBatch = z
  .object({
    source: chartData.shape.source,
    bucketSeconds: chartData.shape.bucketSeconds,
    series: z.array(z.object({ name: z.string(), instance: z.string(), points: chartData.shape.points })),
  })
  .meta({ id: 'ChartBatch' });
export type ChartBatch = z.infer<typeof chartBatch>;

/** How GET /api/systems sorts a page (the console at 10,000 systems sorts on the server). */
export const systemSort = z.enum(['name', 'status', 'lastSeen', 'customer', 'cpu', 'memory', 'disk']);
export type SystemSort = z.infer<typeof systemSort>;

const idList = z
  .string()
  .regex(/^\d{1,10}(,\d{1,10}){0,499}$/, 'must be up to 500 ids separated by commas')
  .transform((value) => value.split(',').map(Number));
const statusList = z
  .string()
  .transform((value) => value.split(','))
  .pipe(z.array(systemStatus).min(1).max(6));

const listFilters = {
  /** Part of the name, hostname, customer or cluster name (case-insensitive). */
  q: z.string().trim().max(200).optional(),
  /** One status, or several separated by commas. */
  status: statusList.optional(),
  customer: z.coerce.number().int().positive().optional(),
  cluster: z.coerce.number().int().positive().optional(),
  /** Only these systems (the console's coalesced live updates fetch the rows that changed). */
  ids: idList.optional(),
  sort: systemSort.default('customer'),
  order: z.enum(['asc', 'desc']).default('asc'),
};

/** GET /api/systems: the whole (filtered) array; without parameters exactly what it always answered. */
export const systemsQuery = z.object(listFilters).strict();

/**
 * GET /api/systems/page: one page; `cursor` is the previous page's `nextCursor`, given with the same
 * filters and sort.
 */
export const systemsPageQuery = z
  .object({
    ...listFilters,
    limit: z.coerce.number().int().min(1).max(500).default(100),
    cursor: z.string().max(2000).optional(),
  })
  .strict();
export type SystemsQuery = z.infer<typeof systemsPageQuery>;

export const systemsPage = z
  .object({
    items: z.array(system),
    /** Give it as `cursor` for the next page; null on the last page. */
    nextCursor: z.string().nullable(),
    /** Systems that match the filters, over all pages. */
    total: z.number().int(),
    /** Systems that match the filters other than `status`, per status (the status filter's options). */
    counts: z.record(systemStatus, z.number().int()),
    /** Systems that match the filters, per customer that has any (the console's customer headings). */
    customers: z.array(z.object({ id, count: z.number().int() })),
  })
  .meta({ id: 'SystemsPage' });
export type SystemsPage = z.infer<typeof systemsPage>;
