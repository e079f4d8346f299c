/**
 * updates.security: packages with a pending security update, as the package manager tells it
 * without root and without the network (the lists are what the host's own apt-daily / dnf-makecache
 * timers last fetched):
 * - apt (Debian, Ubuntu): `apt-get -s dist-upgrade`, the `Inst` lines that upgrade an installed
 *   package (old version in brackets) from an origin whose suite ends in `-security`
 *   (`Debian-Security:12/stable-security`, `Ubuntu:24.04/noble-security`);
 * - dnf (Fedora, RHEL and kin): `dnf -q -C updateinfo list --security`, one line per advisory and
 *   package; packages counted once. `-C` keeps to the cache: no download by the agent.
 * Neither there, or its answer not understood: no sample. Both get 2 minutes, not the tools' usual
 * 10 s: apt-get's simulation took 17 s on this loaded 2-core machine (5 s of CPU), and it runs in the
 * background (cadence.ts), so no report waits for it.
 */
import type { RunTool } from '../run-tool.js';
import { sample, type Sample } from '../sample.js';

const PACKAGE_MANAGER_TIMEOUT_MS = 120_000;

/** The security upgrades in apt-get's simulation output. */
export function aptSecurityUpgrades(simulation: string): number {
  return simulation.split('\n').filter((line) =>
    /^Inst \S+ \[[^\]]+\] \((.*)\)/
      .exec(line)?.[1]
      ?.split(/[ ,]+/)
      .some((o) => /-security$/.test(o)),
  ).length;
}

/** The packages of dnf's security advisories (dnf 4 `ID Type/Sev. NEVRA`, dnf 5 `ID Type Severity NEVRA Issued`). */
export function dnfSecurityPackages(list: string): number {
  const packages = new Set<string>();
  for (const fields of list.split('\n').map((line) => line.trim().split(/\s+/))) {
    if (fields.length < 3 || !fields.slice(1, 3).some((field) => /sec/i.test(field))) continue;
    const nevra = fields.find((field) => /-\d[^-]*-[^-]+\.\w+$/.test(field));
    if (nevra) packages.add(nevra);
  }
  return packages.size;
}

export function updatesCollector(run: RunTool) {
  return async (): Promise<Sample[]> => {
    const apt = await run('apt-get', ['-s', '-q', '-o', 'Debug::NoLocking=true', 'dist-upgrade'], {
      timeoutMs: PACKAGE_MANAGER_TIMEOUT_MS,
    });
    if (apt && apt.code === 0) return [sample('updates.security', aptSecurityUpgrades(apt.stdout))];
    const dnf = await run('dnf', ['-q', '-C', 'updateinfo', 'list', '--security'], {
      timeoutMs: PACKAGE_MANAGER_TIMEOUT_MS,
    });
    if (dnf && dnf.code === 0) return [sample('updates.security', dnfSecurityPackages(dnf.stdout))];
    return [];
  };
}
