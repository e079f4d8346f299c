/**
 * Knex migration source that records migrations as `NNNN_name`, without the
 * file extension, so a run under tsx (`.ts`) and one from the compiled image
 * (`.js`) recognise each other's history.
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Knex } from 'knex';

const MIGRATION_FILE = /^(\d{4}_[a-z0-9_]+)\.(ts|js|mjs)$/;

interface MigrationEntry {
  name: string;
  file: string;
}

export class NumberedMigrationSource implements Knex.MigrationSource<MigrationEntry> {
  constructor(private readonly directory: string) {}

  getMigrations(): Promise<MigrationEntry[]> {
    const byName = new Map<string, MigrationEntry>();
    for (const file of readdirSync(this.directory).sort()) {
      if (file.endsWith('.d.ts')) continue;
      const match = MIGRATION_FILE.exec(file);
      if (!match?.[1]) continue;
      // a .ts beside its compiled .js is one migration
      if (!byName.has(match[1])) byName.set(match[1], { name: match[1], file: path.join(this.directory, file) });
    }
    return Promise.resolve([...byName.values()].sort((a, b) => a.name.localeCompare(b.name)));
  }

  getMigrationName(migration: MigrationEntry): string {
    return migration.name;
  }

  async getMigration(migration: MigrationEntry): Promise<Knex.Migration> {
    return (await import(pathToFileURL(migration.file).href)) as Knex.Migration;
  }
}
