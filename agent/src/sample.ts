/** What a collector yields: the report's metric shape (contracts/agent-report.ts), with a rounded value. */
import type { AgentReport } from '../../contracts/agent-report.js';

export type Sample = AgentReport['metrics'][number];
export type AgentEvent = NonNullable<AgentReport['events']>[number];

/** Percentages and rates to two decimals: the storage keeps float8 anyway, the JSON stays short. */
export const round = (value: number) => Math.round(value * 100) / 100;

export const sample = (name: string, value: number, instance?: string): Sample =>
  instance === undefined ? { name, value: round(value) } : { name, instance, value: round(value) };

/** A percentage of `part` in `whole`, or null when the whole is zero (nothing to measure). */
export const percent = (part: number, whole: number): number | null => (whole > 0 ? (100 * part) / whole : null);
