/**
 * Systems as the console and automation see them (docs/api.md "Fleet"),
 * filtered by what the account may see, and their chart data: raw, 5-minute or
 * 1-hour rollups picked by range (≤ 2 d raw, ≤ 30 d 5m, else 1h), at most
 * ~1000 points, working from raw rows when TimescaleDB is absent.
 */
import type { Bus } from '../bus/bus.js';
import { canSeeCustomer, canWriteCustomer, visibleTo, type Principal } from '../lib/access.js';
import { Forbidden, Invalid, NotFound } from '../lib/errors.js';
import type { Clock } from '../lib/clock.js';
import type { AuditActor, AuditTrail } from '../lib/audit-trail.js';
import type { SeriesQuery, SystemRow, SystemsRepo, Usage } from './repo.js';
import type { ContainerImagesReader } from './container-images-repo.js';
import type { ScriptChecksReader } from './script-checks-repo.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
export const MAX_POINTS = 1000;

export interface SystemView {
  id: number;
  name: string;
  hostname: string;
  status: string;
  customer: { id: number; name: string };
  cluster: { id: number; name: string } | null;
  lastSeenAt: string | null;
  agentVersion: string | null;
  os: string | null;
  openAlerts: { critical: number; warning: number; info: number };
  usage: Usage;
}

export interface SystemDetail extends SystemView {
  kind: 'agent' | 'check';
  kernel: string | null;
  arch: string | null;
  cores: number | null;
  offlineAlerts: boolean;
  /** Set when an offered agent build failed (docs/protocol.md "Agent updates"); cleared by "retry update". */
  updateFailedVersion: string | null;
}

export function view(row: SystemRow): SystemView {
  return {
    id: row.id,
    name: row.name,
    hostname: row.hostname,
    status: row.status,
    customer: { id: row.customerId, name: row.customerName },
    cluster: row.clusterId === null ? null : { id: row.clusterId, name: row.clusterName ?? '' },
    lastSeenAt: row.lastSeenAt?.toISOString() ?? null,
    agentVersion: row.agentVersion,
    os: row.os,
    openAlerts: { critical: row.openCritical, warning: row.openWarning, info: row.openInfo },
    usage: row.usage,
  };
}

const detail = (row: SystemRow): SystemDetail => ({
  ...view(row),
  kind: row.kind,
  kernel: row.kernel,
  arch: row.arch,
  cores: row.cores,
  offlineAlerts: row.offlineAlerts,
  updateFailedVersion: row.updateFailedVersion,
});

/** Chart source by range; the bucket keeps the answer near MAX_POINTS. */
export function pickSource(rangeMs: number, rollups: boolean): { source: ChartSource; bucketSeconds: number } {
  const source = !rollups || rangeMs <= 2 * DAY ? 'raw' : rangeMs <= 30 * DAY ? '5m' : '1h';
  const floor = source === 'raw' ? 1 : source === '5m' ? 300 : 3600;
  const wanted = Math.ceil(rangeMs / 1000 / MAX_POINTS);
  // a multiple of the source's own bucket, so rollup buckets are never split
  return { source, bucketSeconds: Math.max(floor, Math.ceil(wanted / floor) * floor) };
}

export type ChartSource = 'raw' | '5m' | '1h';
/** [epoch ms, average, minimum, maximum] of one bucket. */
type ChartPoint = [number, number, number, number];

/** Several series of one system over one window. */
export interface BatchQuery {
  systemId: number;
  series: readonly { name: string; instance: string }[];
  from: Date;
  to: Date;
}

export interface SystemChanges {
  name?: string | undefined;
  customerId?: number | undefined;
  clusterId?: number | null | undefined;
  offlineAlerts?: boolean | undefined;
}

/** What the audit log keeps of a system. */
const systemFacts = ({ name, hostname, customerId, clusterId, offlineAlerts }: SystemRow) => ({
  name,
  hostname,
  customerId,
  clusterId,
  offlineAlerts,
});

export function createSystemsService({
  repo,
  scriptChecks,
  containerImages,
  bus,
  clock,
  audit,
}: {
  repo: SystemsRepo;
  scriptChecks: ScriptChecksReader;
  containerImages: ContainerImagesReader;
  bus: Bus;
  clock: Clock;
  audit: AuditTrail;
}) {
  async function visibleSystem(principal: Principal, id: number): Promise<SystemRow> {
    const row = await repo.find(id);
    if (!row || !canSeeCustomer(principal, row.customerId)) throw new NotFound('No such system');
    return row;
  }

  async function writableSystem(principal: Principal, id: number): Promise<SystemRow> {
    const row = await visibleSystem(principal, id);
    if (!canWriteCustomer(principal, row.customerId)) throw new Forbidden('You may not change this customer');
    return row;
  }

  const changed = (id: number) => bus.publish('systems', { id });

  /** The source and bucket for a chart window; refuses an empty or too long one. */
  async function chartSource(window: { from: Date; to: Date }) {
    const rangeMs = window.to.getTime() - window.from.getTime();
    if (rangeMs <= 0) throw new Invalid('from: must be before to', { field: 'from' });
    if (rangeMs > 400 * DAY) throw new Invalid('from: at most 400 days back', { field: 'from' });
    return pickSource(rangeMs, await repo.rollupsExist());
  }

  async function readPoints(q: SeriesQuery, source: ChartSource, bucketSeconds: number): Promise<ChartPoint[]> {
    const points =
      source === 'raw'
        ? await repo.rawPoints(q, bucketSeconds)
        : await repo.rollupPoints(source === '5m' ? 'metrics_5m' : 'metrics_1h', q, bucketSeconds);
    return points.map((p) => [p.t, p.avg, p.min, p.max]);
  }

  return {
    async list(principal: Principal): Promise<SystemView[]> {
      return (await repo.list(visibleTo(principal))).map(view);
    },

    async get(principal: Principal, id: number): Promise<SystemDetail> {
      return detail(await visibleSystem(principal, id));
    },

    /** Rename, move to another customer or cluster, switch offline alerts; moving needs write rights at both ends. */
    async update(actor: AuditActor, principal: Principal, id: number, changes: SystemChanges): Promise<SystemDetail> {
      const current = await writableSystem(principal, id);
      const customerId = changes.customerId ?? current.customerId;
      if (!canWriteCustomer(principal, customerId)) throw new Forbidden('You may not move systems to this customer');
      let clusterId = changes.clusterId === undefined ? current.clusterId : changes.clusterId;
      // a move to another customer leaves the old customer's cluster behind
      if (changes.customerId !== undefined && changes.clusterId === undefined && customerId !== current.customerId) {
        clusterId = null;
      }
      if (clusterId !== null && (await repo.clusterCustomer(clusterId)) !== customerId) {
        throw new Invalid("clusterId: the cluster must belong to the system's customer", { field: 'clusterId' });
      }
      const updated = await repo.transaction(async (trx) => {
        await repo.update(id, { ...changes, customerId, clusterId }, trx);
        const row = (await repo.find(id, trx)) as SystemRow;
        await audit.record(trx, actor, {
          action: 'system.update',
          targetType: 'system',
          targetId: id,
          customerId,
          before: systemFacts(current),
          after: systemFacts(row),
        });
        return row;
      });
      await changed(id);
      return detail(updated);
    },

    async remove(actor: AuditActor, principal: Principal, id: number): Promise<void> {
      const current = await writableSystem(principal, id);
      await repo.transaction(async (trx) => {
        await repo.delete(id, trx);
        await audit.record(trx, actor, {
          action: 'system.delete',
          targetType: 'system',
          targetId: id,
          customerId: current.customerId,
          before: systemFacts(current),
        });
      });
      await changed(id);
    },

    async reEnroll(actor: AuditActor, principal: Principal, id: number): Promise<void> {
      const current = await visibleSystem(principal, id);
      await repo.transaction(async (trx) => {
        await repo.resetAgentKey(id, trx);
        await audit.record(trx, actor, {
          action: 'system.re_enroll',
          targetType: 'system',
          targetId: id,
          customerId: current.customerId,
        });
      });
    },

    async series(principal: Principal, id: number) {
      await visibleSystem(principal, id);
      return repo.recentSeries(id, new Date(clock.now().getTime() - DAY));
    },

    /** Its script checks with their last state, message and run. */
    async scriptChecks(principal: Principal, id: number) {
      await visibleSystem(principal, id);
      return scriptChecks.ofSystem(id);
    },

    /** The image of each of its containers, as its agent last listed them. */
    async containerImages(principal: Principal, id: number) {
      await visibleSystem(principal, id);
      return containerImages.ofSystem(id);
    },

    async metrics(principal: Principal, q: SeriesQuery) {
      await visibleSystem(principal, q.systemId);
      const { source, bucketSeconds } = await chartSource(q);
      const points = await readPoints(q, source, bucketSeconds);
      return { source, bucketSeconds, points };
    },

    /**
     * Several series of one system over one window, for a chart page in one request: the same rights,
     * source and buckets as `metrics`, every series read by one statement (each row once).
     */
    async metricsBatch(principal: Principal, q: BatchQuery) {
      await visibleSystem(principal, q.systemId);
      const { source, bucketSeconds } = await chartSource(q);
      const series = [...new Map(q.series.map((s) => [`${s.name}\n${s.instance}`, s])).values()];
      // one statement: a statement per series read every row once per series (2 s for a page on the demo)
      const batch = { systemId: q.systemId, series, from: q.from, to: q.to };
      const points =
        source === 'raw'
          ? await repo.rawBatch(batch, bucketSeconds)
          : await repo.rollupBatch(source === '5m' ? 'metrics_5m' : 'metrics_1h', batch, bucketSeconds);
      return {
        source,
        bucketSeconds,
        series: series.map(({ name, instance }, i) => ({
          name,
          instance,
          points: (points[i] ?? []).map((p): ChartPoint => [p.t, p.avg, p.min, p.max]),
        })),
      };
    },
  };
}

export type SystemsService = ReturnType<typeof createSystemsService>;
