/**
 * "Test sign-in" for an administrator setting up the mapping: the claims the provider sent and what
 * the mapping makes of them, with nobody signed in and no account touched. Kept in memory (one app
 * instance runs at a time), the latest per administrator, for ten minutes: long enough to look at.
 */
import type { Clock } from '../lib/clock.js';
import type { Rights } from './mapping.js';
import type { IdTokenClaims } from './provider.js';
import type { SsoTestResult } from '../../../contracts/sso.js';

/** Where the browser lands after a test sign-in: Settings → Single sign-on shows the result. */
export const TEST_PAGE = '/settings/sso';
const KEPT_MS = 10 * 60_000;
/** Claims about the token itself rather than the person: of no use for a mapping, left out. */
const HIDDEN = new Set(['nonce', 'at_hash', 'c_hash', 's_hash', 'sid']);

export function createTestResults(clock: Clock) {
  const results = new Map<number, { result: SsoTestResult; until: number }>();

  function keep(userId: number, result: SsoTestResult): void {
    results.set(userId, { result, until: clock.now().getTime() + KEPT_MS });
  }

  return {
    /** The provider's answer and the rights it would give. */
    record(userId: number, claims: IdTokenClaims, groups: string[], rights: Rights): void {
      const shown = Object.fromEntries(Object.entries(claims).filter(([name]) => !HIDDEN.has(name)));
      keep(userId, {
        at: clock.now().toISOString(),
        claims: shown,
        groups,
        role: 'missing' in rights ? null : rights.role,
        customerIds: 'missing' in rights ? [] : rights.customerIds,
        refused: 'missing' in rights ? rights.missing : null,
      });
    },

    /** A test the provider or the token check refused: why, in the words a sign-in would get. */
    refused(userId: number, message: string): void {
      keep(userId, {
        at: clock.now().toISOString(),
        claims: null,
        groups: [],
        role: null,
        customerIds: [],
        refused: message,
      });
    },

    latest(userId: number): SsoTestResult | null {
      const kept = results.get(userId);
      if (!kept || kept.until < clock.now().getTime()) return null;
      return kept.result;
    },
  };
}

export type TestResults = ReturnType<typeof createTestResults>;
