/**
 * The database's own environment: DATABASE_URL and the retention variables (docs/operations.md "Retention variables"), read by
 * migrations and seeding (the lowest floor) and by the server's configuration (backend/src/config.ts)
 * alike. A malformed value throws a ConfigError whose message is the one line start-up prints.
 */
import { parseInterval, type Interval } from './interval.js';

export class ConfigError extends Error {
  override name = 'ConfigError';
}

export type Env = Record<string, string | undefined>;

export interface RetentionConfig {
  chunkInterval: Interval;
  rawRetention: Interval;
  compressAfter: Interval;
  rollup5mRetention: Interval;
  rollup1hRetention: Interval;
  maxMigrateBytes: number;
}

const RETENTION_DEFAULTS = {
  METRICS_CHUNK_INTERVAL: '1 day',
  METRICS_RAW_RETENTION: '7 days',
  METRICS_COMPRESS_AFTER: '2 days',
  METRICS_5M_RETENTION: '30 days',
  METRICS_1H_RETENTION: '400 days',
} as const;

export function value(env: Env, name: string): string | undefined {
  const raw = env[name];
  if (raw === undefined) return undefined;
  const trimmed = raw.trim();
  return trimmed === '' ? undefined : trimmed;
}

export function integer(env: Env, name: string, fallback: number, min: number, max = Number.MAX_SAFE_INTEGER): number {
  const raw = value(env, name);
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(`${name} must be a whole number (got "${raw}")`);
  const parsed = Number(raw);
  if (!Number.isSafeInteger(parsed) || parsed < min || parsed > max) {
    throw new ConfigError(`${name} must be between ${min} and ${max} (got ${raw})`);
  }
  return parsed;
}

function interval(env: Env, name: keyof typeof RETENTION_DEFAULTS): Interval {
  const raw = value(env, name) ?? RETENTION_DEFAULTS[name];
  const parsed = parseInterval(raw);
  if (!parsed) {
    throw new ConfigError(
      `${name} must be a database interval such as "12 hours", "14 days" or "6 months" (got "${raw}")`,
    );
  }
  return parsed;
}

export function loadDatabaseUrl(env: Env): string {
  const url = value(env, 'DATABASE_URL');
  if (url === undefined) throw new ConfigError('DATABASE_URL is not set');
  if (!/^postgres(ql)?:\/\//.test(url)) {
    throw new ConfigError('DATABASE_URL must be a postgres:// or postgresql:// connection string');
  }
  return url;
}

export function loadRetentionConfig(env: Env): RetentionConfig {
  return {
    chunkInterval: interval(env, 'METRICS_CHUNK_INTERVAL'),
    rawRetention: interval(env, 'METRICS_RAW_RETENTION'),
    compressAfter: interval(env, 'METRICS_COMPRESS_AFTER'),
    rollup5mRetention: interval(env, 'METRICS_5M_RETENTION'),
    rollup1hRetention: interval(env, 'METRICS_1H_RETENTION'),
    maxMigrateBytes: integer(env, 'METRICS_MAX_MIGRATE_BYTES', 21_474_836_480, 0),
  };
}
