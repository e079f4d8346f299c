/** What the emergency-reclaim tests share: the script run with --no-compose, and small SQL helpers. */
import assert from 'node:assert/strict';
import path from 'node:path';
import type { Knex } from 'knex';
import { pino } from 'pino';
import { REPO_ROOT, runTool, toolEnv } from './support.js';

export const SCRIPT = path.join(REPO_ROOT, 'ops/emergency-reclaim.sh');
export const MARKER = '9000_emergency_reclaim';
export const SILENT = pino({ level: 'silent' });

export function reclaim(url: string, args: string[], env: Record<string, string> = {}) {
  return runTool('bash', [SCRIPT, '--no-compose', ...args], {
    env: toolEnv({ DATABASE_URL: url, PGPASSWORD: 'unused', ...env }),
    timeoutMs: 120_000,
  });
}

export function cutoffOf(output: string): string {
  const match = /^Cutoff: (\S+) /m.exec(output);
  assert.ok(match?.[1], `the script names its cutoff:\n${output}`);
  return match[1];
}

export async function one<T>(knex: Knex, sql: string, bindings: Knex.RawBinding[] = []): Promise<T> {
  const result = (await knex.raw(sql, bindings)) as { rows: T[] };
  return result.rows[0] as T;
}

export async function indexes(knex: Knex): Promise<string[]> {
  const result = (await knex.raw(
    `SELECT indexrelid::regclass::text AS name FROM pg_index WHERE indrelid = 'metrics'::regclass ORDER BY 1`,
  )) as { rows: { name: string }[] };
  return result.rows.map((row) => row.name);
}
