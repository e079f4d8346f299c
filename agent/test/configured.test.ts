/**
 * The watched things agent settings ask for: systemd services (the host's systemctl answers as
 * recorded), certificates from a PEM file and from a real TLS server made here, backup markers.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer } from 'node:tls';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { configuredCollector, watchListOf, type RunTool } from '../src/collectors/configured.js';
import type { Host } from '../src/host.js';
import type { Sample } from '../src/sample.js';
import { plainStatFiles } from './fixture-host.js';

const run = promisify(execFile);
const value = (samples: Sample[], name: string, instance?: string) =>
  samples.find((s) => s.name === name && (instance === undefined || s.instance === instance))?.value;

/** systemctl as it answers on a host with one failed unit, nginx running and postgresql stopped. */
const systemd: RunTool = async (file, args) => {
  if (file !== 'systemctl') return null;
  if (args[0] === 'list-units') return { code: 0, stdout: 'backup.service loaded failed failed Nightly backup\n' };
  if (args[0] === 'is-active') {
    // one line per unit, in order; the exit code is 0 only when all are active
    const states = args.slice(1).map((unit) => (unit === 'nginx' ? 'active' : 'inactive'));
    return { code: states.every((state) => state === 'active') ? 0 : 3, stdout: states.map((s) => `${s}\n`).join('') };
  }
  return null;
};

/** A host whose systemd runtime directory is there or not: only systemd's presence is asked of it. */
const hostOf = (systemdRuns: boolean): Host => ({
  read: async () => null,
  list: async () => [],
  statfs: async () => null,
  isDirectory: async (path) => systemdRuns && path === '/run/systemd/system',
  procStats: plainStatFiles(() => null),
});
const hostWithSystemd = hostOf(true);

describe('what agent settings ask the agent to watch', () => {
  let dir: string;
  let pem: string;
  let tlsPort: number;
  let close: () => void;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'argus-watch-'));
    // a self-signed certificate valid for 10 days, as openssl makes it
    await run('openssl', [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '10',
      '-subj',
      '/CN=watched.example',
      '-keyout',
      join(dir, 'key.pem'),
      '-out',
      join(dir, 'cert.pem'),
    ]);
    pem = join(dir, 'cert.pem');
    const server = createServer({ key: await readFile(join(dir, 'key.pem')), cert: await readFile(pem) }, (socket) =>
      socket.end(),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    tlsPort = (server.address() as AddressInfo).port;
    close = () => server.close();
  });
  after(async () => {
    close();
    await rm(dir, { recursive: true, force: true });
  });

  it('reads the watch list from the settings, ignoring what is not a unit name or an absolute path', () => {
    assert.deepEqual(
      watchListOf({
        services: 'nginx, postgresql@15-main  bad;name',
        certs: '/a.pem example.com:443',
        'backup.db': '/var/backups/db.done',
        'backup.x': 'relative',
      }),
      {
        services: ['nginx', 'postgresql@15-main'],
        certs: ['/a.pem', 'example.com:443'],
        backups: [['db', '/var/backups/db.done']],
      },
    );
  });

  it('reports services, certificate days left (file and TLS server) and backup age', async () => {
    const marker = join(dir, 'db.done');
    await writeFile(marker, '');
    const thirtyHoursAgo = new Date(Date.now() - 30 * 3_600_000);
    await utimes(marker, thirtyHoursAgo, thirtyHoursAgo);
    const settings = {
      services: 'nginx postgresql',
      certs: `${pem}, 127.0.0.1:${tlsPort}, 127.0.0.1:1, /nonexistent.pem`,
      'backup.db': marker,
      'backup.gone': join(dir, 'missing.done'),
    };
    const samples = await configuredCollector(hostWithSystemd, () => settings, systemd)();
    assert.equal(value(samples, 'services.failed'), 1);
    assert.equal(value(samples, 'service.active', 'nginx'), 1);
    assert.equal(value(samples, 'service.active', 'postgresql'), 0);
    const fromFile = value(samples, 'cert.days_left', pem) as number;
    assert.ok(fromFile > 9.9 && fromFile <= 10, `${fromFile} days`);
    const fromServer = value(samples, 'cert.days_left', `127.0.0.1:${tlsPort}`) as number;
    assert.ok(fromServer > 9.9 && fromServer <= 10, `${fromServer} days from the TLS server`);
    assert.equal(value(samples, 'cert.days_left', '127.0.0.1:1'), undefined, 'a server not answering: left out');
    assert.equal(value(samples, 'cert.days_left', '/nonexistent.pem'), undefined);
    assert.equal(value(samples, 'backup.age_h', 'db'), 30);
    assert.equal(value(samples, 'backup.age_h', 'gone'), undefined, 'no marker yet: left out, not 0');
  });

  it('leaves the services out on a host without systemd', async () => {
    const samples = await configuredCollector(
      hostWithSystemd,
      () => ({ services: 'nginx' }),
      async () => null,
    )();
    assert.deepEqual(samples, []);
  });

  it('does not run systemctl where systemd is not the init system', async () => {
    const asked: string[] = [];
    const recording: RunTool = async (file, args) => {
      asked.push(file);
      return systemd(file, args);
    };
    const samples = await configuredCollector(hostOf(false), () => ({ services: 'nginx' }), recording)();
    assert.deepEqual(asked, []);
    assert.deepEqual(samples, []);
  });
});
