/**
 * Agent release numbers and architecture names. Builds in AGENT_DIST_DIR are
 * releases (`MAJOR.MINOR.PATCH`); what an agent reports may also carry a
 * pre-release or build suffix, compared by semver precedence.
 */

const SEMVER =
  /^(0|[1-9]\d{0,8})\.(0|[1-9]\d{0,8})\.(0|[1-9]\d{0,8})(?:-([0-9A-Za-z.-]{1,64}))?(?:\+[0-9A-Za-z.-]{1,64})?$/;

/** A release directory name: exactly `MAJOR.MINOR.PATCH`. */
export const RELEASE_VERSION = /^(0|[1-9]\d{0,8})\.(0|[1-9]\d{0,8})\.(0|[1-9]\d{0,8})$/;

interface Parsed {
  core: [number, number, number];
  pre: string[];
}

function parse(version: string): Parsed | null {
  const match = SEMVER.exec(version);
  if (!match) return null;
  return {
    core: [Number(match[1]), Number(match[2]), Number(match[3])],
    pre: match[4] ? match[4].split('.') : [],
  };
}

function comparePre(a: string[], b: string[]): number {
  // a release ranks above its pre-releases
  if (a.length === 0 || b.length === 0) return b.length - a.length;
  for (let i = 0; i < Math.max(a.length, b.length); i += 1) {
    const x = a[i];
    const y = b[i];
    if (x === undefined) return -1;
    if (y === undefined) return 1;
    const xNum = /^\d+$/.test(x);
    const yNum = /^\d+$/.test(y);
    if (xNum && yNum && Number(x) !== Number(y)) return Number(x) < Number(y) ? -1 : 1;
    if (xNum !== yNum) return xNum ? -1 : 1;
    if (x !== y) return x < y ? -1 : 1;
  }
  return 0;
}

/**
 * Semver precedence: negative when a < b, 0 when equal, positive when a > b.
 * A version that is not semver (an agent's odd build) ranks below every valid one.
 */
export function compareVersions(a: string, b: string): number {
  const left = parse(a);
  const right = parse(b);
  if (!left || !right) return left ? 1 : right ? -1 : 0;
  for (let i = 0; i < 3; i += 1) {
    const diff = (left.core[i] ?? 0) - (right.core[i] ?? 0);
    if (diff !== 0) return diff;
  }
  return comparePre(left.pre, right.pre);
}

const ARCH_ALIASES: Record<string, string> = {
  x86_64: 'x86_64',
  amd64: 'x86_64',
  aarch64: 'aarch64',
  arm64: 'aarch64',
};

/** An architecture name as builds are named: `amd64` → `x86_64`, `arm64` → `aarch64`, others as given. */
export function normaliseArch(arch: string): string {
  const lower = arch.trim().toLowerCase();
  return ARCH_ALIASES[lower] ?? lower;
}

/** Every spelling an agent may report for a build architecture (for matching `systems.arch`). */
export function archSpellings(arch: string): string[] {
  const canonical = normaliseArch(arch);
  return [
    canonical,
    ...Object.keys(ARCH_ALIASES).filter((alias) => ARCH_ALIASES[alias] === canonical && alias !== canonical),
  ];
}

/** Architecture names that may appear in a manifest and a download path. */
export const ARCH_NAME = /^[a-z0-9_]{1,32}$/;
