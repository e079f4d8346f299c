/**
 * The `settings_rev` of an ingest answer: the hash of the settings' canonical JSON, and of the
 * network checks with them when the agent runs some. Made once per settings object and list of
 * checks, not for each report: the agent-settings cache hands every request of a system the same
 * settings object until they change (a change makes a new one), and the checks' cache hands the
 * same check objects until a check changes (a reload makes new ones), so a revision still holds
 * while the settings object is the same and its checks are the very same objects in the same order.
 */
import { sha256 } from '../lib/crypto.js';

/** JSON with object keys sorted at every level: equal settings always hash alike. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** The revision as hashed: the checks count in it only when there are some (an agent without any sees no change). */
function revisionFor(settings: Record<string, unknown>, checks: readonly unknown[]): string {
  return sha256(canonicalJson(checks.length ? { settings, checks } : settings));
}

const sameItems = (a: readonly unknown[], b: readonly unknown[]) =>
  a.length === b.length && a.every((item, index) => item === b[index]);

/** A revision per settings object, kept with the checks it was made for (a system's settings are its own object). */
export function createSettingsRevisions() {
  const bySettings = new WeakMap<object, { checks: readonly unknown[]; revision: string }>();
  return (settings: Record<string, unknown>, checks: readonly unknown[]): string => {
    const known = bySettings.get(settings);
    if (known && sameItems(known.checks, checks)) return known.revision;
    const revision = revisionFor(settings, checks);
    bySettings.set(settings, { checks, revision });
    return revision;
  };
}
