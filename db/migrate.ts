/**
 * Start-up steps 1–3 (docs/operations.md "Start-up sequence"): apply pending migrations as
 * one transaction, seed the default rules once, configure TimescaleDB
 * (idempotent, non-fatal). Exits 1 on a failed migration so the server never
 * starts on a half-migrated schema.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Knex } from 'knex';
import { ConfigError, loadDatabaseUrl, loadRetentionConfig } from './environment.js';
import { isMain } from './is-main.js';
import { createLogger, type Logger } from './logger.js';
import { createKnex } from './connection.js';
import { NumberedMigrationSource } from './migration-source.js';
import { ensureCheckRules, ensureDefaultRules, ensureScriptRules } from './seed-rules.js';
import { setupTimescale } from './timescale.js';

export const MIGRATIONS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');
export const MIGRATIONS_TABLE = 'knex_migrations';

/**
 * Migrations that ops tools record without a file (ops/emergency-reclaim.sh). This code knows them, so
 * Knex accepts a database that has one; images built before a name was added do not, and Knex refuses
 * to start them ("The migration directory is corrupt"). Never applied from here.
 */
export const RECORDED_BY_OPS: readonly string[] = ['9000_emergency_reclaim'];

type MigrationEntry = Awaited<ReturnType<NumberedMigrationSource['getMigrations']>>[number];

/** The numbered files plus the ops-recorded names this database already has, as applied no-ops. */
class WithOpsRecords extends NumberedMigrationSource {
  constructor(
    directory: string,
    private readonly recorded: readonly string[],
  ) {
    super(directory);
  }

  override async getMigrations(): Promise<MigrationEntry[]> {
    return [...(await super.getMigrations()), ...this.recorded.map((name) => ({ name, file: '' }))];
  }

  override getMigration(migration: MigrationEntry): Promise<Knex.Migration> {
    if (migration.file === '') return Promise.resolve({ up: () => Promise.resolve(), down: () => Promise.resolve() });
    return super.getMigration(migration);
  }
}

async function opsRecorded(knex: Knex): Promise<string[]> {
  if (!(await knex.schema.hasTable(MIGRATIONS_TABLE))) return [];
  return knex(MIGRATIONS_TABLE).whereIn('name', RECORDED_BY_OPS).pluck('name');
}

/** Applies every pending migration in ONE transaction; returns the names applied. */
export async function runMigrations(knex: Knex, directory = MIGRATIONS_DIR): Promise<string[]> {
  const [, applied] = (await knex.migrate.latest({
    migrationSource: new WithOpsRecords(directory, await opsRecorded(knex)),
    tableName: MIGRATIONS_TABLE,
  })) as [number, string[]];
  return applied;
}

function reason(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export async function migrateMain(env: NodeJS.ProcessEnv, log: Logger): Promise<number> {
  let url: string;
  let retention;
  try {
    url = loadDatabaseUrl(env);
    retention = loadRetentionConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) {
      log.fatal(error.message);
      return 1;
    }
    throw error;
  }
  // one connection, no statement timeout: migrations and TimescaleDB setup may run for minutes
  const knex = createKnex({ url, poolMax: 1, applicationName: 'argus-migrate', log });
  try {
    try {
      const applied = await runMigrations(knex, env['ARGUS_MIGRATIONS_DIR'] || MIGRATIONS_DIR);
      log.info({ applied }, applied.length ? `Applied ${applied.length} migration(s)` : 'Schema is up to date');
    } catch (error) {
      log.fatal(`Migration failed: ${reason(error)}`);
      return 1;
    }
    try {
      const seeded = await ensureDefaultRules(knex);
      if (seeded.alertRules || seeded.eventRules) log.info(seeded, 'Seeded the default rules');
      const checkRules = await ensureCheckRules(knex);
      if (checkRules) log.info({ alertRules: checkRules }, "Seeded the network checks' default rules");
      const scriptRules = await ensureScriptRules(knex);
      if (scriptRules) log.info({ alertRules: scriptRules }, "Seeded the script checks' default rules");
    } catch (error) {
      log.fatal(`Seeding the default rules failed: ${reason(error)}`);
      return 1;
    }
    await setupTimescale(knex, retention, log);
    return 0;
  } finally {
    await knex.destroy();
  }
}

if (isMain(import.meta.url)) {
  const log = createLogger({ name: 'argus-migrate' });
  process.exitCode = await migrateMain(process.env, log);
}
