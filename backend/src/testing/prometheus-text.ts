/**
 * Reads `GET /api/metrics` the way Prometheus would: through a real text-format parser
 * (prom2javascript; it refuses a malformed line, and a histogram whose `+Inf` bucket is not its count).
 *
 * One gap of that parser is bridged here: it reads no `NaN` or `-Inf` value, which the format allows
 * (Prometheus reads values with Go's ParseFloat, any case). prom-client writes `Nan` for the event-loop
 * delay statistics when no delay was sampled since the last scrape (two scrapes milliseconds apart,
 * as in tests). Such sample lines are checked against the sample grammar and kept aside as NaN/-Inf;
 * every other line goes through the parser.
 */
import { getMetricsFromIterator, type PromData, type PromHistogramData, type PromMetrics } from 'prom2javascript';

/** A sample line whose value is NaN or -Inf (name, optional labels, value, optional timestamp). */
const SPECIAL_VALUE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?[ \t]+(nan|-inf)(?:[ \t]+-?\d+)?$/i;
const LABEL = /\s*([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"\s*(?:,|$)/y;

function parseLabels(text: string): Record<string, string> {
  const labels: Record<string, string> = {};
  LABEL.lastIndex = 0;
  while (LABEL.lastIndex < text.length) {
    const match = LABEL.exec(text);
    if (!match) throw new Error(`malformed labels {${text}}`);
    labels[match[1] as string] = JSON.parse(`"${match[2] as string}"`) as string;
  }
  return labels;
}

const includes = (labels: Record<string, string>, wanted: Record<string, string>) =>
  Object.entries(wanted).every(([key, value]) => labels[key] === value);

export class Exposition {
  private constructor(
    readonly text: string,
    readonly families: PromMetrics,
  ) {}

  static async parse(text: string): Promise<Exposition> {
    const parsed: string[] = [];
    const special = new Map<string, PromData[]>();
    for (const line of text.split('\n')) {
      const match = SPECIAL_VALUE.exec(line);
      if (!match) {
        parsed.push(line);
        continue;
      }
      const [, name = '', labels = '', value = ''] = match;
      const sample = { labels: parseLabels(labels), value: /nan/i.test(value) ? Number.NaN : -Infinity };
      special.set(name, [...(special.get(name) ?? []), sample]);
    }
    const families = await getMetricsFromIterator(parsed[Symbol.iterator]());
    for (const [name, samples] of special) {
      const family = families[name];
      if (!family || !['gauge', 'counter', 'untyped'].includes(family.type))
        throw new Error(`${name}: NaN or -Inf outside a declared gauge or counter`);
      family.data = [...(family.data as PromData[]), ...samples];
    }
    return new Exposition(text, families);
  }

  /** The family's type as declared by `# TYPE` (counter, gauge, histogram, summary). */
  type(name: string): string {
    const family = this.families[name];
    if (!family) throw new Error(`no metric family ${name} in the scrape`);
    return family.type;
  }

  /** Every labelled sample of a counter or gauge. */
  samples(name: string): PromData[] {
    if (!['counter', 'gauge'].includes(this.type(name))) throw new Error(`${name} is a ${this.type(name)}`);
    return this.families[name]?.data as PromData[];
  }

  /** The value of the counter or gauge sample whose labels include `labels` (NaN when there is none). */
  value(name: string, labels: Record<string, string> = {}): number {
    return this.samples(name).find((sample) => includes(sample.labels, labels))?.value ?? Number.NaN;
  }

  /** The histogram series whose labels include `labels`. */
  histogram(name: string, labels: Record<string, string> = {}): PromHistogramData | undefined {
    if (this.type(name) !== 'histogram') throw new Error(`${name} is a ${this.type(name)}`);
    return (this.families[name]?.data as PromHistogramData[]).find((series) => includes(series.labels, labels));
  }
}
