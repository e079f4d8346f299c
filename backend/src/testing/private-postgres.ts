/**
 * A PostgreSQL cluster of one test's own (initdb in a temporary directory, a free port on loopback,
 * trust auth), for tests that stop and start the database under a running app: the shared server on
 * 5432 must never be stopped. As root, the cluster runs as user postgres (initdb refuses root).
 */
import { spawn } from 'node:child_process';
import { chown, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir, userInfo } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { freePort } from './net.js';

export interface PrivatePostgres {
  /** `postgres://postgres@127.0.0.1:<port>/<database>` */
  url(database?: string): string;
  start(): Promise<void>;
  /** `pg_ctl stop -m fast`: connections are cut as in a database restart. */
  stop(): Promise<void>;
  destroy(): Promise<void>;
}

async function binDir(): Promise<string> {
  const versions = (await readdir('/usr/lib/postgresql')).sort((a, b) => Number(b) - Number(a));
  if (!versions[0]) throw new Error('no PostgreSQL server binaries under /usr/lib/postgresql');
  return path.join('/usr/lib/postgresql', versions[0], 'bin');
}

function run(command: string, args: string[], asPostgres: boolean): Promise<void> {
  const [file, argv] = asPostgres ? ['runuser', ['-u', 'postgres', '--', command, ...args]] : [command, args];
  return new Promise((resolve, reject) => {
    const child = spawn(file, argv, { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve() : reject(new Error(`${command} ${args.join(' ')} exited ${code}: ${output}`)),
    );
  });
}

/**
 * `timescale`: the real TimescaleDB preloaded (its files installed for this PostgreSQL, as
 * ops/test/prepare-machine.sh does from the vendored build); refused with what to install otherwise.
 */
export async function startPrivatePostgres(options: { timescale?: boolean } = {}): Promise<PrivatePostgres> {
  const bin = await binDir();
  if (options.timescale) await requireTimescale(bin);
  const asPostgres = userInfo().uid === 0;
  const dir = await mkdtemp(path.join(tmpdir(), 'argus-pg-'));
  const data = path.join(dir, 'data');
  if (asPostgres) {
    const { uid, gid } = await postgresIds();
    await chown(dir, uid, gid);
  }
  const port = await freePort();
  await run(path.join(bin, 'initdb'), ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync'], asPostgres);
  await writeFile(
    path.join(data, 'postgresql.auto.conf'),
    `port = ${port}\nlisten_addresses = '127.0.0.1'\nunix_socket_directories = '${dir}'\nfsync = off\n` +
      (options.timescale ? "shared_preload_libraries = 'timescaledb'\ntimescaledb.telemetry_level = off\n" : ''),
  );
  const ctl = (...args: string[]) => run(path.join(bin, 'pg_ctl'), ['-D', data, '-w', ...args], asPostgres);
  const cluster: PrivatePostgres = {
    url: (database = 'postgres') => `postgres://postgres@127.0.0.1:${port}/${database}`,
    start: () => ctl('-l', path.join(dir, 'log'), 'start'),
    stop: () => ctl('-m', 'fast', 'stop'),
    async destroy() {
      await ctl('-m', 'immediate', 'stop').catch(() => undefined);
      await rm(dir, { recursive: true, force: true });
    },
  };
  await cluster.start();
  return cluster;
}

async function requireTimescale(bin: string): Promise<void> {
  const lib = path.join(bin, '..', 'lib');
  const files = await readdir(lib).catch(() => [] as string[]);
  if (!files.some((file) => /^timescaledb-\d/.test(file))) {
    throw new Error(
      `TimescaleDB is not installed for this PostgreSQL (${lib}): run ops/test/prepare-machine.sh as root ` +
        '(it installs the TimescaleDB build vendored beside the repository), or install the timescaledb package for this PostgreSQL major',
    );
  }
}

async function postgresIds(): Promise<{ uid: number; gid: number }> {
  const line = (await readFile('/etc/passwd', 'utf8')).split('\n').find((l) => l.startsWith('postgres:'));
  if (!line) throw new Error('no user postgres on this machine (installed with the postgresql package)');
  const [, , uid, gid] = line.split(':');
  return { uid: Number(uid), gid: Number(gid) };
}

/** CREATE DATABASE on the cluster. */
export async function createDatabase(cluster: PrivatePostgres, name: string): Promise<void> {
  const client = new pg.Client({ connectionString: cluster.url() });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE "${name}"`);
  } finally {
    await client.end();
  }
}
