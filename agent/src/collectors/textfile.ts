/**
 * Drop-in metrics (docs/protocol.md "Script checks and drop-in metrics"): the `*.prom` files of the
 * textfile directory (`textfile_dir` in config.yaml, `/var/lib/argus-agent/textfile` by default),
 * the files node_exporter's textfile collector reads, so cron jobs that write them work unchanged.
 *
 * A Prometheus name becomes a series name in lower case with `:` as `_` (Prometheus names have no
 * `.`, Argus's own all have one: the two can never collide); the labels, sorted by name, become the
 * instance `a=1,b=x`. A file older than `textfile.max_age` seconds (agent setting, default 3600)
 * is stale: its samples are left out and that is said once. Malformed lines are skipped and said
 * once per file; the file's other lines count. Each file's age is sent as `textfile.age_s{file}`.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { MAX_INSTANCE_LENGTH, METRIC_NAME, PRINTABLE } from '../../../contracts/agent-report-limits.js';
import { sample, type Sample } from '../sample.js';
import { parsePromText } from './prom-text.js';

export const DEFAULT_TEXTFILE_DIR = '/var/lib/argus-agent/textfile';
export const DEFAULT_MAX_AGE_S = 3600;
/** Drop-in samples per report at most (of the report's 2,000), and bytes read per file. */
export const MAX_TEXTFILE_SAMPLES = 1000;
const MAX_FILE_BYTES = 1 << 20;
const MAX_FILES = 100;

export interface TextfileOptions {
  dir: string;
  settings: () => Record<string, unknown>;
  log: (line: string) => void;
  now?: () => number;
}

/** The Argus series of a Prometheus sample, or why it has none. */
export function seriesOf(name: string, labels: [string, string][]): { name: string; instance: string } | string {
  const series = name.toLowerCase().replace(/:/g, '_');
  if (!METRIC_NAME.test(series)) return `${name}: longer than 64 characters`;
  const instance = [...labels]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([label, value]) => `${label}=${value}`)
    .join(',');
  if (instance.length > MAX_INSTANCE_LENGTH || !PRINTABLE.test(instance))
    return `${name}: its labels are longer than ${MAX_INSTANCE_LENGTH} characters or not printable`;
  return { name: series, instance };
}

function maxAgeMs(settings: Record<string, unknown>): number {
  const value = Number(settings['textfile.max_age']);
  return (Number.isInteger(value) && value >= 60 && value <= 30 * 86_400 ? value : DEFAULT_MAX_AGE_S) * 1000;
}

export function textfileCollector(options: TextfileOptions): () => Promise<Sample[]> {
  const now = options.now ?? Date.now;
  /** What was said about each file; said again only when it changes. */
  const said = new Map<string, string>();
  const sayOnce = (file: string, line: string | null) => {
    if (line === null) return void said.delete(file);
    if (said.get(file) !== line) options.log(line);
    said.set(file, line);
  };

  async function readOne(file: string, taken: Map<string, Sample>, limit: number): Promise<Sample | null> {
    const path = join(options.dir, file);
    const info = await stat(path).catch(() => null);
    if (!info?.isFile()) return null;
    const ageS = Math.max(0, (now() - info.mtimeMs) / 1000);
    const age = sample('textfile.age_s', ageS, file);
    const maxAge = maxAgeMs(options.settings());
    if (ageS * 1000 > maxAge) {
      sayOnce(file, `textfile ${path} is stale (older than ${maxAge / 1000} s): left out until it is written again`);
      return age;
    }
    const text = info.size > MAX_FILE_BYTES ? null : await readFile(path, 'utf8').catch(() => null);
    if (text === null) {
      sayOnce(file, `textfile ${path} cannot be read or is over ${MAX_FILE_BYTES} bytes: left out`);
      return age;
    }
    const parsed = parsePromText(text);
    const problems = parsed.errors.map(({ line, reason }) => `line ${line}: ${reason}`);
    for (const { name, labels, value } of parsed.samples) {
      const series = seriesOf(name, labels);
      if (typeof series === 'string') problems.push(series);
      else if (!Number.isFinite(value))
        continue; // NaN and ±Inf have no place in a chart
      else if (taken.size >= limit) problems.push(`more than ${MAX_TEXTFILE_SAMPLES} drop-in samples`);
      else if (!taken.has(`${series.name}\u0000${series.instance}`))
        // the value as written: a drop-in's 0.004 s must not round to 0
        taken.set(
          `${series.name}\u0000${series.instance}`,
          series.instance ? { name: series.name, instance: series.instance, value } : { name: series.name, value },
        );
    }
    sayOnce(
      file,
      problems.length
        ? `textfile ${path}: skipped ${problems.slice(0, 3).join('; ')}${problems.length > 3 ? ' …' : ''}`
        : null,
    );
    return age;
  }

  return async () => {
    const files = (await readdir(options.dir).catch(() => []))
      .filter((file) => file.endsWith('.prom') && !file.startsWith('.'))
      .sort()
      .slice(0, MAX_FILES);
    const taken = new Map<string, Sample>();
    const ages: Sample[] = [];
    for (const file of files) {
      if (file.length > MAX_INSTANCE_LENGTH || !PRINTABLE.test(file)) continue;
      const age = await readOne(file, taken, MAX_TEXTFILE_SAMPLES);
      if (age) ages.push(age);
    }
    return [...taken.values(), ...ages];
  };
}
