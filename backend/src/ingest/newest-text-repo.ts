/**
 * The one way the ingest stores a report's text channel (script checks, containers' images): a table
 * with one row per system and `name`, holding the list of the newest report that carried it. The
 * list replaces the system's rows (those it no longer names deleted), and a late older report never
 * overwrites a row a newer one wrote: each row keeps the `reported_at` of the report it came from.
 */
import type { Knex } from 'knex';

/** A column beside `system_id`, `name` and `reported_at`, and what it holds of an entry of the list. */
export interface TextColumn<T> {
  column: string;
  type: 'text' | 'timestamptz';
  of(entry: T): string;
}

export interface TextTable<T> {
  table: string;
  columns: readonly TextColumn<T>[];
}

/** The statement for `table`: its names and types are the code's own, never input. */
function recordSql<T>({ table, columns }: TextTable<T>): string {
  const names = columns.map((c) => c.column);
  const arrays = columns.map((c) => `:c_${c.column}::${c.type}[]`);
  return `WITH gone AS (
     DELETE FROM ${table}
      WHERE system_id = :systemId AND reported_at <= :reportedAt AND NOT (name = ANY(:names::text[]))
   )
   INSERT INTO ${table} (system_id, name, ${names.join(', ')}, reported_at)
   SELECT :systemId, name, ${names.join(', ')}, :reportedAt
     FROM unnest(:names::text[], ${arrays.join(', ')}) AS c(name, ${names.join(', ')})
   ON CONFLICT (system_id, name) DO UPDATE
      SET ${names.map((n) => `${n} = excluded.${n}`).join(', ')}, reported_at = excluded.reported_at
    WHERE ${table}.reported_at <= excluded.reported_at`;
}

export function createNewestTextRepo<T extends { name: string }>(db: Knex, table: TextTable<T>) {
  const sql = recordSql(table);
  return {
    /** The system's list as of the report at `reportedAt`. */
    async record(systemId: number, list: readonly T[], reportedAt: Date): Promise<void> {
      const bindings: Record<string, unknown> = { systemId, reportedAt, names: list.map((e) => e.name) };
      for (const c of table.columns) bindings[`c_${c.column}`] = list.map((e) => c.of(e));
      await db.raw(sql, bindings as Knex.ValueDict);
    },
  };
}
