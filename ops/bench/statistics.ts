/**
 * The benches' statistics and number wording, written once: a percentile of sorted values, a median,
 * and numbers as en-US writes them (thousands separated).
 */

/** The value at `p` % of `sorted` (ascending); 0 when there is none. */
export function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

/** The middle value (the upper one of an even count); 0 when there is none. */
export const median = (values: readonly number[]) =>
  percentile(
    [...values].sort((a, b) => a - b),
    50,
  );

/** A number as en-US writes it: 12,345 (or with up to `digits` decimals). */
export const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits });
