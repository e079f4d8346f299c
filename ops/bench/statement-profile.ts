/**
 * The statements one call sends through a knex instance, each with the time from sending to its
 * answer as the caller saw it: what a run spends where (ops/bench/evaluate-forecasts.ts `--profile`).
 */
import { performance } from 'node:perf_hooks';
import type { Knex } from 'knex';

export interface TimedStatement {
  sql: string;
  ms: number;
}

interface QueryEvent {
  sql: string;
  __knexQueryUid: string;
}

/** Runs `fn` and answers its statements in the order they were sent. */
export async function profileStatements<T>(
  knex: Knex,
  fn: () => Promise<T>,
): Promise<{ value: T; statements: TimedStatement[]; ms: number }> {
  const sent = new Map<string, { sql: string; at: number; ms: number }>();
  const onQuery = (query: QueryEvent) =>
    sent.set(query.__knexQueryUid, { sql: query.sql, at: performance.now(), ms: 0 });
  const onAnswer = (_answer: unknown, query: QueryEvent) => {
    const entry = sent.get(query.__knexQueryUid);
    if (entry) entry.ms = performance.now() - entry.at;
  };
  knex.on('query', onQuery);
  knex.on('query-response', onAnswer);
  const started = performance.now();
  try {
    const value = await fn();
    return {
      value,
      ms: performance.now() - started,
      statements: [...sent.values()].map(({ sql, ms }) => ({ sql: sql.replace(/\s+/g, ' ').trim(), ms })),
    };
  } finally {
    knex.off('query', onQuery);
    knex.off('query-response', onAnswer);
  }
}

/** The slowest statements of a profile, one a line, and what all of them took together. */
export function printProfile(label: string, profile: { statements: TimedStatement[]; ms: number }, top = 12): void {
  const total = profile.statements.reduce((sum, s) => sum + s.ms, 0);
  console.log(
    `\n${label}: ${profile.ms.toFixed(0)} ms, ${profile.statements.length} statements taking ${total.toFixed(0)} ms ` +
      `(the rest: the process's own work)`,
  );
  for (const statement of [...profile.statements].sort((a, b) => b.ms - a.ms).slice(0, top))
    console.log(`  ${statement.ms.toFixed(1).padStart(7)} ms  ${statement.sql.slice(0, 140)}`);
}
