/**
 * docker-compose.prod.yml through Debian's docker-compose 1.29 `config` (it parses and interpolates
 * without an engine), yamllint, and .env.example against the variables the file reads. The stack
 * itself is started by ops/stack/stack.test.ts.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { REPO_ROOT, runTool, toolEnv } from './support.js';

const COMPOSE_FILE = path.join(REPO_ROOT, 'docker-compose.prod.yml');
const REQUIRED_SECRETS = ['AUTH_SECRET', 'WEBHOOK_SECRET', 'CRON_SECRET', 'POSTGRES_PASSWORD'];
const SETTINGS: Record<string, string> = {
  AUTH_URL: 'https://argus.example.com',
  AUTH_SECRET: 'auth-secret-0123456789abcdef0123456789abcdef',
  WEBHOOK_SECRET: 'webhook-secret-0123456789abcdef0123456789ab',
  CRON_SECRET: 'cron-secret-0123456789abcdef0123456789abcdef',
  POSTGRES_PASSWORD: 'db-password-0123456789abcdef',
};

const source = await readFile(COMPOSE_FILE, 'utf8');

describe('docker-compose.prod.yml', () => {
  let dir: string;

  /** `docker-compose config` of the copy without `name:`, with exactly these variables set. */
  async function config(variables: Record<string, string>, ...extra: string[]) {
    return runTool('docker-compose', ['-f', path.join(dir, 'docker-compose.yml'), 'config', ...extra], {
      cwd: dir,
      env: toolEnv(variables),
    });
  }

  before(async () => {
    // its own directory, so no .env of the checkout is read
    dir = await mkdtemp(path.join(tmpdir(), 'argus-compose-'));
    await writeFile(path.join(dir, 'docker-compose.yml'), source);
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  test('leaves the project name to `-p argus` (docker-compose 1.x refuses a top-level name)', () => {
    assert.doesNotMatch(source, /^name:/m);
    assert.match(source, /`docker compose -p argus -f docker-compose.prod.yml up -d --build`/);
  });

  test('is valid with the secrets set, and interpolates the database password into both places', async () => {
    const result = await config(SETTINGS);
    assert.equal(result.code, 0, result.stderr);
    // 1.29 prints YAML only; PyYAML (yamllint's own dependency) turns it into JSON
    const json = await runTool(
      'python3',
      ['-c', 'import json, sys, yaml; json.dump(yaml.safe_load(sys.stdin), sys.stdout)'],
      {
        input: result.stdout,
      },
    );
    assert.equal(json.code, 0, json.stderr);
    const resolved = JSON.parse(json.stdout) as {
      services: Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- compose's own schema
      volumes: Record<string, unknown>;
    };
    const { app, database, redis, scheduler } = resolved.services;
    assert.deepEqual(Object.keys(resolved.services).sort(), ['app', 'database', 'redis', 'scheduler']);

    assert.equal(app.environment.DATABASE_URL, `postgres://argus:${SETTINGS['POSTGRES_PASSWORD']}@database:5432/argus`);
    assert.equal(database.environment.POSTGRES_PASSWORD, SETTINGS['POSTGRES_PASSWORD']);
    for (const name of ['AUTH_SECRET', 'WEBHOOK_SECRET', 'CRON_SECRET', 'AUTH_URL']) {
      assert.equal(app.environment[name], SETTINGS[name], name);
    }
    assert.equal(scheduler.environment.CRON_SECRET, SETTINGS['CRON_SECRET']);
    assert.equal(app.environment.METRICS_TOKEN, '', 'optional: empty unless set');
    assert.equal(app.environment.ALLOW_HTTP_PUBLIC_URL, 'false');
    // retention passed through with the documented defaults
    assert.equal(app.environment.METRICS_CHUNK_INTERVAL, '1 day');
    assert.equal(app.environment.METRICS_RAW_RETENTION, '7 days');
    assert.equal(app.environment.METRICS_COMPRESS_AFTER, '2 days');
    assert.equal(app.environment.METRICS_5M_RETENTION, '30 days');
    assert.equal(app.environment.METRICS_1H_RETENTION, '400 days');
    assert.equal(app.environment.METRICS_MAX_MIGRATE_BYTES, '21474836480');
    assert.equal(app.environment.AUDIT_RETENTION, '400 days');
    assert.equal(app.environment.AGENT_ENROLL_PER_CLUSTER_PER_HOUR, '1000');
    assert.equal(app.environment.AGENT_REPORTS_PER_SYSTEM_PER_MINUTE, '600');

    // healthcheck with the 900 s start period; the scheduler waits for it
    assert.deepEqual(app.healthcheck.test.slice(0, 3), ['CMD', 'node', '-e']);
    assert.match(app.healthcheck.test[3], /\/api\/health/);
    assert.equal(app.healthcheck.start_period, '15m');
    assert.deepEqual(scheduler.depends_on, { app: { condition: 'service_healthy' } });
    assert.equal(app.depends_on.database.condition, 'service_healthy');
    assert.match(scheduler.command.join(' '), /POST -H "Authorization: Bearer \$\$CRON_SECRET"/);
    assert.match(scheduler.command.join(' '), /http:\/\/app:3000\/api\/cron\/evaluate-alerts/);
    assert.match(scheduler.command.join(' '), /sleep \$\$\(\(60 - /, 'once a minute');

    // the public images by default (ARGUS_*_IMAGE point an offline machine at local stand-ins)
    assert.equal(app.build.args.NODE_IMAGE, 'node:24.21.0-bookworm-slim');
    assert.equal(app.image, 'argus:latest');
    assert.equal(app.stop_grace_period, '30s');
    // pinned images, a named database volume, redis without persistence
    assert.match(database.image, /^timescale\/timescaledb:\d+\.\d+\.\d+-pg1[5-7]$/);
    assert.match(redis.image, /^redis:\d+\.\d+\.\d+/);
    assert.match(scheduler.image, /:\d+\.\d+\.\d+$/);
    assert.deepEqual(database.volumes, ['database:/var/lib/postgresql/data:rw']);
    assert.ok('database' in resolved.volumes);
    assert.deepEqual(redis.command, ['redis-server', '--save', '', '--appendonly', 'no']);

    // every published port on 127.0.0.1 only
    const ports = Object.values(resolved.services).flatMap((service) => service.ports ?? []);
    assert.deepEqual(ports, ['127.0.0.1:3000:3000/tcp']);
  });

  for (const secret of REQUIRED_SECRETS) {
    test(`refuses to start without ${secret}`, async () => {
      const variables = { ...SETTINGS };
      delete variables[secret];
      const result = await config(variables);
      assert.notEqual(result.code, 0);
      assert.match(result.stderr, new RegExp(`Missing mandatory value.*${secret} is required`, 's'));
      // an empty value in .env is refused the same way
      const empty = await config({ ...SETTINGS, [secret]: '' });
      assert.notEqual(empty.code, 0);
      assert.match(empty.stderr, new RegExp(`${secret} is required`));
    });
  }

  test('is clean for yamllint (default rules, the repository line width of 120)', async () => {
    const result = await runTool('yamllint', [
      '--strict',
      '-d',
      '{extends: default, rules: {line-length: {max: 120}}}',
      COMPOSE_FILE,
    ]);
    assert.equal(result.code, 0, result.stdout + result.stderr);
  });

  test('.env.example lists every variable the file reads, with required secrets left empty', async () => {
    const example = await readFile(path.join(REPO_ROOT, '.env.example'), 'utf8');
    const defined = new Map(
      [...example.matchAll(/^([A-Z][A-Z0-9_]*)=(.*)$/gm)].map(([, name, value]) => [name!, value!] as const),
    );
    const read = new Set([...source.matchAll(/\$\{([A-Z][A-Z0-9_]*)/g)].map((m) => m[1]!));
    assert.deepEqual([...read].filter((name) => !defined.has(name)).sort(), []);
    for (const secret of REQUIRED_SECRETS) assert.equal(defined.get(secret), '', `${secret} is left empty`);
    for (const secret of [...REQUIRED_SECRETS, 'SETTINGS_ENCRYPTION_KEY']) {
      assert.match(example, new RegExp(`openssl rand[^\\n]*\\n(#[^\\n]*\\n)*${secret}=`), `how to generate ${secret}`);
    }
  });

  test('an .env copied from .env.example is refused until the secrets are filled in', async () => {
    await copyFile(path.join(REPO_ROOT, '.env.example'), path.join(dir, '.env'));
    try {
      const result = await config({});
      assert.notEqual(result.code, 0);
      assert.match(result.stderr, /is required/);
    } finally {
      await rm(path.join(dir, '.env'));
    }
  });
});
