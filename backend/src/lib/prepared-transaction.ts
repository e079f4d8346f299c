/**
 * A transaction of named prepared statements on one connection of the app's Knex pool (same pool,
 * same statement timeout): a statement run often is parsed and planned once per connection, not on
 * every call, and no query builder runs in between.
 */
import type { Knex } from 'knex';

/** Runs the statement `text` (`$1`… placeholders) under `name`, prepared once per connection. */
export type PreparedQuery = (name: string, text: string, values: unknown[]) => Promise<Record<string, unknown>[]>;

interface PgConnection {
  query(
    config: string | { name: string; text: string; values: unknown[] },
  ): Promise<{ rows: Record<string, unknown>[] }>;
}

interface KnexPgClient {
  acquireConnection(): Promise<PgConnection>;
  releaseConnection(connection: PgConnection): Promise<void>;
}

/** `work` between BEGIN and COMMIT; rolled back (and the error rethrown) when it throws. */
export async function inPreparedTransaction<T>(db: Knex, work: (query: PreparedQuery) => Promise<T>): Promise<T> {
  const client = db.client as unknown as KnexPgClient;
  const connection = await client.acquireConnection();
  try {
    await connection.query('BEGIN');
    try {
      const result = await work(async (name, text, values) => (await connection.query({ name, text, values })).rows);
      await connection.query('COMMIT');
      return result;
    } catch (error) {
      await connection.query('ROLLBACK');
      throw error;
    }
  } finally {
    await client.releaseConnection(connection);
  }
}
