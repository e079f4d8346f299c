/**
 * ops/emergency-reclaim.sh says what failed and what to do: no compose, no .env, no engine, no database
 * running, no psql, no connection (its password masked), and a step that fails later (through a
 * stand-in docker-compose, which also shows `-p argus` on every call).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createTestDatabase, type TestDatabase } from '../../backend/src/testing/database.js';
import { indexes, reclaim, SCRIPT } from './reclaim-support.js';
import { REPO_ROOT, runTool, toolEnv } from './support.js';

describe('emergency reclaim says what failed and what to do', () => {
  let dir: string;
  let db: TestDatabase;
  const filledEnv = [
    'AUTH_URL=https://argus.example.com',
    'AUTH_SECRET=auth-secret-0123456789abcdef0123456789abcdef',
    'WEBHOOK_SECRET=webhook-secret-0123456789abcdef0123456789ab',
    'CRON_SECRET=cron-secret-0123456789abcdef0123456789abcdef',
    'POSTGRES_PASSWORD=db-password-0123456789abcdef',
  ].join('\n');

  /** The script in a deployment directory of its own, as a user's checkout has it. */
  function inDeployment(env: Record<string, string>, args: string[] = []) {
    return runTool('bash', [path.join(dir, 'ops/emergency-reclaim.sh'), ...args], {
      cwd: dir,
      env: toolEnv(env),
      timeoutMs: 60_000,
    });
  }

  /** A directory for PATH with links to these programs only (found on the test's own PATH). */
  async function binWith(tools: string[]): Promise<string> {
    const bin = await mkdtemp(path.join(dir, 'bin-'));
    for (const tool of tools) {
      const found = (process.env['PATH'] ?? '/usr/bin:/bin')
        .split(':')
        .map((entry) => path.join(entry, tool))
        .find((candidate) => existsSync(candidate));
      assert.ok(found, `${tool} is installed`);
      await symlink(found, path.join(bin, tool));
    }
    return bin;
  }

  /**
   * A stand-in docker-compose ahead of the real one (and a docker without compose, so the script takes
   * it): every call is logged; `exec … database sh -c` runs psql against `url` as the container would.
   */
  async function standInCompose(url: string): Promise<{ env: Record<string, string>; log: string }> {
    const bin = await mkdtemp(path.join(dir, 'stand-in-'));
    const log = path.join(bin, 'calls.log');
    await writeFile(path.join(bin, 'docker'), '#!/bin/sh\nexit 1\n', { mode: 0o755 });
    await writeFile(
      path.join(bin, 'docker-compose'),
      [
        '#!/bin/bash',
        'printf "%s\\n" "$*" >> "$STAND_IN_LOG"',
        'case "$5" in',
        '  ps) if [ "$6" = -q ]; then echo 0123abcd; else printf "database\\nredis\\n"; fi ;;',
        '  exec) POSTGRES_USER="$STAND_IN_USER" POSTGRES_DB="$STAND_IN_URL" exec sh -c "${10}" ;;',
        'esac',
        '',
      ].join('\n'),
      { mode: 0o755 },
    );
    return {
      env: {
        PATH: `${bin}:${process.env['PATH'] ?? '/usr/bin:/bin'}`,
        STAND_IN_LOG: log,
        STAND_IN_URL: url,
        STAND_IN_USER: decodeURIComponent(new URL(url).username) || 'postgres',
      },
      log,
    };
  }

  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'argus-reclaim-'));
    await mkdir(path.join(dir, 'ops'));
    await copyFile(SCRIPT, path.join(dir, 'ops/emergency-reclaim.sh'));
    await copyFile(path.join(REPO_ROOT, 'docker-compose.prod.yml'), path.join(dir, 'docker-compose.prod.yml'));
    db = await createTestDatabase();
    await db.knex.raw(`
      INSERT INTO metrics (time, system_id, set_id, vals)
      SELECT t, 1, metric_series_set_id(ARRAY['cpu.usage_pct'], ARRAY['']), ARRAY[1]::real[]
        FROM generate_series(now() - INTERVAL '3 days', now(), INTERVAL '1 minute') AS t`);
    await db.knex.raw('CREATE INDEX metrics_time_idx ON metrics (time)');
  });
  after(async () => {
    await db?.drop();
    await rm(dir, { recursive: true, force: true });
  });

  test('without Docker Compose: says so and how to install it', async () => {
    const result = await inDeployment({ PATH: await binWith(['bash', 'dirname', 'sed', 'grep', 'tail']) });
    assert.equal(result.code, 1, result.stdout + result.stderr);
    assert.match(result.stderr, /neither 'docker compose' nor 'docker-compose' is installed: install Docker Compose/);
    assert.match(result.stderr, /apt-get install docker-compose/);
    assert.match(result.stderr, /or run it with --no-compose and DATABASE_URL/);
  });

  test('without the .env beside the compose file: compose cannot read the stack', async () => {
    const result = await inDeployment({});
    assert.equal(result.code, 1);
    assert.match(
      result.stderr,
      /-p argus -f \S+docker-compose\.prod\.yml cannot read the stack: .*POSTGRES_PASSWORD is required/,
    );
    // docker-compose 1.x quotes the whole environment block before the reason: left out
    assert.doesNotMatch(result.stderr, /interpolating \{/);
    assert.ok(
      result.stderr.includes(`There is no .env in ${dir}: run ops/emergency-reclaim.sh of the deployment directory`),
    );
    assert.match(result.stderr, /next to the \.env with the secrets filled in/);
  });

  test('with no Docker engine: says so and how to point at one', async () => {
    await writeFile(path.join(dir, '.env'), filledEnv);
    const result = await inDeployment({ DOCKER_HOST: 'unix:///nonexistent/docker.sock' });
    assert.equal(result.code, 1);
    assert.match(result.stderr, /the Docker engine does not answer \(unix:\/\/\/nonexistent\/docker\.sock\)/);
    assert.match(result.stderr, /Start Docker, or point DOCKER_HOST at it/);
    assert.ok(result.stderr.split('\n').length < 6, `short, not a traceback:\n${result.stderr}`);
  });

  test('with the stack not up: names the service and the command that starts it', async () => {
    await writeFile(path.join(dir, '.env'), filledEnv);
    const result = await inDeployment({
      DOCKER_HOST: process.env['DOCKER_HOST'] ?? 'unix:///run/argus-docker.sock',
      COMPOSE_PROJECT_NAME: 'argus-reclaim-absent',
    });
    assert.equal(result.code, 1, result.stdout + result.stderr);
    assert.match(result.stderr, /the database service of project 'argus-reclaim-absent' is not running/);
    assert.match(result.stderr, /-p argus-reclaim-absent -f \S+docker-compose\.prod\.yml up -d database/);
  });

  test('compose mode passes -p argus every time and prints the command that starts the app again', async () => {
    await writeFile(path.join(dir, '.env'), filledEnv);
    const standIn = await standInCompose(db.url);
    const result = await inDeployment(standIn.env, ['--apply']);
    assert.equal(result.code, 0, result.stdout + result.stderr);
    const compose = `-p argus -f ${path.join(dir, 'docker-compose.prod.yml')}`;
    const calls = (await readFile(standIn.log, 'utf8')).trim().split('\n');
    assert.ok(calls.length > 5, calls.join('\n'));
    for (const call of calls) assert.ok(call.startsWith(`${compose} `), call);
    assert.ok(calls.includes(`${compose} stop app scheduler`), calls.join('\n'));
    assert.ok(result.stdout.includes(`Start again: docker-compose ${compose} up -d app scheduler\n`), result.stdout);
    assert.deepEqual(await indexes(db.knex), ['metrics_dedupe_idx']);
  });

  test('a step that fails later is named, with what to do and how to start the app again', async () => {
    await writeFile(path.join(dir, '.env'), filledEnv);
    await db.knex.raw('CREATE INDEX metrics_time_idx ON metrics (time)');
    // a database that answers but refuses to change anything (a read-only replica, say)
    // (libpq decodes %20, not the + that URLSearchParams writes for a space)
    const readOnly = `${db.url}${db.url.includes('?') ? '&' : '?'}options=-c%20default_transaction_read_only%3Don`;
    const standIn = await standInCompose(readOnly);
    const result = await inDeployment(standIn.env, ['--apply']);
    assert.equal(result.code, 1, result.stdout + result.stderr);
    assert.match(result.stdout, /Plan: drop the redundant indexes: public\.metrics_time_idx/);
    assert.match(result.stderr, /cannot execute DROP INDEX in a read-only transaction/);
    assert.match(
      result.stderr,
      /emergency-reclaim: failed while dropping the redundant indexes public\.metrics_time_idx \(exit status 3; the error above says why\)/,
    );
    assert.match(result.stderr, /Every step is safe to repeat: fix the cause and run this again with --apply/);
    assert.ok(
      result.stderr.includes(
        `The app and the scheduler are stopped: run this again once the cause is fixed, or start them with: docker-compose -p argus -f ${path.join(dir, 'docker-compose.prod.yml')} up -d app scheduler`,
      ),
      result.stderr,
    );
    assert.deepEqual(await indexes(db.knex), ['metrics_dedupe_idx', 'metrics_time_idx'], 'nothing changed');
  });

  test('--no-compose with an unreachable database: says so, never with the password', async () => {
    const result = await reclaim('postgres://argus:s3cret-password@127.0.0.1:1/argus', []);
    assert.equal(result.code, 1);
    assert.match(
      result.stderr,
      /cannot connect to the database of DATABASE_URL \(postgres:\/\/argus:\*\*\*@127\.0\.0\.1:1\/argus\): psql: error: connection to server at "127\.0\.0\.1", port 1 failed/,
    );
    assert.match(result.stderr, /Check DATABASE_URL \(host, port, user, password, database name\)/);
    assert.doesNotMatch(result.stdout + result.stderr, /s3cret-password/);
  });

  test('--no-compose without psql or without DATABASE_URL: says which', async () => {
    const noPsql = await reclaim('postgres://argus:s3cret-password@127.0.0.1:1/argus', [], {
      PATH: await binWith(['bash', 'dirname', 'sed', 'grep', 'tail']),
    });
    assert.equal(noPsql.code, 1);
    assert.match(
      noPsql.stderr,
      /psql is not installed: install the PostgreSQL client \(Debian: apt-get install postgresql-client\)/,
    );
    const noUrl = await runTool('bash', [SCRIPT, '--no-compose'], { env: toolEnv() });
    assert.equal(noUrl.code, 2);
    assert.match(noUrl.stderr, /DATABASE_URL is not set \(needed with --no-compose\)/);
  });
});
