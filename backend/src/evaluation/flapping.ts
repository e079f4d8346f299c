/**
 * Flapping (docs/rules.md "Flapping"): an alert identity raised more than FLAP_RAISES times within
 * FLAP_WINDOW becomes one flapping alert: the raise that crosses the line is notified as
 * `flapping` (not `raised`), and the alert then stays open until its condition has been clear for
 * half the window, so the flaps in between notify nobody. Like Nagios' flap detection, but on raises
 * (each one is a resolve and a raise), which the alerts table already records.
 */
import type { Knex } from 'knex';
import type { FlappingRepo } from './flapping-repo.js';
import type { NewAlert, OpenAlert } from './types.js';

export const FLAP_RAISES = 5;
export const FLAP_WINDOW_MS = 60 * 60_000;
/** Clear this long before a flapping alert resolves. */
export const FLAP_STABLE_MS = FLAP_WINDOW_MS / 2;

/** Of the raises about to happen, the indexes of those that make their identity flap. */
export async function flappingRaises(
  repo: FlappingRepo,
  trx: Knex.Transaction,
  toRaise: readonly NewAlert[],
  now: Date,
): Promise<Set<number>> {
  const counts = await repo.raisesSince(toRaise, new Date(now.getTime() - FLAP_WINDOW_MS), trx);
  // this raise is one more: more than FLAP_RAISES in the window is flapping
  return new Set(counts.flatMap((n, index) => (n + 1 > FLAP_RAISES ? [index] : [])));
}

/**
 * Keeps flapping alerts open until they have been clear for FLAP_STABLE_MS: returns the resolves
 * that may happen now, and records when each flapping alert's condition cleared or came back.
 */
export async function holdFlapping(
  repo: FlappingRepo,
  trx: Knex.Transaction,
  open: readonly OpenAlert[],
  resolveIds: readonly number[],
  now: Date,
): Promise<number[]> {
  const resolving = new Set(resolveIds);
  const held = new Set<number>();
  const cleared: number[] = [];
  const back: number[] = [];
  for (const alert of open) {
    if (alert.flappingSince === null) continue;
    const id = alert.id;
    if (!resolving.has(id)) {
      if (alert.clearSince !== null) back.push(id);
      continue;
    }
    if (alert.clearSince === null) cleared.push(id);
    if (alert.clearSince === null || now.getTime() - alert.clearSince.getTime() < FLAP_STABLE_MS) held.add(id);
  }
  await repo.setClearSince(cleared, now, trx);
  await repo.setClearSince(back, null, trx);
  return resolveIds.filter((id) => !held.has(id));
}
