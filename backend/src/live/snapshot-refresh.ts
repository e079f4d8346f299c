/**
 * The ping's safety net for snapshots: last seen moves without a status change,
 * and an event lost while Redis was away must still reach open dashboards. Recomputing every
 * audience's snapshots at every ping cost a systems-list query per audience each 25 s even when
 * nothing had changed; one fingerprint query per ping now decides which snapshots to recompute.
 */
import type { Logger } from '../lib/logger.js';
import type { FleetFingerprint } from './repo.js';
import type { Snapshots } from './snapshots.js';

export function createSnapshotRefresh(deps: {
  snapshots: Pick<Snapshots, 'invalidate' | 'audienceCount'>;
  log: Logger;
  /** Without it every ping recomputes every snapshot (the behaviour before). */
  fingerprint: (() => Promise<FleetFingerprint>) | undefined;
}): () => Promise<void> {
  const { snapshots, log, fingerprint } = deps;
  let last: FleetFingerprint | null = null;
  return async function refreshChangedSnapshots() {
    if (!fingerprint || snapshots.audienceCount() === 0) {
      snapshots.invalidate();
      return;
    }
    let now: FleetFingerprint;
    try {
      now = await fingerprint();
    } catch (error) {
      log.warn({ err: { message: (error as Error).message } }, 'Live fingerprint failed');
      snapshots.invalidate(); // the computation will tell whether the database is back
      return;
    }
    const before = last;
    last = now;
    // every snapshot shows open alerts; the systems list and the overview (systems by status per
    // customer) show the fleet, the alert counts do not
    if (!before || before.alerts !== now.alerts) snapshots.invalidate();
    else if (before.fleet !== now.fleet) snapshots.invalidate(['systems.list', 'overview']);
  };
}
