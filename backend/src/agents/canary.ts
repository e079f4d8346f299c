/**
 * The canary gate of rollout mode `canary` (docs/api.md "Agent settings and agent updates";
 * docs/decisions.md "Rollouts widen only on the canary's own report"). Per customer, architecture and version one
 * row (rollouts-repo.ts) pins the canary chosen when the version was first asked for there:
 *
 * - only that canary is offered the build until it has itself reported the version for
 *   CANARY_CONFIRM_MS; another system's report of the version proves nothing (it was never offered
 *   the build, and an agent's report is only its word);
 * - a canary that fails the update halts the rollout, and it stays halted (whatever any system
 *   reports later) until an administrator resumes it;
 * - a canary that goes quiet is not replaced: a quiet canary may be one the update broke.
 *
 * Rows are cached in memory (one app instance owns them, and every change passes here), so a
 * released rollout costs the ingest path no query.
 */
import type { Knex } from 'knex';
import type { AuditActor, AuditTrail } from '../lib/audit-trail.js';
import type { Clock } from '../lib/clock.js';
import { Conflict, NotFound } from '../lib/errors.js';
import type { Logger } from '../lib/logger.js';
import type { UpdateState } from './repo.js';
import type { Rollout, RolloutKey, RolloutListItem, RolloutsRepo } from './rollouts-repo.js';
import { archSpellings, normaliseArch } from './versions.js';

/** A canary must report the new version for this long before the rest of its customer is offered it. */
export const CANARY_CONFIRM_MS = 10 * 60_000;
/** Systems that reported within this window can be a customer's canary. */
export const CANARY_RECENT_MS = 10 * 60_000;
/** Rollouts the console lists at most. */
export const ROLLOUT_LIST_LIMIT = 200;

export interface CanaryGateDeps {
  rollouts: RolloutsRepo;
  clock: Clock;
  log: Logger;
  audit: AuditTrail;
  /** A system's update columns, as the rollout service caches them. */
  stateOf(systemId: number): Promise<UpdateState | null>;
  /** Lets a system that failed `version` be offered it again, inside the resume's transaction. */
  clearFailure(systemId: number, version: string, trx: Knex): Promise<void>;
  /** After a resume commits: the service reads the canary's update columns anew. */
  forget(systemId: number): void;
}

export interface GateSystem {
  id: number;
  customerId: number;
  arch: string;
}

export function createCanaryGate({ rollouts, clock, log, audit, stateOf, clearFailure, forget }: CanaryGateDeps) {
  const cache = new Map<string, Rollout>();
  const keyOf = (key: RolloutKey) => `${key.customerId}/${key.arch}/${key.version}`;
  const remember = (rollout: Rollout | null): Rollout | null => {
    if (rollout) cache.set(keyOf(rollout), rollout);
    return rollout;
  };
  const recentSince = () => new Date(clock.now().getTime() - CANARY_RECENT_MS);

  async function rolloutFor(system: GateSystem, key: RolloutKey): Promise<Rollout | null> {
    const known = cache.get(keyOf(key)) ?? remember(await rollouts.findRollout(key));
    if (known) return known;
    const canary = await rollouts.findCanaryCandidate({
      customerId: key.customerId,
      arches: archSpellings(key.arch),
      selfId: system.id,
      recentSince: recentSince(),
    });
    return canary === null ? null : remember(await rollouts.startRollout(key, canary, clock.now()));
  }

  /** Whether the canary itself has reported the version for the confirmation period. */
  async function confirmedByCanary(rollout: Rollout): Promise<boolean> {
    if (rollout.canarySystemId === null) return false;
    const state = await stateOf(rollout.canarySystemId);
    return state?.reportedVersion === rollout.version && state.confirmedAt !== null;
  }

  async function release(rollout: Rollout): Promise<Rollout> {
    const released = await rollouts.releaseRollout(rollout.id, clock.now());
    if (released) log.info({ rollout: released }, 'Agent rollout released: the canary runs the new version');
    return remember(released ?? (await rollouts.findRollout(rollout))) ?? rollout;
  }

  return {
    /** Whether `system` may be offered `version` now. */
    async allows(system: GateSystem, version: string): Promise<boolean> {
      const key = { customerId: system.customerId, arch: normaliseArch(system.arch), version };
      let rollout = await rolloutFor(system, key);
      if (!rollout) return false;
      if (rollout.state === 'canary' && (await confirmedByCanary(rollout))) rollout = await release(rollout);
      if (rollout.state === 'released') return true;
      return rollout.state === 'canary' && rollout.canarySystemId === system.id;
    },

    /** A system was marked failed for `version`: the rollouts it is the canary of halt. */
    async canaryFailed(systemId: number, version: string): Promise<void> {
      for (const halted of await rollouts.haltRolloutsOfCanary(systemId, version, clock.now())) {
        remember(halted);
        log.warn(
          { rollout: halted },
          'Agent rollout halted: its canary failed the update; nothing more is offered until an administrator resumes it',
        );
      }
    },

    /**
     * An administrator resumes a halted rollout: its canary (a system that reported recently, when
     * the old one is gone) is offered the build again; the rest still wait for its report.
     */
    async resume(actor: AuditActor, id: number): Promise<RolloutListItem> {
      const resumed = await rollouts.transaction(async (trx) => {
        const before = await rollouts.findRolloutById(id, trx);
        if (!before) throw new NotFound('No such rollout');
        if (before.state !== 'halted') throw new Conflict('Only a halted rollout can be resumed', 'rollout_not_halted');
        const canary =
          before.canarySystemId ??
          (await rollouts.findCanaryCandidate(
            {
              customerId: before.customerId,
              arches: archSpellings(before.arch),
              selfId: null,
              recentSince: recentSince(),
            },
            trx,
          ));
        if (canary === null)
          throw new Conflict('No system of this customer and architecture reported recently to be the canary');
        await clearFailure(canary, before.version, trx);
        const after = await rollouts.resumeRollout(id, canary, clock.now(), trx);
        await audit.record(trx, actor, {
          action: 'agent_rollout.resume',
          targetType: 'agent_rollout',
          targetId: id,
          customerId: before.customerId,
          before: { state: before.state, canarySystemId: before.canarySystemId },
          after: { state: after?.state, canarySystemId: canary },
        });
        return after ?? before;
      });
      forget(resumed.canarySystemId ?? 0);
      remember(resumed);
      log.info(
        { rollout: resumed },
        'Agent rollout resumed by an administrator: the canary is offered the build again',
      );
      const [view] = await rollouts.listRollouts({ limit: 1, id });
      if (!view) throw new NotFound('No such rollout');
      return view;
    },

    /**
     * The canary's own "retry update" resumes the rollouts it halted, in the retry's transaction
     * (`committed` caches them once it commits).
     */
    async resumeOfCanary(actor: AuditActor, systemId: number, trx: Knex): Promise<Rollout[]> {
      const resumed = await rollouts.resumeRolloutsOfCanary(systemId, clock.now(), trx);
      for (const rollout of resumed)
        await audit.record(trx, actor, {
          action: 'agent_rollout.resume',
          targetType: 'agent_rollout',
          targetId: rollout.id,
          customerId: rollout.customerId,
          before: { state: 'halted' },
          after: { state: rollout.state },
        });
      return resumed;
    },

    committed(resumed: Rollout[]): void {
      for (const rollout of resumed) remember(rollout);
    },

    async list(): Promise<RolloutListItem[]> {
      return rollouts.listRollouts({ limit: ROLLOUT_LIST_LIMIT });
    },
  };
}

export type CanaryGate = ReturnType<typeof createCanaryGate>;
