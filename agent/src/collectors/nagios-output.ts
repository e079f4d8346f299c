/**
 * What a Nagios plugin says: its exit code is the state (0 OK, 1 WARNING, 2 CRITICAL, 3 UNKNOWN),
 * the first line of its output the message, and performance data after a `|` (on the first line,
 * and on any later line) `'label'=value[UOM];warn;crit;min;max`, space separated. Only the value is
 * kept; warn/crit/min/max are the plugin's own thresholds, already in its state.
 */
import type { CheckState } from '../../../contracts/agent-report.js';
import { MAX_CHECK_MESSAGE_LENGTH, PRINTABLE } from '../../../contracts/agent-report-limits.js';

export const STATE_BY_EXIT: readonly CheckState[] = ['OK', 'WARNING', 'CRITICAL', 'UNKNOWN'];
/** One check's figures at most: a plugin printing hundreds is a mistake, not a dashboard. */
export const MAX_PERF_VALUES = 20;

export interface PerfValue {
  label: string;
  value: number;
}

/** Units turned into the base unit (seconds, bytes) so one chart axis fits; others stay as they are. */
const SCALE: Record<string, number> = {
  us: 1e-6,
  ms: 1e-3,
  s: 1,
  B: 1,
  KB: 1024,
  MB: 1024 ** 2,
  GB: 1024 ** 3,
  TB: 1024 ** 4,
};

/** Control characters out, the length cut: what the report's text channel takes. */
export function printable(text: string, max: number = MAX_CHECK_MESSAGE_LENGTH): string {
  const clean = [...text]
    .filter((char) => PRINTABLE.test(char))
    .join('')
    .trim();
  return clean.length > max ? `${clean.slice(0, max - 1)}…` : clean;
}

/** The message: the first line's text before its `|`. */
export function messageOf(output: string): string {
  const first = output.split('\n', 1)[0] ?? '';
  const bar = first.indexOf('|');
  return printable(bar >= 0 ? first.slice(0, bar) : first);
}

/** Every part of the output after a `|`: the first line's tail and later lines' tails. */
function perfText(output: string): string {
  return output
    .split('\n')
    .map((line) => {
      const bar = line.indexOf('|');
      return bar >= 0 ? line.slice(bar + 1) : '';
    })
    .join(' ');
}

/** `'label with spaces'=1.5ms;…` or `label=7;…`; a quote inside a quoted label is doubled. */
const ITEM = /\s*(?:'((?:[^']|'')+)'|([^\s'=]+))=(-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)([a-zA-Z%]*)\S*/y;

export function perfValuesOf(output: string): PerfValue[] {
  const text = perfText(output);
  const values: PerfValue[] = [];
  const seen = new Set<string>();
  ITEM.lastIndex = 0;
  let position = 0;
  while (position < text.length && values.length < MAX_PERF_VALUES) {
    ITEM.lastIndex = position;
    const match = ITEM.exec(text);
    if (!match) {
      // not a figure (a `U` for unknown, a stray word): skip to the next space-separated item
      const next = text.indexOf(' ', position + 1);
      if (next < 0) break;
      position = next;
      continue;
    }
    position = ITEM.lastIndex;
    const label = printable((match[1] ?? '').replace(/''/g, "'") || (match[2] ?? ''), 100);
    const value = Number(match[3]) * (SCALE[match[4] ?? ''] ?? 1);
    if (!label || !Number.isFinite(value) || seen.has(label)) continue;
    seen.add(label);
    values.push({ label, value });
  }
  return values;
}
