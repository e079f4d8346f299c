/**
 * Agent builds in AGENT_DIST_DIR (docs/protocol.md "Agent releases"). Argus does not
 * build the agent; an operator drops releases here:
 *
 *   <AGENT_DIST_DIR>/<MAJOR.MINOR.PATCH>/argus-agent-linux-<arch>
 *   <AGENT_DIST_DIR>/<MAJOR.MINOR.PATCH>/manifest.json
 *     {"version": "2.28.1", "files": {"x86_64": {"sha256": "<64 hex>", "size": 8123456}, "aarch64": {…}}}
 *
 * A build is served only when its manifest entry, the file's size and the
 * file's SHA-256 agree (checked once per file change): a manifest that lies is
 * logged and skipped rather than handed to agents that would fail the checksum.
 * The directory is read again at most every `rescanMs`, so new releases appear
 * without a restart and the ingest path (which asks on every answer) reads memory.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import type { Clock } from '../lib/clock.js';
import type { Logger } from '../lib/logger.js';
import { ARCH_NAME, RELEASE_VERSION, compareVersions, normaliseArch } from './versions.js';

export interface AgentBuild {
  version: string;
  arch: string;
  sha256: string;
  size: number;
  /** Absolute path of the binary; never built from request input. */
  file: string;
}

/** What `/api/agent/version` answers and the ingest answer carries as `update`. */
export interface AgentOffer {
  version: string;
  url: string;
  sha256: string;
}

export interface AgentDist {
  /** The newest build for an architecture (aliases such as amd64 accepted), or null. */
  latest(arch: string): Promise<AgentBuild | null>;
  /** Exactly this build as listed in its manifest, or null. */
  find(version: string, arch: string): Promise<AgentBuild | null>;
  offer(build: AgentBuild): AgentOffer;
  /** The public base URL agents and installers use ('' when neither PUBLIC_URL nor AUTH_URL is set). */
  publicBase(): string;
}

export interface AgentDistDeps {
  dir: string;
  publicUrl: string;
  clock: Clock;
  log: Logger;
  /** How long a directory listing is trusted; 0 reads it on every call (tests). */
  rescanMs?: number;
}

const manifestSchema = z.object({
  version: z.string(),
  files: z.record(
    z.string(),
    z.object({
      sha256: z.string().regex(/^[0-9a-f]{64}$/),
      size: z.number().int().nonnegative(),
    }),
  ),
});

interface Index {
  builds: Map<string, AgentBuild>;
  newest: Map<string, AgentBuild>;
}

async function hashFile(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

function errorCode(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | null)?.code;
}

export function createAgentDist({ dir, publicUrl, clock, log, rescanMs = 30_000 }: AgentDistDeps): AgentDist {
  const root = path.resolve(dir);
  const hashes = new Map<string, { mtimeMs: number; size: number; sha256: string }>();
  const warned = new Set<string>();
  let current: { index: Index; at: number } | null = null;
  let scanning: Promise<Index> | null = null;

  // the same broken build must not fill the log every rescan
  function warnOnce(message: string, fields: Record<string, unknown> = {}): void {
    const key = `${message}|${JSON.stringify(fields)}`;
    if (warned.has(key)) return;
    warned.add(key);
    log.warn({ agentDistDir: root, ...fields }, message);
  }

  async function verifiedSha(file: string, size: number, mtimeMs: number): Promise<string> {
    const known = hashes.get(file);
    if (known && known.mtimeMs === mtimeMs && known.size === size) return known.sha256;
    const sha256 = await hashFile(file);
    hashes.set(file, { mtimeMs, size, sha256 });
    return sha256;
  }

  async function readRelease(version: string, into: Map<string, AgentBuild>): Promise<void> {
    const releaseDir = path.join(root, version);
    let manifest: z.infer<typeof manifestSchema>;
    try {
      const parsed = manifestSchema.safeParse(
        JSON.parse(await readFile(path.join(releaseDir, 'manifest.json'), 'utf8')),
      );
      if (!parsed.success) return warnOnce('Agent build skipped: manifest.json is malformed', { version });
      manifest = parsed.data;
    } catch (error) {
      return warnOnce('Agent build skipped: manifest.json is missing or not JSON', { version, code: errorCode(error) });
    }
    if (manifest.version !== version)
      return warnOnce('Agent build skipped: manifest version differs from its directory', { version });
    for (const [arch, entry] of Object.entries(manifest.files)) {
      if (!ARCH_NAME.test(arch)) {
        warnOnce('Agent build skipped: bad architecture name in manifest', { version, arch });
        continue;
      }
      const file = path.join(releaseDir, `argus-agent-linux-${arch}`);
      try {
        const info = await stat(file);
        if (!info.isFile() || info.size !== entry.size) {
          warnOnce('Agent build skipped: file size differs from manifest', { version, arch });
          continue;
        }
        if ((await verifiedSha(file, info.size, info.mtimeMs)) !== entry.sha256) {
          warnOnce('Agent build skipped: file SHA-256 differs from manifest', { version, arch });
          continue;
        }
        into.set(`${version}/${arch}`, { version, arch, sha256: entry.sha256, size: info.size, file });
      } catch (error) {
        warnOnce('Agent build skipped: file not readable', { version, arch, code: errorCode(error) });
      }
    }
  }

  async function scan(): Promise<Index> {
    const builds = new Map<string, AgentBuild>();
    let names: string[] = [];
    try {
      const entries = await readdir(root, { withFileTypes: true });
      names = entries.filter((entry) => entry.isDirectory() && RELEASE_VERSION.test(entry.name)).map((e) => e.name);
    } catch (error) {
      warnOnce('AGENT_DIST_DIR is not readable: no agent builds are offered', { code: errorCode(error) });
    }
    for (const version of names) await readRelease(version, builds);
    const newest = new Map<string, AgentBuild>();
    for (const build of builds.values()) {
      const best = newest.get(build.arch);
      if (!best || compareVersions(build.version, best.version) > 0) newest.set(build.arch, build);
    }
    return { builds, newest };
  }

  async function index(): Promise<Index> {
    const now = clock.now().getTime();
    if (current && now - current.at < rescanMs && now >= current.at) return current.index;
    scanning ??= scan()
      .then((fresh) => {
        current = { index: fresh, at: now };
        return fresh;
      })
      .finally(() => {
        scanning = null;
      });
    return scanning;
  }

  let warnedNoBase = false;
  function publicBase(): string {
    if (publicUrl === '' && !warnedNoBase) {
      warnedNoBase = true;
      log.warn('PUBLIC_URL and AUTH_URL are not set: agent install and download URLs have no host');
    }
    return publicUrl;
  }

  return {
    async latest(arch) {
      return (await index()).newest.get(normaliseArch(arch)) ?? null;
    },
    async find(version, arch) {
      if (!RELEASE_VERSION.test(version) || !ARCH_NAME.test(arch)) return null;
      return (await index()).builds.get(`${version}/${arch}`) ?? null;
    },
    offer(build) {
      return {
        version: build.version,
        url: `${publicBase()}/api/agent/download/${build.version}/${build.arch}`,
        sha256: build.sha256,
      };
    },
    publicBase,
  };
}
