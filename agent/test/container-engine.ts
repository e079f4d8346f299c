/**
 * Test support: the Docker engine the test suites use (DOCKER_HOST, as ops/test/prepare-machine.sh
 * starts it) and a tiny local image built from this machine's own dash, sleep and rm with the
 * libraries they load (no registry is reachable): `docker import` of a root file system made here.
 */
import { execFile } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';

const exec = promisify(execFile);

export const DOCKER_HOST = process.env['DOCKER_HOST'] ?? 'unix:///run/argus-docker.sock';
export const ENGINE_SOCKET = DOCKER_HOST.replace(/^unix:\/\//, '');
export const TINY_IMAGE = 'argus-test/tiny:1';

export async function docker(...args: string[]): Promise<string> {
  const { stdout } = await exec('docker', args, { env: { ...process.env, DOCKER_HOST }, timeout: 60_000 });
  return stdout.trim();
}

/** The binaries and every library `ldd` names for them, copied to their own paths under `root`. */
async function copyWithLibraries(root: string, binaries: string[]): Promise<void> {
  const files = new Set(binaries);
  for (const binary of binaries) {
    const { stdout } = await exec('ldd', [binary]);
    for (const match of stdout.matchAll(/(\/\S+) \(0x/g)) files.add(match[1] as string);
  }
  for (const file of files) {
    await mkdir(join(root, dirname(file)), { recursive: true });
    await copyFile(file, join(root, file));
  }
}

/**
 * The tiny image's root file system as a tarball at `tar`: dash (as sh), sleep and rm with their
 * libraries. Docker and Podman both import it (`docker import`, `podman import`).
 */
export async function tinyRootTarball(tar: string): Promise<void> {
  const root = await mkdtemp(join(tmpdir(), 'argus-tiny-'));
  try {
    const which = async (name: string) =>
      (await exec('sh', ['-c', `readlink -f "$(command -v ${name})"`])).stdout.trim();
    const [dash, sleep, remove] = await Promise.all(['dash', 'sleep', 'rm'].map(which));
    await copyWithLibraries(root, [dash as string, sleep as string, remove as string]);
    await mkdir(join(root, 'bin'), { recursive: true });
    await mkdir(join(root, 'tmp'), { recursive: true });
    for (const [name, target] of [
      ['sh', dash],
      ['sleep', sleep],
      ['rm', remove],
    ] as const)
      await symlink(target as string, join(root, 'bin', name)).catch(() => undefined);
    await exec('tar', ['-C', root, '-cf', tar, '.']);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

/** Builds TINY_IMAGE once per engine (kept between runs: a second run finds it). */
export async function ensureTinyImage(): Promise<void> {
  if (
    await docker('image', 'inspect', TINY_IMAGE).then(
      () => true,
      () => false,
    )
  )
    return;
  const dir = await mkdtemp(join(tmpdir(), 'argus-tiny-tar-'));
  try {
    const tar = join(dir, 'root.tar');
    await tinyRootTarball(tar);
    await docker('import', '--change', 'ENV PATH=/bin', '--change', 'CMD ["/bin/sh"]', tar, TINY_IMAGE);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
