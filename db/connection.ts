/**
 * Knex instances for the app and for the start-up scripts. The statement
 * timeout belongs to the app's pool only: migrations, the TimescaleDB step and
 * reclaim may legitimately run for minutes.
 */
import knexFactory, { type Knex } from 'knex';
import type { Logger } from './logger.js';

export interface ConnectionOptions {
  url: string;
  poolMax?: number;
  /** 0 or undefined: no timeout. */
  statementTimeoutMs?: number;
  applicationName?: string;
  /** Where Knex's own warnings go; without one they are dropped (never printed raw). */
  log?: Logger;
}

/** Pool options inside the connection string are ignored: DATABASE_POOL_MAX rules (docs/operations.md "Application variables"). */
function stripPoolOptions(url: string): string {
  const parsed = new URL(url);
  for (const key of [...parsed.searchParams.keys()]) {
    if (/^(max|min|pool|pool_?max|pool_?min|connection_?limit|idle_?timeout.*)$/i.test(key)) {
      parsed.searchParams.delete(key);
    }
  }
  return parsed.toString();
}

export function createKnex(options: ConnectionOptions): Knex {
  const connection: Knex.PgConnectionConfig = {
    connectionString: stripPoolOptions(options.url),
    application_name: options.applicationName ?? 'argus',
  };
  if (options.statementTimeoutMs && options.statementTimeoutMs > 0) {
    connection.statement_timeout = options.statementTimeoutMs;
  }
  return knexFactory({
    client: 'pg',
    connection,
    pool: { min: 0, max: options.poolMax ?? 2 },
    acquireConnectionTimeout: 60_000,
    log: {
      warn: (message: unknown) => options.log?.warn({ knex: String(message) }, 'Knex warning'),
      error: (message: unknown) => options.log?.error({ knex: String(message) }, 'Knex error'),
      deprecate: (message: unknown) => options.log?.debug({ knex: String(message) }, 'Knex deprecation'),
      debug: (message: unknown) => options.log?.debug({ knex: String(message) }, 'Knex debug'),
    },
  });
}
