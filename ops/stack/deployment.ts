/**
 * The production stack as README "Production" runs it, driven from a test: the Docker engine that
 * ops/test/prepare-machine.sh starts, the local stand-in images (ops/deploy/offline-images.sh), the
 * image built from the Dockerfile, and a deployment directory laid out as a user's checkout
 * (docker-compose.prod.yml, .env filled from .env.example, ops/ scripts) where every compose
 * command runs with `-p argus`.
 */
import { randomBytes } from 'node:crypto';
import { copyFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { REPO_ROOT, runTool, type ToolResult } from '../deploy/support.js';

export const PROJECT = 'argus';
/** The engine prepare-machine.sh starts when the machine has none of its own. */
export const DOCKER_HOST = process.env['DOCKER_HOST'] ?? 'unix:///run/argus-docker.sock';
export const IMAGE = 'argus:latest';

export function dockerEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    PATH: process.env['PATH'] ?? '/usr/sbin:/usr/bin:/sbin:/bin',
    HOME: process.env['HOME'] ?? '/root',
    DOCKER_HOST,
    ...extra,
  };
}

export function docker(args: string[], options: { timeoutMs?: number; input?: string } = {}): Promise<ToolResult> {
  return runTool('docker', args, { env: dockerEnv({ DOCKER_BUILDKIT: '0' }), ...options });
}

/** Throws with the reason (and the engine's log) when no Docker engine answers. */
export async function requireEngine(): Promise<void> {
  const info = await docker(['info', '--format', '{{.ServerVersion}}'], { timeoutMs: 20_000 }).catch(
    (error: Error) => ({
      code: -1,
      stdout: '',
      stderr: error.message,
    }),
  );
  if (info.code === 0) return;
  const log = await readFile('/var/log/argus-dockerd.log', 'utf8').catch(() => '(no /var/log/argus-dockerd.log)');
  throw new Error(
    `No Docker engine answers at ${DOCKER_HOST}: ${info.stderr.trim()}\n` +
      'ops/test/prepare-machine.sh installs docker.io and starts dockerd; its log ends with:\n' +
      log.split('\n').slice(-15).join('\n'),
  );
}

/** `ops/deploy/offline-images.sh`: builds (or finds) the stand-ins; returns the variables that name them. */
export async function offlineImages(): Promise<Record<string, string>> {
  const built = await runTool('bash', ['ops/deploy/offline-images.sh'], { env: dockerEnv(), timeoutMs: 900_000 });
  if (built.code !== 0) throw new Error(`offline-images.sh failed:\n${built.stdout}\n${built.stderr}`);
  const printed = await runTool('bash', ['ops/deploy/offline-images.sh', '--print-env'], { env: dockerEnv() });
  return Object.fromEntries(
    printed.stdout
      .trim()
      .split('\n')
      .map((line) => line.split('=') as [string, string]),
  );
}

/**
 * The Dockerfile's build stage, tagged. The legacy builder keeps a build's cache as images: the run
 * stage's as the parents of `argus:latest`, the build stage's (`npm ci` above all) as an untagged
 * image nothing derives from, which any prune of dangling images takes. Tagged, it stays.
 */
export const BUILD_STAGE_IMAGE = 'argus:build';

async function imageId(tag: string): Promise<string | null> {
  const found = await docker(['image', 'inspect', '-f', '{{.Id}}', tag]);
  return found.code === 0 ? found.stdout.trim() : null;
}

/**
 * `docker build` tagged `tag`, then the image the tag named before, when this build replaced it: it
 * goes with the layers only it used, and every layer the new image shares stays, the next build's
 * cache (without this each changed build leaves 250 MB behind). A container of a run cut off that
 * still holds the old image keeps it.
 */
export async function buildReplacing(tag: string, args: string[], context = '.'): Promise<void> {
  const before = await imageId(tag);
  const built = await docker(['build', ...args, '-t', tag, context], { timeoutMs: 1_200_000 });
  if (built.code !== 0) throw new Error(`docker build failed:\n${built.stdout.slice(-4000)}\n${built.stderr}`);
  if (before && before !== (await imageId(tag))) await docker(['image', 'rm', before]);
}

/**
 * The image from the Dockerfile on the stand-in Node base, the build on the host network (the npm
 * registry): the build stage first under its own tag, then the whole image on its cache.
 */
export async function buildImage(nodeImage: string): Promise<{ seconds: number; megabytes: number }> {
  const started = performance.now();
  const args = ['--network', 'host', '--build-arg', `NODE_IMAGE=${nodeImage}`];
  await buildReplacing(BUILD_STAGE_IMAGE, [...args, '--target', 'build']);
  await buildReplacing(IMAGE, args);
  const size = await docker(['image', 'inspect', '-f', '{{.Size}}', IMAGE]);
  return { seconds: (performance.now() - started) / 1000, megabytes: Number(size.stdout.trim()) / 1e6 };
}

/** A user's deployment directory: the compose file, `.env` from .env.example with these values, ops/ scripts. */
export async function layOutDeployment(dir: string, settings: Record<string, string>): Promise<void> {
  await mkdir(path.join(dir, 'ops'), { recursive: true });
  for (const file of ['docker-compose.prod.yml', 'ops/emergency-reclaim.sh', 'ops/db-usage.sql']) {
    await copyFile(path.join(REPO_ROOT, file), path.join(dir, file));
  }
  let env = await readFile(path.join(REPO_ROOT, '.env.example'), 'utf8');
  for (const [name, value] of Object.entries(settings)) {
    const line = new RegExp(`^${name}=.*$`, 'm');
    env = line.test(env) ? env.replace(line, `${name}=${value}`) : `${env}${name}=${value}\n`;
  }
  await writeFile(path.join(dir, '.env'), env, { mode: 0o600 });
}

/** `docker-compose -p argus -f docker-compose.prod.yml …` in the deployment directory. */
export function compose(
  dir: string,
  args: string[],
  options: { timeoutMs?: number; input?: string } = {},
): Promise<ToolResult> {
  return runTool('docker-compose', ['-p', PROJECT, '-f', 'docker-compose.prod.yml', ...args], {
    cwd: dir,
    env: dockerEnv(),
    timeoutMs: options.timeoutMs ?? 180_000,
    input: options.input,
  });
}

/** Like `compose`, but throws with compose's output when it fails. */
export async function composeOk(dir: string, args: string[], options: { timeoutMs?: number; input?: string } = {}) {
  const result = await compose(dir, args, options);
  if (result.code !== 0)
    throw new Error(`docker-compose ${args.join(' ')} failed:\n${result.stdout}\n${result.stderr}`);
  return result.stdout;
}

/** One SQL statement in the database container; unaligned rows. */
export async function psql(dir: string, sql: string): Promise<string> {
  const out = await composeOk(
    dir,
    ['exec', '-T', 'database', 'psql', '-X', '-q', '-v', 'ON_ERROR_STOP=1', '-At', '-U', 'argus', '-d', 'argus'],
    {
      input: sql,
    },
  );
  return out.trim();
}

export async function containerOf(dir: string, service: string): Promise<string> {
  return (await composeOk(dir, ['ps', '-q', service])).trim();
}

export async function containerState(id: string): Promise<{ status: string; health: string; exitCode: number }> {
  const out = await docker([
    'inspect',
    '-f',
    '{{.State.Status}}|{{if .State.Health}}{{.State.Health.Status}}{{end}}|{{.State.ExitCode}}',
    id,
  ]);
  const [status = '', health = '', exitCode = '-1'] = out.stdout.trim().split('|');
  return { status, health, exitCode: Number(exitCode) };
}

/** A figure the stack test measured, on its own line of the test output. */
export function figure(text: string): void {
  process.stdout.write(`stack: ${text}\n`);
}

/** Fresh secrets for the deployment's .env, as README "Production" has the operator make them. */
export function randomSecrets() {
  const secret = () => randomBytes(32).toString('hex');
  return {
    AUTH_SECRET: secret(),
    WEBHOOK_SECRET: secret(),
    CRON_SECRET: secret(),
    POSTGRES_PASSWORD: randomBytes(24).toString('hex'),
  };
}

/** Test files, harnesses and testing/ folders in the app container (outside node_modules). */
export async function testCodeInApp(dir: string): Promise<string[]> {
  const found = await composeOk(dir, [
    ...['exec', '-T', 'app', 'find', '.', '-path', './node_modules', '-prune', '-o', '('],
    ...['-name', '*.test.*', '-o', '-name', '*.spec.*', '-o', '-name', '*harness*', '-o', '-path', '*/testing/*'],
    ...[')', '-print'],
  ]);
  return found.split('\n').filter((line) => line.trim() !== '');
}
