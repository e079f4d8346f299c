/**
 * The Prometheus text exposition format (version 0.0.4), as node_exporter's textfile collector
 * reads it: `# HELP` / `# TYPE` and other comments, blank lines, and samples
 * `name{label="value",…} value [timestamp]`. Label values unescape `\\`, `\"` and `\n`. The
 * timestamp is ignored (the report's time counts). A line that is none of these is returned as an
 * error with its number, and the rest of the file still counts.
 */

export interface PromSample {
  name: string;
  labels: [string, string][];
  value: number;
}

export interface PromParse {
  samples: PromSample[];
  errors: { line: number; reason: string }[];
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*/;
const VALUE = /^\s+(\S+)(?:\s+-?\d+)?\s*$/;

/** A float as Go's ParseFloat reads it, including NaN and ±Inf. */
function floatOf(text: string): number | null {
  if (/^[+-]?inf$/i.test(text)) return text.startsWith('-') ? -Infinity : Infinity;
  if (/^nan$/i.test(text)) return NaN;
  if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(text)) return null;
  return Number(text);
}

/** `{a="1",b="x\"y"}` from the start of `text`: the labels and the length read, or an error. */
function labelsOf(text: string): { labels: [string, string][]; length: number } | string {
  const labels: [string, string][] = [];
  let at = 1; // past "{"
  for (;;) {
    while (text[at] === ' ') at++;
    if (text[at] === '}') return { labels, length: at + 1 };
    const name = LABEL_NAME.exec(text.slice(at))?.[0];
    if (!name) return 'a label name expected';
    at += name.length;
    while (text[at] === ' ') at++;
    if (text[at] !== '=') return `label ${name}: ="…" expected`;
    at++;
    while (text[at] === ' ') at++;
    if (text[at] !== '"') return `label ${name}: ="…" expected`;
    at++;
    let value = '';
    for (; at < text.length && text[at] !== '"'; at++) {
      if (text[at] !== '\\') value += text[at];
      else {
        const next = text[++at];
        value += next === 'n' ? '\n' : (next ?? '');
      }
    }
    if (text[at] !== '"') return `label ${name}: the value is not closed`;
    at++;
    if (labels.some(([other]) => other === name)) return `label ${name} twice`;
    labels.push([name, value]);
    while (text[at] === ' ') at++;
    if (text[at] === ',') at++;
    else if (text[at] !== '}') return '"," or "}" expected';
  }
}

function sampleOf(line: string): PromSample | string {
  const name = NAME.exec(line)?.[0];
  if (!name) return 'a metric name expected';
  let rest = line.slice(name.length);
  let labels: [string, string][] = [];
  // blanks may stand between the name and its labels, as Prometheus's own parser allows
  if (rest.trimStart().startsWith('{')) {
    rest = rest.trimStart();
    const read = labelsOf(rest);
    if (typeof read === 'string') return read;
    labels = read.labels;
    rest = rest.slice(read.length);
  }
  const value = VALUE.exec(rest)?.[1];
  const number = value === undefined ? null : floatOf(value);
  if (number === null) return 'a value expected after the name and labels';
  return { name, labels, value: number };
}

export function parsePromText(text: string): PromParse {
  const result: PromParse = { samples: [], errors: [] };
  text.split('\n').forEach((raw, index) => {
    const line = raw.replace(/\r$/, '').trim();
    if (!line || line.startsWith('#')) return;
    const parsed = sampleOf(line);
    if (typeof parsed === 'string') result.errors.push({ line: index + 1, reason: parsed });
    else result.samples.push(parsed);
  });
  return result;
}
