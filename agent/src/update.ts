/**
 * Self-update (docs/protocol.md "Agent updates"): an ingest answer's `update`
 * ({version, url, sha256}) is downloaded beside the running executable, checked against its sha256,
 * asked for its `--version`, then renamed over the executable, and the agent restarts into it.
 *
 * The update-loop guard (release 2.27.0 reported an older version than the one it
 * was offered, so it was installed again and again): every install is recorded in the state directory
 * (`update.json`) before the swap; a version installed and not reported afterwards is never installed
 * again in a row. The server keeps its own guard (three reports of another version → update_failed).
 *
 * A download runs beside the reports; the swap and the restart happen on the next accepted answer, so
 * the restart never cuts a write to the buffer. A failed download or a wrong checksum is retried only
 * after an hour. Where the executable's directory is not writable (root's: the installer's layout, so
 * that root never runs a file the agent's account could replace) and a root start step exists (the
 * systemd unit's install-update), the checked build is staged in the state directory instead and the
 * agent restarts: root installs it once its sha256 matches the server's (install-update.ts). Without
 * such a step the agent says so once and keeps running the version it has.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { chmod, mkdir, open, readdir, readFile, rename, stat, unlink, writeFile } from 'node:fs/promises';
import http from 'node:http';
import { basename, dirname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { promisify } from 'node:util';
import type { AgentOffer } from '../../contracts/agents.js';
import { MAX_BUILD_BYTES, offerOf, STAGED_BUILD, STAGED_VERSION, STAGING_DIR } from './install-update.js';
import { REQUEST_TIMEOUT_MS } from './send.js';

/** The last install, kept in the state directory. */
export interface UpdateAttempt {
  version: string;
  /** The version that installed it. */
  from: string;
  at: string;
  /** Whether the agent reported this version in an accepted request after installing it. */
  reported: boolean;
  /** Staged for the root start step (not installed by the agent itself), with the build's sha256. */
  staged?: { sha256: string };
}

export type UpdateDecision = { install: true } | { install: false; why: string | null };

const FILE = 'update.json';
const RETRY_FAILED_DOWNLOAD_MS = 60 * 60_000;
const run = promisify(execFile);

/** Whether to install an offered build: the update-loop guard, nothing else. */
export function decideUpdate(offer: AgentOffer | null, running: string, last: UpdateAttempt | null): UpdateDecision {
  if (!offer || offer.version === running) return { install: false, why: null };
  if (last && last.version === offer.version && !last.reported)
    return {
      install: false,
      why:
        `argus-agent ${offer.version} was installed at ${last.at} and never reported itself afterwards ` +
        `(this agent reports ${running}): not installing it again`,
    };
  return { install: true };
}

export async function loadAttempt(stateDir: string): Promise<UpdateAttempt | null> {
  return readFile(join(stateDir, FILE), 'utf8').then(
    (text) => JSON.parse(text) as UpdateAttempt,
    () => null,
  );
}

/** Written whole or not at all, and on disk before the swap it records. */
async function saveAttempt(stateDir: string, attempt: UpdateAttempt): Promise<void> {
  await mkdir(stateDir, { recursive: true, mode: 0o700 });
  await writeWhole(join(stateDir, FILE), `${JSON.stringify(attempt)}\n`);
}

/** A file written whole or not at all (a temporary renamed over it), on disk when this returns. */
async function writeWhole(file: string, text: string): Promise<void> {
  const temporary = `${file}.${process.pid}.tmp`;
  await writeFile(temporary, text, { mode: 0o600 });
  await fsync(temporary);
  await rename(temporary, file);
  await fsync(dirname(file));
}

async function fsync(path: string): Promise<void> {
  const handle = await open(path, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

async function fileSha256(file: string): Promise<string> {
  const hash = createHash('sha256');
  await pipeline(createReadStream(file), hash);
  return hash.digest('hex');
}

/** GET url into file, hashing as it goes; the sha256 of what arrived. */
function download(url: URL, file: string): Promise<string> {
  // node:https (and tls) only for an https download: the agent does not load them otherwise
  const transport = url.protocol === 'https:' ? process.getBuiltinModule('node:https') : http;
  return new Promise((resolve, reject) => {
    const request = transport.get(url, { timeout: REQUEST_TIMEOUT_MS }, (response) => {
      if (response.statusCode !== 200) {
        response.resume();
        reject(new Error(`the server answered ${response.statusCode}`));
        return;
      }
      const hash = createHash('sha256');
      let size = 0;
      response.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > MAX_BUILD_BYTES) request.destroy(new Error('the download is larger than any agent build'));
        hash.update(chunk);
      });
      pipeline(response, createWriteStream(file, { mode: 0o700 })).then(() => resolve(hash.digest('hex')), reject);
    });
    // a stalled download is given up like a stalled report
    request.on('timeout', () => request.destroy(new Error('no data within 20 s')));
    request.on('error', reject);
  });
}

/**
 * Whether this process can create files in dir, tried for real: one answer that holds alike for root,
 * another user, read-only mounts, immutable directories and file systems such as sysfs.
 */
async function writable(dir: string): Promise<boolean> {
  const probe = join(dir, `.argus-agent-probe-${process.pid}`);
  try {
    await writeFile(probe, '', { flag: 'wx' });
    await unlink(probe);
    return true;
  } catch {
    return false;
  }
}

export interface UpdaterDeps {
  stateDir: string;
  /** The version this process runs. */
  running: string;
  /** Offers carry absolute URLs; one without a host is resolved against the webhook's. */
  webhookUrl: string;
  /** The single executable to replace; null when the agent runs from source (nothing to replace). */
  executable: string | null;
  /** A root start step installs what is staged (under systemd: the unit's install-update). */
  rootInstallsStaged: boolean;
  log(line: string): void;
  /** Start the installed executable in place of this process (cli.ts: exit for systemd, or re-exec). */
  restart(): Promise<void> | void;
  now?: () => number;
}

export interface Updater {
  /** An accepted answer (the agent reported `running` in it) and its `update`. */
  answered(update: unknown): Promise<void>;
  /** The download in flight, if any (tests). */
  settled(): Promise<void>;
}

export function createUpdater(deps: UpdaterDeps): Updater {
  const now = deps.now ?? Date.now;
  const said = new Set<string>();
  const failedAt = new Map<string, number>();
  let last: UpdateAttempt | null | undefined;
  let downloading: Promise<void> | null = null;
  /** A checked build: in the executable's directory (to rename over it), or staged for root. */
  let ready: { offer: AgentOffer; file: string; staged: boolean } | null = null;
  const stagingDir = join(deps.stateDir, STAGING_DIR);

  // the same refusal every 30 s would bury the log
  const sayOnce = (key: string, line: string) => {
    if (said.has(key)) return;
    said.add(key);
    deps.log(line);
  };

  /** Where the download goes, what a download cut short by a crash or a restart left there removed. */
  async function downloadTarget(offer: AgentOffer, executable: string, staged: boolean): Promise<string> {
    if (staged) {
      await mkdir(stagingDir, { recursive: true, mode: 0o700 });
      await unlink(join(stagingDir, STAGED_VERSION)).catch(() => undefined);
      await unlink(join(stagingDir, STAGED_BUILD)).catch(() => undefined);
      return join(stagingDir, STAGED_BUILD);
    }
    const dir = dirname(executable);
    const prefix = `.${basename(executable)}.`;
    for (const name of await readdir(dir))
      if (name.startsWith(prefix) && name.endsWith('.download')) await unlink(join(dir, name)).catch(() => undefined);
    return join(dir, `${prefix}${offer.version}.download`);
  }

  async function fetchBuild(offer: AgentOffer, executable: string, staged: boolean): Promise<void> {
    let file: string | null = null;
    try {
      file = await downloadTarget(offer, executable, staged);
      const sha256 = await download(new URL(offer.url, deps.webhookUrl), file);
      if (sha256 !== offer.sha256) throw new Error(`checksum mismatch (expected ${offer.sha256}, got ${sha256})`);
      await chmod(file, staged ? 0o700 : (await stat(executable)).mode & 0o7777);
      await fsync(file);
      // a build that does not know its own version would be offered and installed forever (2.27.0)
      const { stdout } = await run(file, ['--version'], { timeout: 30_000 });
      if (stdout.trim() !== offer.version) throw new Error(`the build says it is ${stdout.trim() || 'nothing'}`);
      ready = { offer, file, staged };
    } catch (error) {
      failedAt.set(offer.version, now());
      if (file) await unlink(file).catch(() => undefined);
      deps.log(`update to ${offer.version} refused: ${(error as Error).message}; keeping ${deps.running}`);
    }
  }

  async function install(
    { offer, file, staged }: { offer: AgentOffer; file: string; staged: boolean },
    executable: string,
  ): Promise<void> {
    ready = null;
    const previous = last ?? null;
    last = {
      version: offer.version,
      from: deps.running,
      at: new Date(now()).toISOString(),
      reported: false,
      ...(staged ? { staged: { sha256: offer.sha256 } } : {}),
    };
    try {
      await saveAttempt(deps.stateDir, last);
      if (staged) await writeWhole(join(stagingDir, STAGED_VERSION), `${offer.version}\n`);
      else await rename(file, executable);
    } catch (error) {
      // not installed: the guard must not hold this version against it
      last = previous;
      await (previous ? saveAttempt(deps.stateDir, previous) : unlink(join(deps.stateDir, FILE))).catch(
        () => undefined,
      );
      await unlink(file).catch(() => undefined);
      failedAt.set(offer.version, now());
      deps.log(`update to ${offer.version} not installed: ${(error as Error).message}; keeping ${deps.running}`);
      return;
    }
    if (staged) {
      deps.log(`staged argus-agent ${offer.version} for the root start step (was ${deps.running}); restarting`);
    } else {
      await fsync(dirname(executable));
      deps.log(`installed argus-agent ${offer.version} (was ${deps.running}); restarting`);
    }
    await deps.restart();
  }

  /**
   * A staged build the root start step did not install is no install: the loop guard must not hold it
   * against that version. Staging still there: no root step ran (a unit without it), said once, held.
   * Consumed but the executable is not that build: the root step refused it (its log line says why),
   * tried again after an hour like a failed download.
   */
  async function settleStaged(attempt: UpdateAttempt | null): Promise<UpdateAttempt | null> {
    if (!attempt?.staged || attempt.reported || !deps.executable) return attempt;
    if (
      await stat(join(stagingDir, STAGED_VERSION)).then(
        () => true,
        () => false,
      )
    ) {
      sayOnce(
        'no root step',
        `argus-agent ${attempt.version} is staged but was not installed: the unit has no root start step ` +
          `(install-update); run the installer again; keeping ${deps.running}`,
      );
      return attempt;
    }
    if ((await fileSha256(deps.executable)) === attempt.staged.sha256) return attempt;
    deps.log(`the root start step did not install argus-agent ${attempt.version}; trying again in an hour`);
    failedAt.set(attempt.version, now());
    await unlink(join(deps.stateDir, FILE)).catch(() => undefined);
    return null;
  }

  async function answered(update: unknown): Promise<void> {
    if (last === undefined) last = await settleStaged(await loadAttempt(deps.stateDir));
    // this accepted request carried the running version: an install of it has reported itself
    if (last && !last.reported && last.version === deps.running) {
      last = { ...last, reported: true };
      await saveAttempt(deps.stateDir, last);
    }
    if (ready) return install(ready, deps.executable as string);
    const offer = await offerOf(update);
    const decision = decideUpdate(offer, deps.running, last);
    if (!decision.install) {
      if (decision.why) sayOnce(`guard ${offer?.version}`, decision.why);
      return;
    }
    if (!offer) return;
    const executable = deps.executable;
    if (!executable) {
      sayOnce('source', `update to ${offer.version} offered; an agent run from source does not update itself`);
      return;
    }
    if (downloading || now() - (failedAt.get(offer.version) ?? -Infinity) < RETRY_FAILED_DOWNLOAD_MS) return;
    const staged = !(await writable(dirname(executable)));
    if (staged && !deps.rootInstallsStaged) {
      sayOnce(
        'writable',
        `update to ${offer.version} offered, but ${dirname(executable)} is not writable by this agent: ` +
          `run the installer again to update it; keeping ${deps.running}`,
      );
      return;
    }
    deps.log(`downloading argus-agent ${offer.version}`);
    downloading = fetchBuild(offer, executable, staged).finally(() => {
      downloading = null;
    });
  }

  return {
    // an update that goes wrong must never stop the reports
    answered: (update) =>
      answered(update).catch((error: Error) => deps.log(`update step failed: ${error.message}; carrying on`)),
    async settled() {
      await downloading;
    },
  };
}

/** The single executable this process runs, or null when it runs from source (node + the agent's files). */
export function runningExecutable(): string | null {
  const getBuiltin = (process as { getBuiltinModule?: (id: string) => unknown }).getBuiltinModule;
  const sea = getBuiltin?.('node:sea') as { isSea?: () => boolean } | undefined;
  return sea?.isSea?.() ? process.execPath : null;
}

/** systemd's Restart= restarts on this code (any non-zero one; 75 is "temporary failure", EX_TEMPFAIL). */
export const RESTART_EXIT_CODE = 75;

/**
 * Into the installed executable: under systemd (it sets INVOCATION_ID) by exiting, so the unit's
 * Restart=always starts the new file; in the foreground (`--no-systemd`, often a container's PID 1,
 * whose exit would stop the container) by exec'ing it in place, same process id.
 */
export function restartInPlace(log: (line: string) => void): void {
  const execve = (process as { execve?: (file: string, args: string[], env: NodeJS.ProcessEnv) => never }).execve;
  if (!process.env['INVOCATION_ID'] && execve) {
    // a single executable's argv is [itself, itself, ...arguments]
    execve(process.execPath, [process.execPath, ...process.argv.slice(2)], process.env);
  }
  if (!process.env['INVOCATION_ID']) log(`cannot exec in place here: exiting ${RESTART_EXIT_CODE} to be restarted`);
  process.exit(RESTART_EXIT_CODE);
}
