/**
 * Each test file gets its own PostgreSQL database, cloned from a template that
 * has the migrations applied (CREATE DATABASE … TEMPLATE is fast), so files run
 * in parallel against the real server without seeing each other's rows.
 */
import { createHash, randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Knex } from 'knex';
import pg from 'pg';
import { createKnex } from '../../../db/connection.js';
import { MIGRATIONS_DIR, runMigrations } from '../../../db/migrate.js';

export const ADMIN_URL = process.env['TEST_DATABASE_ADMIN_URL'] ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const TEMPLATE_LOCK_KEY = 7_411_900;

export interface TestDatabase {
  name: string;
  url: string;
  knex: Knex;
  drop(): Promise<void>;
}

export function databaseUrl(name: string): string {
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

function migrationsHash(): string {
  const hash = createHash('sha256');
  for (const file of readdirSync(MIGRATIONS_DIR).sort()) {
    hash.update(file).update(readFileSync(path.join(MIGRATIONS_DIR, file)));
  }
  return hash.digest('hex').slice(0, 12);
}

async function withAdmin<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: ADMIN_URL });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

async function exists(client: pg.Client, name: string): Promise<boolean> {
  const result = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
  return result.rowCount === 1;
}

/**
 * Templates of other migration files (another branch's checkout testing on the same server) are
 * dropped only once unused for this long: dropping them at once broke a parallel run mid-clone.
 */
const STALE_TEMPLATE_MS = 6 * 60 * 60 * 1000;

/**
 * Clones `name` from the migrated template for the current migration files (built once per
 * change), under the template lock, so no other process drops the template mid-clone.
 */
async function cloneMigrated(client: pg.Client, name: string): Promise<void> {
  const template = `argus_tpl_${migrationsHash()}`;
  await client.query('SELECT pg_advisory_lock($1)', [TEMPLATE_LOCK_KEY]);
  try {
    if (!(await exists(client, template))) await buildTemplate(client, template);
    // the comment is the template's last use: what tells a stale one from a parallel run's
    await client.query(`COMMENT ON DATABASE "${template}" IS '${Date.now()}'`);
    await client.query(`CREATE DATABASE "${name}" TEMPLATE "${template}"`);
    await dropStaleTemplates(client, template);
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [TEMPLATE_LOCK_KEY]);
  }
}

async function buildTemplate(client: pg.Client, template: string): Promise<void> {
  await client.query(`CREATE DATABASE "${template}"`);
  const knex = createKnex({ url: databaseUrl(template), poolMax: 1 });
  try {
    await runMigrations(knex);
  } catch (error) {
    await knex.destroy();
    await client.query(`DROP DATABASE IF EXISTS "${template}" WITH (FORCE)`);
    throw error;
  }
  await knex.destroy();
}

async function dropStaleTemplates(client: pg.Client, current: string): Promise<void> {
  const templates = await client.query<{ datname: string; used: string | null }>(
    "SELECT datname, shobj_description(oid, 'pg_database') AS used FROM pg_database WHERE datname LIKE 'argus_tpl_%'",
  );
  for (const { datname, used } of templates.rows) {
    if (datname === current || Date.now() - Number(used ?? 0) < STALE_TEMPLATE_MS) continue;
    await client.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
  }
}

/** An empty database (no migrations), for tests of the migration step itself. */
export async function createEmptyDatabase(): Promise<TestDatabase> {
  return createDatabase(null);
}

/** A fresh database with every migration applied. */
export async function createTestDatabase(): Promise<TestDatabase> {
  return createDatabase('migrated');
}

async function createDatabase(kind: 'migrated' | null): Promise<TestDatabase> {
  const name = `argus_test_${process.pid}_${randomBytes(4).toString('hex')}`;
  await withAdmin(async (client) => {
    if (kind) await cloneMigrated(client, name);
    else await client.query(`CREATE DATABASE "${name}" TEMPLATE template0`);
  });
  const url = databaseUrl(name);
  const knex = createKnex({ url, poolMax: 5 });
  return {
    name,
    url,
    knex,
    async drop() {
      await knex.destroy();
      await withAdmin((client) => client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
    },
  };
}
