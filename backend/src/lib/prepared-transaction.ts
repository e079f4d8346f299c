/**
 * Named prepared statements on a connection of the app's Knex pool (same pool, same statement
 * timeout): a statement run often is parsed and planned once per connection, not on every call,
 * and no query builder runs in between. One statement (`preparedQuery`, ingest's hot path) or a
 * transaction of them (`inPreparedTransaction`, the checks' results).
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

/** Runs one named prepared statement (`$1`… placeholders) on a pooled connection. */
export async function preparedQuery(
  db: Knex,
  name: string,
  text: string,
  values: unknown[],
): Promise<Record<string, unknown>[]> {
  const client = db.client as unknown as KnexPgClient;
  const connection = await client.acquireConnection();
  try {
    return (await connection.query({ name, text, values })).rows;
  } finally {
    await client.releaseConnection(connection);
  }
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
