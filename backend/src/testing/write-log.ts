/**
 * Logs every row written to a test database: a row trigger on each table appends to
 * `test_write_log`, so "a refused request stored nothing" is one look after a mark, over every
 * table at once (a table added later is covered without anyone listing it).
 */
import type { Knex } from 'knex';

export interface WriteLog {
  /** Where the log stands now. */
  mark(): Promise<number>;
  /** The tables written after `mark`, leaving out those every request may touch (sessions). */
  tablesWrittenSince(mark: number, except?: string[]): Promise<string[]>;
}

export async function installWriteLog(db: Knex): Promise<WriteLog> {
  await db.raw(`
    CREATE TABLE IF NOT EXISTS test_write_log (n bigserial PRIMARY KEY, tbl text NOT NULL, op text NOT NULL);
    CREATE OR REPLACE FUNCTION test_note_write() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO test_write_log (tbl, op) VALUES (TG_TABLE_NAME, TG_OP);
      RETURN NULL;
    END $$;
  `);
  const tables = (await db('pg_tables')
    .where({ schemaname: 'public' })
    .whereNot({ tablename: 'test_write_log' })
    .pluck('tablename')) as string[];
  for (const table of tables)
    await db.raw(
      `CREATE OR REPLACE TRIGGER test_write_log AFTER INSERT OR UPDATE OR DELETE ON ?? FOR EACH ROW EXECUTE FUNCTION test_note_write()`,
      [table],
    );
  return {
    async mark() {
      const row = await db('test_write_log').max('n as n').first();
      return Number(row?.['n'] ?? 0);
    },
    async tablesWrittenSince(mark, except = []) {
      const rows = await db('test_write_log').where('n', '>', mark).whereNotIn('tbl', except).distinct('tbl');
      return rows.map((row: { tbl: string }) => row.tbl).sort();
    },
  };
}
