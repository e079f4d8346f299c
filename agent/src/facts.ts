/** What the report's `agent` block says about the host: name, OS, kernel, architecture, cores. */
import { hostname } from 'node:os';
import { cpuCount } from './collectors/cpu.js';
import type { Host } from './host.js';

/** Node's names → the ones the installer and /api/agent/version use. */
const ARCH: Record<string, string> = { x64: 'x86_64', arm64: 'aarch64' };

/** This process's architecture as the server names builds. */
export const buildArch = (arch: string = process.arch): string => ARCH[arch] ?? arch;

export interface HostFacts {
  hostname: string;
  os?: string;
  kernel?: string;
  arch: string;
  cores?: number;
}

/** PRETTY_NAME of /etc/os-release (values may be quoted). */
export function osName(osRelease: string): string | undefined {
  const line = osRelease.split('\n').find((l) => l.startsWith('PRETTY_NAME='));
  return line?.slice('PRETTY_NAME='.length).replace(/^"(.*)"$/, '$1') || undefined;
}

export async function hostFacts(host: Host, arch: string = process.arch): Promise<HostFacts> {
  const kernel = (await host.read('/proc/sys/kernel/osrelease'))?.trim();
  const os = osName((await host.read('/etc/os-release')) ?? '');
  const cores = cpuCount((await host.read('/proc/stat')) ?? '');
  return {
    hostname: ((await host.read('/proc/sys/kernel/hostname')) ?? hostname()).trim(),
    ...(os ? { os } : {}),
    ...(kernel ? { kernel } : {}),
    arch: buildArch(arch),
    ...(cores > 0 ? { cores } : {}),
  };
}
