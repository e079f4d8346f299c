/**
 * The installer as users run it: the script the server serves, run by dash with curl and with wget
 * against a real Argus (fake builds in AGENT_DIST_DIR), with root, the architecture, sudo and systemd
 * stubbed and ARGUS_INSTALL_ROOT as the host's root. Ownership and a real system user are the
 * container test's part (ops/stack/agent-install.test.ts).
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, readlink, rm, stat, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { fakeBuild, writeRelease } from '../testing/agent-builds.js';
import { useTestServer } from '../testing/app.js';
import { signedInAs } from '../testing/http.js';

const run = promisify(execFile);
const WEBHOOK_SECRET = 'webhook-secret-for-agent-installer-tests';
const distDir = await mkdtemp(path.join(os.tmpdir(), 'argus-installer-dist-'));
const bytes = fakeBuild;

describe('the installer run by dash against a real Argus', () => {
  const fixture = useTestServer({ WEBHOOK_SECRET, AGENT_DIST_DIR: distDir });
  let base: string;
  let KEY: string;
  const get = async (url: string, init?: RequestInit) => Buffer.from(await (await fetch(url, init)).arrayBuffer());

  before(async () => {
    await writeRelease(distDir, '2.9.0', { aarch64: fakeBuild('2.9.0 aarch64') });
    await writeRelease(distDir, '2.10.0', { aarch64: fakeBuild('2.10.0 aarch64') });
    base = fixture.server.url;
    const admin = await signedInAs(base, fixture.db.knex, 'ADMIN');
    const customer = await admin.post('/api/customers', { name: 'Installer GmbH' });
    const cluster = await admin.post('/api/clusters', { customerId: customer.body.id, name: 'hosts' });
    KEY = cluster.body.enrollmentKey;
  });
  after(async () => {
    await rm(distDir, { recursive: true, force: true });
  });

  /**
   * A PATH holding only what the script may use, with root, arch and systemd stubbed; the fetcher is
   * the real one behind a stub that writes down its command line.
   */
  async function sandbox(fetcher: 'curl' | 'wget', { uid = 0, sudo = false } = {}) {
    const dir = await mkdtemp(path.join(distDir, 'run-')); // not a release name: ignored by the dist
    const bin = path.join(dir, 'bin');
    await mkdir(bin);
    const tools = ['mktemp', 'rm', 'sed', 'head', 'wc', 'sha256sum', 'cut', 'grep', 'mkdir', 'chmod', 'mv', 'ln'];
    const where = (tool: string) => {
      const found = ['/usr/bin', '/bin'].map((d) => path.join(d, tool)).find((file) => existsSync(file));
      assert.ok(found, `${tool} is installed`);
      return found;
    };
    for (const tool of [...tools, 'cat', 'sh']) await symlink(where(tool), path.join(bin, tool));
    const stub = async (name: string, body: string) =>
      writeFile(path.join(bin, name), `#!/bin/sh\n${body}\n`, { mode: 0o755 });
    await stub(fetcher, `printf '%s\\n' "$*" >>"$ARGV_LOG"\nexec ${where(fetcher)} "$@"`);
    await stub('id', `echo ${uid}`);
    // sudo: what follows runs where `id -u` says 0
    const asRoot = path.join(dir, 'as-root');
    await mkdir(asRoot);
    await writeFile(path.join(asRoot, 'id'), '#!/bin/sh\necho 0\n', { mode: 0o755 });
    if (sudo) await stub('sudo', 'echo "sudo $*" >>"$STUB_LOG"\nPATH=$SUDO_PATH exec "$@"');
    await stub('uname', 'echo arm64');
    await stub('systemctl', 'echo "$*" >>"$STUB_LOG"\n[ "$1" != is-active ]');
    const [root, script] = [path.join(dir, 'root'), path.join(dir, 'install.sh')];
    const argvLog = path.join(dir, 'argv.log');
    const install = async (key: string, options: string[] = []) => {
      await writeFile(script, await get(`${base}/api/agent/install.sh`, { headers: { 'Argus-Enrollment-Key': key } }));
      const log = path.join(dir, 'systemctl.log');
      const env = {
        PATH: bin,
        ARGUS_INSTALL_ROOT: root,
        STUB_LOG: log,
        ARGV_LOG: argvLog,
        SUDO_PATH: `${asRoot}:${bin}`,
      };
      return run('/bin/sh', [script, ...options], { env }).then(
        (result) => ({ code: 0, ...result }),
        (error: { code: number; stdout: string; stderr: string }) => error,
      );
    };
    const commandLines = async () => (await readFile(argvLog, 'utf8')).trim().split('\n');
    return { dir, root, install, commandLines };
  }

  for (const fetcher of ['curl', 'wget'] as const) {
    it(`installs the verified build, a 0600 config and the unit, then starts it (${fetcher})`, async () => {
      const { dir, root, install, commandLines } = await sandbox(fetcher);
      // an older installer's layout: the binary itself in /usr/local/bin
      await mkdir(path.join(root, 'usr/local/bin'), { recursive: true });
      await writeFile(path.join(root, 'usr/local/bin/argus-agent'), 'an older agent', { mode: 0o755 });
      const result = await install(KEY);
      assert.equal(result.code, 0, result.stderr);
      const agent = path.join(root, 'usr/local/lib/argus-agent/argus-agent');
      assert.deepEqual(await readFile(agent), bytes('2.10.0 aarch64')); // arm64 → aarch64, newest
      assert.equal((await stat(agent)).mode & 0o777, 0o755);
      assert.equal((await stat(path.dirname(agent))).mode & 0o777, 0o755);
      // the command is a link to the executable
      assert.equal(await readlink(path.join(root, 'usr/local/bin/argus-agent')), '../lib/argus-agent/argus-agent');
      const config = path.join(root, 'etc/argus-agent/config.yaml');
      assert.equal((await stat(config)).mode & 0o777, 0o600);
      assert.equal((await stat(path.dirname(config))).mode & 0o777, 0o700);
      assert.match(await readFile(config, 'utf8'), /^webhook_secret: "webhook-secret-for-agent-installer-tests"$/m);
      const unit = await readFile(path.join(root, 'etc/systemd/system/argus-agent.service'), 'utf8');
      assert.match(unit, /^\[Unit\][^[]*^StartLimitIntervalSec=0$/m);
      assert.match(unit, /^ExecStart=\/usr\/local\/bin\/argus-agent run --config \/etc\/argus-agent\/config.yaml$/m);
      assert.match(unit, /^Environment=MALLOC_ARENA_MAX=1$/m, 'one malloc arena: the footprint the docs measure');
      // root's start step installs an update the agent staged, from the root-owned executable
      assert.match(
        unit,
        /^ExecStartPre=-\+\/usr\/local\/lib\/argus-agent\/argus-agent install-update --config \/etc\/argus-agent\/config.yaml$/m,
      );
      assert.match(unit, /^StateDirectory=argus-agent argus-agent\/textfile$/m);
      // script checks: a directory of root's, which only root writes
      assert.equal((await stat(path.join(root, 'etc/argus-agent/checks.d'))).mode & 0o777, 0o755);
      assert.doesNotMatch(
        unit,
        /#USER|^User=|#GROUPS|^SupplementaryGroups=/m,
        'no useradd here: no User= or journal group line, and no placeholder left',
      );
      assert.match(unit, /^Restart=always\nRestartSec=5$/m);
      // the agent's restart into an update it installed (agent/src/update.ts) is no failure
      assert.match(unit, /^SuccessExitStatus=75\nRestartForceExitStatus=75$/m);
      const dropIn = path.join(root, 'etc/systemd/system/argus-agent.service.d/10-start-limit.conf');
      assert.equal(await readFile(dropIn, 'utf8'), '[Unit]\nStartLimitIntervalSec=0\n');
      assert.equal((await stat(path.dirname(dropIn))).mode & 0o777, 0o755, 'the drop-in directory is readable');
      const calls = await readFile(path.join(dir, 'systemctl.log'), 'utf8');
      assert.deepEqual(calls.trim().split('\n'), [
        'is-active --quiet argus-agent',
        'daemon-reload',
        'enable --now argus-agent',
      ]);
      // every URL the installer asks for is on its fetcher's command line: the key is in none of them
      const lines = await commandLines();
      assert.equal(lines.length, 3, 'version, build and config fetched');
      assert.ok(lines[2]?.endsWith(`${base}/api/agent/config`), lines[2]);
      assert.deepEqual(
        lines.filter((line) => line.includes(KEY)),
        [],
      );
    });
  }

  it('follows no link planted where it writes, and refuses a linked directory, naming it', async () => {
    const { dir, root, install } = await sandbox('curl');
    // what the agent's account could plant where an older installer let it write
    const secret = path.join(dir, 'root-only-file');
    const secretDir = path.join(dir, 'root-only-dir');
    await writeFile(secret, 'root only', { mode: 0o600 });
    await mkdir(secretDir, { mode: 0o700 });
    const conf = path.join(root, 'etc/argus-agent');
    const lib = path.join(root, 'usr/local/lib/argus-agent');
    await mkdir(conf, { recursive: true });
    await mkdir(lib, { recursive: true });
    await symlink(secret, path.join(conf, 'config.yaml.new'));
    await symlink(secret, path.join(conf, 'config.yaml'));
    await symlink(secretDir, path.join(lib, 'argus-agent.new'));
    await symlink(secret, path.join(lib, 'argus-agent'));
    const result = await install(KEY);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(await readFile(secret, 'utf8'), 'root only');
    assert.equal((await stat(secret)).mode & 0o777, 0o600);
    assert.equal((await stat(secretDir)).mode & 0o777, 0o700);
    // the links were replaced or removed, never written through
    assert.match(await readFile(path.join(conf, 'config.yaml'), 'utf8'), /^webhook_secret: /m);
    assert.deepEqual(await readFile(path.join(lib, 'argus-agent')), bytes('2.10.0 aarch64'));
    assert.equal(existsSync(path.join(conf, 'config.yaml.new')), false);
    assert.equal(existsSync(path.join(lib, 'argus-agent.new')), false);

    // a directory replaced by a link: refused before anything is written there
    await rm(conf, { recursive: true });
    await symlink(secretDir, conf);
    const refused = await install(KEY);
    assert.equal(refused.code, 1);
    assert.equal(
      refused.stderr.trim(),
      `argus-agent install: ${conf} is a symbolic link this installer did not make, and it follows none: ` +
        'remove it and run the installer again',
    );
    assert.deepEqual(await readdir(secretDir), []);
    assert.equal((await stat(secretDir)).mode & 0o777, 0o700);
  });

  it('run by another account, asks sudo to run it as root; without sudo, says to run it as root', async () => {
    const withSudo = await sandbox('curl', { uid: 1000, sudo: true });
    const result = await withSudo.install(KEY);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stderr, /not running as root: asking sudo to run the installer/);
    assert.match(await readFile(path.join(withSudo.dir, 'systemctl.log'), 'utf8'), /^sudo sh -s --\n/);
    assert.equal(existsSync(path.join(withSudo.root, 'etc/argus-agent/config.yaml')), true);

    const withoutSudo = await sandbox('curl', { uid: 1000 });
    const refused = await withoutSudo.install(KEY);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /run this as root \(this host has no sudo: log in as root, or use su\)/);
    assert.equal(existsSync(path.join(withoutSudo.root, 'etc')), false);
  });

  it('with --no-systemd, installs the same and runs the agent in the foreground, without systemd', async () => {
    const { dir, root, install } = await sandbox('curl');
    const result = await install(KEY, ['--no-systemd']);
    assert.equal(result.code, 0, result.stderr);
    // the fake build prints who it is: the installer exec'd the installed binary
    assert.match(result.stdout, /running it in the foreground\nfake argus-agent 2\.10\.0 aarch64\n$/);
    assert.equal(existsSync(path.join(root, 'etc/argus-agent/config.yaml')), true);
    assert.equal(existsSync(path.join(root, 'etc/systemd/system/argus-agent.service')), false);
    assert.equal(existsSync(path.join(dir, 'systemctl.log')), false, 'systemctl never called');
  });

  it('takes --docker (the agent running as root here: no group to join), and names both options for an unknown one', async () => {
    const { root, install } = await sandbox('curl');
    const result = await install(KEY, ['--docker']);
    assert.equal(result.code, 0, result.stderr);
    const unit = await readFile(path.join(root, 'etc/systemd/system/argus-agent.service'), 'utf8');
    assert.doesNotMatch(unit, /SupplementaryGroups|#GROUPS/);
    const refused = await install(KEY, ['--dockr']);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /unknown option: --dockr \(the options are --no-systemd and --docker\)/);
  });

  it('changes nothing on the host when the server refuses the key', async () => {
    const { root, install } = await sandbox('curl');
    const result = await install('enrollZ_0123456789abcdefghijklmn');
    assert.equal(result.code, 1);
    assert.match(result.stderr, /refused the enrollment key/);
    assert.equal(existsSync(path.join(root, 'usr/local/bin/argus-agent')), false);
    assert.equal(existsSync(path.join(root, 'etc/argus-agent/config.yaml')), false);
  });
});
