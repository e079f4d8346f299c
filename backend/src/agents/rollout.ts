/**
 * Agent updates (docs/protocol.md "Agent updates", docs/api.md "Agent settings and agent updates").
 * The ingest answer asks `offerAfterReport` on every
 * accepted request: it records the version the agent reported in it, then
 * answers the offer. Both steps read memory in the steady state (builds and each
 * system's update columns are cached; one app instance owns them), so an
 * up-to-date fleet costs the ingest path no query.
 *
 * - mode `all`: the newest build for the system's architecture is offered to
 *   every system on an older version.
 * - mode `canary`: per customer and architecture, first only to the canary (the
 *   lowest system id among that customer's systems of that architecture that
 *   reported in the last 10 minutes, pinned when the version is first asked for);
 *   to the rest once the canary itself has reported the new version for 10
 *   minutes. A canary that fails the update halts the rollout at its customer
 *   until an admin resumes it (canary.ts).
 * - guard: an agent offered V that reports another (older) version in three
 *   requests in a row is marked update_failed for V and not offered V again until
 *   an admin's "retry update" (the 2.27.0 loop: it reported an older version than
 *   the one it installed, and was offered the update forever).
 */
import type { AuditActor, AuditTrail } from '../lib/audit-trail.js';
import type { Knex } from 'knex';
import type { Clock } from '../lib/clock.js';
import type { Logger } from '../lib/logger.js';
import type { AgentDist, AgentOffer } from './dist.js';
import {
  createAgentsRepo,
  type AgentsRepo,
  type RolloutMode,
  type UpdateState,
  type UpdateStatePatch,
} from './repo.js';
import { CANARY_CONFIRM_MS, createCanaryGate } from './canary.js';
import { createRolloutsRepo, type Rollout, type RolloutsRepo } from './rollouts-repo.js';
import { compareVersions } from './versions.js';
/** Requests in a row reporting another version after an offer before the offer is marked failed. */
export const UPDATE_FAILURE_LIMIT = 3;
const MODE_CACHE_MS = 10_000;
const STATE_CACHE_MAX = 100_000;

/** What ingest knows about the reporting system. */
export interface UpdateCandidate {
  id: number;
  customerId: number;
  /** The version the agent reported in this request. */
  agentVersion: string | null;
  arch: string | null;
}

export interface AgentUpdatesDeps {
  db: Knex;
  dist: Pick<AgentDist, 'latest' | 'offer'>;
  clock: Clock;
  log: Logger;
  repo?: AgentsRepo;
  rollouts?: RolloutsRepo;
  audit: AuditTrail;
}

export function createAgentUpdates({
  db,
  dist,
  clock,
  log,
  audit,
  repo = createAgentsRepo(db),
  rollouts = createRolloutsRepo(db),
}: AgentUpdatesDeps) {
  const states = new Map<number, UpdateState>();
  let mode: { value: RolloutMode; at: number } | null = null;

  function remember(systemId: number, state: UpdateState | null): UpdateState | null {
    if (!state) {
      states.delete(systemId);
      return null;
    }
    if (states.size >= STATE_CACHE_MAX && !states.has(systemId)) states.clear();
    states.set(systemId, state);
    return state;
  }

  async function stateOf(systemId: number): Promise<UpdateState | null> {
    return states.get(systemId) ?? remember(systemId, await repo.findUpdateState(systemId));
  }

  async function save(systemId: number, patch: UpdateStatePatch): Promise<UpdateState | null> {
    return remember(systemId, await repo.updateUpdateState(systemId, patch));
  }

  async function rolloutMode(): Promise<RolloutMode> {
    const now = clock.now().getTime();
    if (mode && now - mode.at < MODE_CACHE_MS && now >= mode.at) return mode.value;
    const value = (await repo.findRolloutMode()) ?? 'all';
    mode = { value, at: now };
    return value;
  }

  const canary = createCanaryGate({
    rollouts,
    clock,
    log,
    audit,
    stateOf,
    async clearFailure(systemId, version, trx) {
      const state = await repo.findUpdateState(systemId);
      if (state?.failedVersion === version) await repo.clearUpdateFailure(systemId, trx);
    },
    forget: (systemId) => states.delete(systemId),
  });

  const service = {
    /**
     * The ingest seam (`updateOffer` of the ingest routes): records the version this
     * accepted request reported, then answers the update to offer in its answer.
     */
    async offerAfterReport(system: UpdateCandidate): Promise<AgentOffer | null> {
      if (system.agentVersion) await service.recordReportedVersion(system.id, system.agentVersion);
      return service.offerFor(system);
    },

    /** The update to put in this system's ingest answer, or null. */
    async offerFor(system: UpdateCandidate): Promise<AgentOffer | null> {
      if (!system.arch || !system.agentVersion) return null;
      const build = await dist.latest(system.arch);
      // never a downgrade: an agent newer than every build keeps what it runs
      if (!build || compareVersions(system.agentVersion, build.version) >= 0) return null;
      const state = await stateOf(system.id);
      if (!state || state.failedVersion === build.version) return null;
      if ((await rolloutMode()) === 'canary' && !(await canary.allows({ ...system, arch: system.arch }, build.version)))
        return null;
      if (state.offeredVersion !== build.version) await save(system.id, { offeredVersion: build.version, failures: 0 });
      return dist.offer(build);
    },

    /** The version an agent reported in an accepted request (call before offerFor). */
    async recordReportedVersion(systemId: number, version: string): Promise<void> {
      const state = await stateOf(systemId);
      if (!state || version === '') return;
      const now = clock.now();
      const patch: UpdateStatePatch = {};
      if (state.reportedVersion !== version) {
        Object.assign(patch, { reportedVersion: version, reportedSince: now, confirmedAt: null });
      } else if (
        !state.confirmedAt &&
        state.reportedSince &&
        now.getTime() - state.reportedSince.getTime() >= CANARY_CONFIRM_MS
      ) {
        patch.confirmedAt = now;
      }
      const offered = state.offeredVersion;
      const updated = offered !== null && compareVersions(version, offered) >= 0;
      if (updated) Object.assign(patch, { offeredVersion: null, failures: 0 });
      // an agent that reached a failed build some other way (by hand, a newer build) is no longer failing
      if (state.failedVersion !== null && compareVersions(version, state.failedVersion) >= 0)
        Object.assign(patch, { failedVersion: null, failures: 0 });
      if (Object.keys(patch).length > 0) await save(systemId, patch);
      if (offered === null || updated) return;

      const counted = remember(systemId, await repo.countUpdateFailure(systemId, offered, UPDATE_FAILURE_LIMIT));
      if (counted?.failedVersion === offered && counted.offeredVersion === null) {
        log.warn(
          { systemId, offered, reported: version, failures: counted.failures },
          'Agent update failed: the agent keeps reporting another version; not offered again until an admin retries',
        );
        await canary.canaryFailed(systemId, offered);
      }
    },

    /** The admin's "retry update": the failed build may be offered again. False when there is no such system. */
    async retryUpdate(actor: AuditActor, systemId: number): Promise<boolean> {
      let resumed: Rollout[] = [];
      const cleared = await repo.transaction(async (trx) => {
        const row = await repo.clearUpdateFailure(systemId, trx);
        if (!row) return null;
        await audit.record(trx, actor, { action: 'system.retry_update', targetType: 'system', targetId: systemId });
        resumed = await canary.resumeOfCanary(actor, systemId, trx);
        return row;
      });
      canary.committed(resumed);
      const state = remember(systemId, cleared);
      if (state) log.info({ systemId }, 'Agent update failure cleared: the update will be offered again');
      return state !== null;
    },

    /** Canary rollouts, for the console (ADMIN). */
    listRollouts: () => canary.list(),

    /** An admin resumes a halted canary rollout. */
    resumeRollout: (actor: AuditActor, id: number) => canary.resume(actor, id),

    async getRolloutMode(): Promise<RolloutMode> {
      return rolloutMode();
    },

    async setRolloutMode(actor: AuditActor, value: RolloutMode): Promise<RolloutMode> {
      await repo.transaction(async (trx) => {
        const before = (await repo.findRolloutMode(trx)) ?? 'all';
        await repo.saveRolloutMode(value, trx);
        await audit.record(trx, actor, {
          action: 'settings.agent_rollout.update',
          targetType: 'settings',
          targetId: 'agent_rollout',
          before: { mode: before },
          after: { mode: value },
        });
      });
      mode = { value, at: clock.now().getTime() };
      return value;
    },
  };
  return service;
}

export type AgentUpdates = ReturnType<typeof createAgentUpdates>;
