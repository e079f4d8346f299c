/**
 * The root start step of the unit (`ExecStartPre=-+… install-update`): where the agent runs as its own
 * user, it cannot write its executable (root's, so that root never runs a file the agent's account could
 * replace). It stages an update instead (`<state_dir>/update/argus-agent` and its `version`, update.ts)
 * and restarts; this step, run by root from the root-owned executable before the agent starts, installs
 * that build only when its sha256 matches the one the server publishes for that release
 * (`GET /api/agent/version?arch=…&version=…`). What the agent staged is untrusted input: read through no
 * link (O_NOFOLLOW), only as a regular file, copied into a new root-owned file beside the executable
 * and hashed there, so what is checked is what is installed. It never fails the start: a refusal is
 * logged and the agent starts on the version it has (its update-loop guard then never stages that
 * version again in a row).
 */
import { createHash, randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { open, rename, rm, type FileHandle } from 'node:fs/promises';
import http from 'node:http';
import { dirname, join } from 'node:path';
import type { AgentOffer } from '../../contracts/agents.js';
import { REQUEST_TIMEOUT_MS } from './send.js';

/** Where update.ts stages a build, inside the state directory. */
export const STAGING_DIR = 'update';
export const STAGED_BUILD = 'argus-agent';
export const STAGED_VERSION = 'version';
/** Releases only, as the server lists them (pre-releases are never offered). */
const RELEASE = /^\d{1,9}\.\d{1,9}\.\d{1,9}$/;
/** A build is about 120 MiB; more than this is not an agent. */
export const MAX_BUILD_BYTES = 512 * 1024 * 1024;

export interface InstallStagedDeps {
  stateDir: string;
  /** The executable to replace (root's). */
  executable: string;
  /** The agent's webhook URL: the server's API is beside it. */
  webhookUrl: string;
  /** This build's architecture as the server names it (x86_64, aarch64). */
  arch: string;
  log(line: string): void;
}

/** Opens an untrusted path as a regular file, never through a link, never blocking on a FIFO. */
async function openPlainFile(path: string, maxBytes: number): Promise<FileHandle> {
  const handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  const info = await handle.stat();
  if (!info.isFile() || info.size > maxBytes) {
    await handle.close();
    throw new Error(`${path} is not a plain file of at most ${maxBytes} bytes`);
  }
  return handle;
}

/** An offered build as the server's schema reads it, else null; the schema (and zod) loaded only for an offer. */
export async function offerOf(value: unknown): Promise<AgentOffer | null> {
  if (value === null || value === undefined) return null;
  const parsed = (await import('../../contracts/agents.js')).agentOffer.safeParse(value);
  return parsed.success ? parsed.data : null;
}

/** The sha256 the server publishes for this release and architecture. */
function publishedOffer(webhookUrl: string, arch: string, version: string): Promise<AgentOffer> {
  const url = new URL('../agent/version', webhookUrl);
  url.search = new URLSearchParams({ arch, version }).toString();
  const transport = url.protocol === 'https:' ? process.getBuiltinModule('node:https') : http;
  return new Promise((resolve, reject) => {
    const request = transport.get(url, { timeout: REQUEST_TIMEOUT_MS }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('error', reject);
      response.on('end', () => {
        if (response.statusCode !== 200) return reject(new Error(`the server answered ${response.statusCode}`));
        offerOf(JSON.parse(Buffer.concat(chunks).toString('utf8'))).then(
          (offer) => (offer && offer.version === version ? resolve(offer) : reject(new Error('unexpected answer'))),
          reject,
        );
      });
    });
    request.on('timeout', () => request.destroy(new Error('no answer within 20 s')));
    request.on('error', reject);
  });
}

/** Copies `from` into a new file (O_EXCL) beside the executable, hashing what it writes; its sha256. */
async function copyBeside(from: FileHandle, executable: string): Promise<{ file: string; sha256: string }> {
  const file = join(dirname(executable), `.argus-agent.${randomBytes(6).toString('hex')}.staged`);
  const to = await open(file, 'wx', 0o700);
  const hash = createHash('sha256');
  try {
    const buffer = Buffer.alloc(1024 * 1024);
    for (;;) {
      const { bytesRead } = await from.read(buffer, 0, buffer.length, null);
      if (bytesRead === 0) break;
      hash.update(buffer.subarray(0, bytesRead));
      await to.write(buffer, 0, bytesRead);
    }
    await to.chmod(0o755);
    await to.sync();
  } finally {
    await to.close();
  }
  return { file, sha256: hash.digest('hex') };
}

async function readVersion(dir: string): Promise<string | null> {
  const handle = await openPlainFile(join(dir, STAGED_VERSION), 64).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return null;
    throw error;
  });
  if (!handle) return null;
  try {
    const version = (await handle.readFile('utf8')).trim();
    if (!RELEASE.test(version)) throw new Error(`the staged version "${version.slice(0, 20)}" is no release number`);
    return version;
  } finally {
    await handle.close();
  }
}

/** Installs the staged build if there is one and the server vouches for it; never throws. */
export async function installStagedUpdate(deps: InstallStagedDeps): Promise<void> {
  const dir = join(deps.stateDir, STAGING_DIR);
  let copied: string | null = null;
  try {
    const version = await readVersion(dir);
    if (!version) return;
    const offer = await publishedOffer(deps.webhookUrl, deps.arch, version).catch((error: Error) => {
      throw new Error(`the server does not vouch for ${version} (${error.message})`);
    });
    const staged = await openPlainFile(join(dir, STAGED_BUILD), MAX_BUILD_BYTES);
    const { file, sha256 } = await copyBeside(staged, deps.executable).finally(() => staged.close());
    copied = file;
    if (sha256 !== offer.sha256)
      throw new Error(
        `the staged build of ${version} is not the server's (sha256 ${sha256}, expected ${offer.sha256})`,
      );
    await rename(file, deps.executable);
    copied = null;
    const parent = await open(dirname(deps.executable), 'r');
    await parent.sync().finally(() => parent.close());
    deps.log(`installed the staged argus-agent ${version} (its sha256 is the server's)`);
  } catch (error) {
    deps.log(`staged update not installed: ${(error as Error).message}; starting the installed version`);
  } finally {
    if (copied) await rm(copied, { force: true });
    // unlink never follows a link: the staged files go, whatever they were
    await rm(join(dir, STAGED_VERSION), { force: true }).catch(() => undefined);
    await rm(join(dir, STAGED_BUILD), { force: true }).catch(() => undefined);
  }
}
