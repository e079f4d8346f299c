/**
 * The live channel, built once by the composition root: `GET /api/live`'s declaration, and the hub
 * built from the app's services when main.ts attaches it to the HTTP server: authentication and
 * rights exactly as HTTP has them, snapshots from the systems service and the live repo, all
 * filtered by the same visibility rule.
 */
import type Koa from 'koa';
import type { Knex } from 'knex';
import type { Principal } from '../lib/access.js';
import type { Bus } from '../bus/bus.js';
import type { Clock } from '../lib/clock.js';
import { NotFound } from '../lib/errors.js';
import type { OriginRule } from '../http/origin.js';
import { mountRoutes } from '../http/route.js';
import type { Logger } from '../lib/logger.js';
import type { LiveMetrics } from '../lib/self-metrics.js';
import type { SharedOverviews } from '../overview/recent.js';
import type { Overview } from '../../../contracts/overview.js';
import type { SystemsService } from '../systems/service.js';
import { createLiveHub, type LiveHub } from './hub.js';
import type { SnapshotTopic } from './protocol.js';
import type { ReplayLimits } from './replay.js';
import { createLiveRepo } from './repo.js';
import { liveRoutes } from './routes.js';
import type { Visible } from '../lib/access.js';
import type { Ticker } from './ticker.js';
import { createUpgradeAuth } from './upgrade-auth.js';

export interface LiveAssemblyDeps {
  app: Koa;
  authentication: Koa.Middleware;
  origins: OriginRule;
  db: Knex;
  bus: Bus;
  clock: Clock;
  log: Logger;
  systems: SystemsService;
  overview: SharedOverviews<Overview>;
  /** Argus's own metrics: open sockets, frames sent. */
  metrics?: LiveMetrics;
}

export interface LiveOptions {
  ticker?: Ticker;
  replayLimits?: ReplayLimits;
}

/** The principal a snapshot is computed as: only its visible set matters (one per audience). */
function audiencePrincipal(visible: Visible): Principal {
  return {
    userId: 0,
    role: visible === null ? 'ADMIN' : 'VIEWER',
    email: '',
    via: 'session',
    sessionId: null,
    tokenId: null,
    customerIds: visible ?? new Set(),
  };
}

export function assembleLiveHub(deps: LiveAssemblyDeps, options: LiveOptions = {}): LiveHub {
  const repo = createLiveRepo(deps.db);
  const everything = audiencePrincipal(null);
  return createLiveHub({
    bus: deps.bus,
    clock: deps.clock,
    log: deps.log.child({ component: 'live' }),
    ...(deps.metrics ? { metrics: deps.metrics } : {}),
    authenticate: createUpgradeAuth(deps),
    credentials: { rightsNow: (query) => repo.rightsNow(query, deps.clock.now()) },
    fleetFingerprint: () => repo.fleetFingerprint(),
    computeSnapshot: (topic: SnapshotTopic, visible: Visible) => {
      if (topic === 'overview') return deps.overview.recentOrCompute(visible);
      return topic === 'systems.list' ? deps.systems.list(audiencePrincipal(visible)) : repo.openAlertCounts(visible);
    },
    onSnapshotInvalidate: (topics) => {
      if (topics.includes('overview')) deps.overview.forget();
    },
    customersOfSystems: (systemIds) => repo.customersOfSystems(systemIds),
    customerOfSystem: async (systemId) => {
      try {
        return (await deps.systems.get(everything, systemId)).customer.id;
      } catch (error) {
        if (error instanceof NotFound) return null;
        throw error;
      }
    },
    ...options,
  });
}

/** The upgrade is no Koa route: the declaration documents it, the hub (built on the app) serves it. */
export function assembleLive(deps: Omit<LiveAssemblyDeps, 'app'>) {
  return {
    routes: mountRoutes(liveRoutes, undefined),
    hub: (app: Koa, options?: LiveOptions) => assembleLiveHub({ ...deps, app }, options),
  };
}
