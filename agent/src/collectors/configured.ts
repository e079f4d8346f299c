/**
 * The metrics an admin asks for through agent settings, and those that need the
 * host's own tools:
 * - `services` (e.g. "nginx, postgresql"): service.active{unit} from one `systemctl is-active a b…`;
 * - services.failed: the count of `systemctl list-units --state=failed`, wherever systemd runs;
 * - `certs` (e.g. "/etc/ssl/certs/site.pem, example.com:443"): cert.days_left{entry}, from the file
 *   or from the certificate a TLS server presents (its name sent as SNI; not verified: an expired or
 *   self-signed certificate is exactly what this watches);
 * - `backup.<job>` = a marker file the backup touches when it ends: backup.age_h{job} from its mtime.
 * A tool that is not installed, a file not there, a server not answering: that metric is left out.
 */
import { X509Certificate } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import type { Host } from '../host.js';
import { runTool, type RunTool } from '../run-tool.js';
import { sample, type Sample } from '../sample.js';

export type { RunTool };

export interface WatchList {
  services: string[];
  certs: string[];
  backups: [job: string, marker: string][];
}

const list = (value: unknown) =>
  typeof value === 'string'
    ? value
        .split(/[\s,]+/)
        .map((item) => item.trim())
        .filter(Boolean)
    : [];

/** What the server's settings ask to watch (agent settings, effective for this system). */
export function watchListOf(settings: Record<string, unknown>): WatchList {
  return {
    services: list(settings['services']).filter((unit) => /^[\w@.:-]{1,256}$/.test(unit)),
    certs: list(settings['certs']),
    backups: Object.entries(settings)
      .filter(([key, value]) => key.startsWith('backup.') && typeof value === 'string' && value.startsWith('/'))
      .map(([key, value]) => [key.slice('backup.'.length), value as string]),
  };
}

const DAY_MS = 86_400_000;

async function certificateOf(entry: string): Promise<X509Certificate | null> {
  if (entry.startsWith('/')) {
    const pem = await readFile(entry).catch(() => null);
    try {
      return pem ? new X509Certificate(pem) : null;
    } catch {
      return null;
    }
  }
  const match = /^([^:]+|\[[^\]]+\]):(\d{1,5})$/.exec(entry);
  if (!match) return null;
  const host = (match[1] as string).replace(/^\[|\]$/g, '');
  return new Promise((resolve) => {
    // node:tls only when a host:port is watched (and the agent talks to an http:// server)
    const { connect } = process.getBuiltinModule('node:tls');
    const socket = connect({
      host,
      port: Number(match[2]),
      servername: /^[\d.:]+$/.test(host) ? undefined : host,
      rejectUnauthorized: false,
    });
    const done = (certificate: X509Certificate | null) => {
      socket.destroy();
      resolve(certificate);
    };
    socket.setTimeout(10_000, () => done(null));
    socket.once('error', () => done(null));
    socket.once('secureConnect', () => done(socket.getPeerX509Certificate() ?? null));
  });
}

/** services.failed, and service.active of each watched unit, from systemctl. */
async function units(services: string[], run: RunTool): Promise<Sample[]> {
  const samples: Sample[] = [];
  const failed = await run('systemctl', ['list-units', '--state=failed', '--no-legend', '--plain']);
  if (failed && failed.code === 0)
    samples.push(sample('services.failed', failed.stdout.split('\n').filter((l) => l.trim()).length));
  // one systemctl for all of them (a spawn costs the agent about 1.5 ms of CPU): a line per unit, in order
  if (services.length) {
    const states = await run('systemctl', ['is-active', ...services]);
    const lines = states?.stdout.split('\n') ?? [];
    services.forEach((unit, index) => {
      const state = lines[index]?.trim();
      if (state) samples.push(sample('service.active', state === 'active' ? 1 : 0, unit));
    });
  }
  return samples;
}

/**
 * Whether systemd runs the host, as sd_booted(3) tells (its runtime directory): elsewhere (a
 * container, OpenRC, WSL without systemd) systemctl only says it cannot operate, and a spawn every
 * collection costs the agent ~1.5 ms of CPU for nothing.
 */
const systemdRuns = (host: Host) => host.isDirectory('/run/systemd/system');

export function configuredCollector(
  host: Host,
  settings: () => Record<string, unknown>,
  run: RunTool = runTool,
  now: () => number = Date.now,
) {
  return async (): Promise<Sample[]> => {
    const watch = watchListOf(settings());
    const samples: Sample[] = [];
    if (await systemdRuns(host)) samples.push(...(await units(watch.services, run)));

    for (const entry of watch.certs) {
      const certificate = await certificateOf(entry);
      if (certificate)
        samples.push(sample('cert.days_left', (Date.parse(certificate.validTo) - now()) / DAY_MS, entry));
    }

    for (const [job, marker] of watch.backups) {
      const info = await stat(marker).catch(() => null);
      if (info) samples.push(sample('backup.age_h', (now() - info.mtimeMs) / 3_600_000, job));
    }
    return samples;
  };
}
