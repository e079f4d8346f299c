import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createEmptyDatabase, type TestDatabase } from '../backend/src/testing/database.js';
import { runScript } from '../backend/src/testing/script.js';
import { NumberedMigrationSource } from './migration-source.js';
import { MIGRATIONS_TABLE, runMigrations } from './migrate.js';

const CORE_TABLES = [
  'users',
  'sessions',
  'app_settings',
  'customers',
  'user_customer_grants',
  'clusters',
  'systems',
  'metrics',
  'alert_rules',
  'event_rules',
  'alerts',
];

async function tableExists(db: TestDatabase, table: string): Promise<boolean> {
  const result = await db.knex.raw<{ rows: { found: string | null }[] }>('SELECT to_regclass(?) AS found', [table]);
  return result.rows[0]?.found != null;
}

describe('db/migrate', () => {
  let tempDir: string;
  before(async () => {
    tempDir = await mkdtemp(path.join(os.tmpdir(), 'argus-migrations-'));
  });
  after(async () => {
    await rm(tempDir, { recursive: true, force: true });
  });

  it('creates the core schema and records migrations as NNNN_name', async () => {
    const db = await createEmptyDatabase();
    try {
      const applied = await runMigrations(db.knex);
      assert.deepEqual(applied.slice(0, 1), ['0001_core_schema']);
      for (const table of CORE_TABLES) assert.ok(await tableExists(db, table), `${table} exists`);
      const recorded = await db.knex(MIGRATIONS_TABLE).pluck('name');
      assert.ok(recorded.includes('0001_core_schema'));
      assert.ok(
        recorded.every((name: string) => /^\d{4}_[a-z0-9_]+$/.test(name)),
        'no file extensions recorded',
      );
      assert.deepEqual(await runMigrations(db.knex), [], 'a second run applies nothing');
    } finally {
      await db.drop();
    }
  });

  it('treats a .ts migration and its compiled .js as the same migration', async () => {
    const dir = path.join(tempDir, 'both');
    await rm(dir, { recursive: true, force: true });
    await import('node:fs/promises').then((fs) => fs.mkdir(dir));
    await writeFile(
      path.join(dir, '0001_first.ts'),
      'export async function up() {}\nexport async function down() {}\n',
    );
    await writeFile(
      path.join(dir, '0001_first.js'),
      'export async function up() {}\nexport async function down() {}\n',
    );
    await writeFile(path.join(dir, '0001_first.d.ts'), 'export {};\n');
    await writeFile(path.join(dir, 'README.md'), 'not a migration');
    const source = new NumberedMigrationSource(dir);
    const migrations = await source.getMigrations();
    assert.deepEqual(
      migrations.map((m) => source.getMigrationName(m)),
      ['0001_first'],
    );
  });

  it('applies the whole pending batch in one transaction: a failing second migration leaves the first unapplied', async () => {
    const dir = path.join(tempDir, 'failing');
    await import('node:fs/promises').then((fs) => fs.mkdir(dir, { recursive: true }));
    await writeFile(
      path.join(dir, '0001_create_marker.ts'),
      "export async function up(knex) { await knex.raw('CREATE TABLE batch_marker (id int)'); }\nexport async function down() {}\n",
    );
    await writeFile(
      path.join(dir, '0002_broken.ts'),
      "export async function up(knex) { await knex.raw('SELECT * FROM no_such_table'); }\nexport async function down() {}\n",
    );
    const db = await createEmptyDatabase();
    try {
      const result = await runScript('db/migrate.ts', [], { DATABASE_URL: db.url, ARGUS_MIGRATIONS_DIR: dir });
      assert.equal(result.code, 1, result.output);
      assert.match(result.output, /Migration failed: .*no_such_table/);
      assert.equal(await tableExists(db, 'batch_marker'), false, 'the first migration was rolled back');
      const recorded = (await tableExists(db, MIGRATIONS_TABLE)) ? await db.knex(MIGRATIONS_TABLE).pluck('name') : [];
      assert.deepEqual(recorded, []);
    } finally {
      await db.drop();
    }
  });

  it('prints "DATABASE_URL is not set" and exits 1 without it', async () => {
    const result = await runScript('db/migrate.ts', [], {});
    assert.equal(result.code, 1);
    assert.match(result.output, /DATABASE_URL is not set/);
  });

  it('stops on a malformed retention variable, naming it', async () => {
    const db = await createEmptyDatabase();
    try {
      const result = await runScript('db/migrate.ts', [], { DATABASE_URL: db.url, METRICS_RAW_RETENTION: 'a week' });
      assert.equal(result.code, 1);
      assert.match(result.output, /METRICS_RAW_RETENTION must be a database interval/);
      assert.equal(await tableExists(db, 'users'), false, 'nothing was migrated');
    } finally {
      await db.drop();
    }
  });

  it('runs steps 1-3 on plain PostgreSQL: migrates, seeds, and goes on when TimescaleDB is missing', async () => {
    const db = await createEmptyDatabase();
    try {
      const result = await runScript('db/migrate.ts', [], { DATABASE_URL: db.url });
      assert.equal(result.code, 0, result.output);
      assert.match(result.output, /TimescaleDB setup failed \(app will still start\): /);
      const [row] = await db.knex('alert_rules').count<{ count: string }[]>({ count: '*' });
      // the 44 default rules, the network checks' two and the script checks' three
      assert.equal(Number(row?.count), 49);
      const checkRules = await db.knex('alert_rules').whereIn('key', ['check.down', 'check.slow']).pluck('key');
      assert.deepEqual(checkRules.sort(), ['check.down', 'check.slow']);
      const again = await runScript('db/migrate.ts', [], { DATABASE_URL: db.url });
      assert.equal(again.code, 0, again.output);
      assert.match(again.output, /Schema is up to date/);
    } finally {
      await db.drop();
    }
  });
});
