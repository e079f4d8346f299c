/**
 * The agent's body checked by hand on the hot path, by the rules of contracts/agent-report.ts's zod
 * schema, without the schema's per-field machinery and without copying a sample: a body that passes
 * is the parsed JSON itself, its defaults filled in place. Anything else goes to the zod schema: an
 * invalid body gets exactly the schema's 400 (message and field), and a valid body with members the
 * schema drops (unknown keys) gets the schema's copy without them. agent-body.test.ts checks that the
 * two agree over many generated bodies.
 */
import { z } from 'zod';
import {
  agentBodySchema,
  CHECK_STATES,
  EVENT_SEVERITIES,
  MAX_AGENT_TEXT,
  MAX_CHECK_MESSAGE_LENGTH,
  MAX_CHECKS_PER_REPORT,
  MAX_CONTAINERS_PER_REPORT,
  MAX_CORES,
  MAX_IMAGE_LENGTH,
  MAX_EVENTS_PER_REPORT,
  MAX_INSTANCE_LENGTH,
  MAX_MESSAGE_LENGTH,
  MAX_METRICS_PER_REPORT,
  MAX_REPORTS,
  PRINTABLE,
  type AgentBody,
} from '../../../contracts/agent-report.js';
import { parseInput } from '../lib/validate.js';

/** What z.iso.datetime({ offset: true }) accepts. */
const TIMESTAMP = z.regexes.datetime({ offset: true });
const SEVERITIES: ReadonlySet<unknown> = new Set(EVENT_SEVERITIES);
const CHECK_STATE_SET: ReadonlySet<unknown> = new Set(CHECK_STATES);
const AGENT_TEXTS = Object.keys(MAX_AGENT_TEXT) as (keyof typeof MAX_AGENT_TEXT)[];

type Members = Record<string, unknown>;

/** The agent body of parsed JSON: the same result as parseInput(agentBodySchema, input), cheaper. */
export function parseAgentBody(input: unknown): AgentBody {
  if (!isPlainBody(input)) return parseInput(agentBodySchema, input);
  fillDefaults(input);
  return input as unknown as AgentBody;
}

function isObject(value: unknown): value is Members {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Whether every enumerable key of `value` is one of `known` (for-in: no array of keys made). */
function onlyKeys(value: Members, known: (key: string) => boolean): boolean {
  for (const key in value) if (!known(key)) return false;
  return true;
}

function isText(value: unknown, max: number): boolean {
  return typeof value === 'string' && value.length <= max && PRINTABLE.test(value);
}

const bodyKey = (key: string) => key === 'agent' || key === 'reports';
const reportKey = (key: string) =>
  key === 'ts' || key === 'metrics' || key === 'events' || key === 'scripts' || key === 'containers';
const checkKey = (key: string) => key === 'name' || key === 'state' || key === 'message' || key === 'ran';
const containerKey = (key: string) => key === 'name' || key === 'image';
const sampleKey = (key: string) => key === 'name' || key === 'instance' || key === 'value';
const eventKey = (key: string) => key === 'type' || key === 'severity' || key === 'message';
const agentKey = (key: string) => key === 'cores' || Object.hasOwn(MAX_AGENT_TEXT, key);

/** Valid by the schema, and nothing in it the schema would drop. */
function isPlainBody(body: unknown): body is Members {
  if (!isObject(body) || !onlyKeys(body, bodyKey)) return false;
  if (body['agent'] !== undefined && !isPlainAgent(body['agent'])) return false;
  const reports = body['reports'];
  if (!Array.isArray(reports) || reports.length < 1 || reports.length > MAX_REPORTS) return false;
  for (const report of reports) if (!isPlainReport(report)) return false;
  return true;
}

function isPlainAgent(agent: unknown): boolean {
  if (!isObject(agent) || !onlyKeys(agent, agentKey)) return false;
  for (const key of AGENT_TEXTS) {
    if (agent[key] !== undefined && !isText(agent[key], MAX_AGENT_TEXT[key])) return false;
  }
  const cores = agent['cores'];
  return cores === undefined || (Number.isInteger(cores) && (cores as number) >= 0 && (cores as number) <= MAX_CORES);
}

function isPlainReport(report: unknown): boolean {
  if (!isObject(report) || !onlyKeys(report, reportKey)) return false;
  const { ts, metrics, events, scripts, containers } = report;
  if (typeof ts !== 'string' || !TIMESTAMP.test(ts)) return false;
  if (scripts !== undefined && !arePlainChecks(scripts)) return false;
  if (containers !== undefined && !arePlainContainers(containers)) return false;
  if (!Array.isArray(metrics) || metrics.length > MAX_METRICS_PER_REPORT) return false;
  const seen: Seen = new Map();
  for (const sample of metrics) {
    if (!isPlainSample(sample) || !firstOfItsSeries(seen, sample as { name: string; instance?: string })) return false;
  }
  if (events === undefined) return true;
  if (!Array.isArray(events) || events.length > MAX_EVENTS_PER_REPORT) return false;
  for (const event of events) if (!isPlainEvent(event)) return false;
  return true;
}

/** Per name, its instance (absent and '' are one) or, once a name repeats, the set of them. */
type Seen = Map<string, string | Set<string>>;

/**
 * False for the same (name, instance) twice in a report. Keyed by name first: no string is made
 * per sample (joining name and instance costed half of the whole check), and an instance is hashed
 * only when its name repeats.
 */
function firstOfItsSeries(seen: Seen, { name, instance = '' }: { name: string; instance?: string }): boolean {
  const prior = seen.get(name);
  if (prior === undefined) seen.set(name, instance);
  else if (typeof prior === 'string') {
    if (prior === instance) return false;
    seen.set(name, new Set([prior, instance]));
  } else {
    if (prior.has(instance)) return false;
    prior.add(instance);
  }
  return true;
}

/** METRIC_NAME (1-64 of a-z, 0-9, '_' and '.') by its characters: no regular expression per sample. */
function isMetricName(value: unknown): boolean {
  if (typeof value !== 'string' || value.length < 1 || value.length > 64) return false;
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (!((c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39) || c === 0x5f || c === 0x2e)) return false;
  }
  return true;
}

function isPlainSample(sample: unknown): boolean {
  if (!isObject(sample) || !onlyKeys(sample, sampleKey)) return false;
  const { name, instance, value } = sample;
  return (
    isMetricName(name) &&
    (instance === undefined || isText(instance, MAX_INSTANCE_LENGTH)) &&
    typeof value === 'number' &&
    Number.isFinite(value)
  );
}

/** Script checks: few per report, each name once. */
function arePlainChecks(checks: unknown): boolean {
  if (!Array.isArray(checks) || checks.length > MAX_CHECKS_PER_REPORT) return false;
  const names = new Set<unknown>();
  for (const check of checks) {
    if (!isObject(check) || !onlyKeys(check, checkKey)) return false;
    const { name, state, message, ran } = check;
    if (!isText(name, MAX_INSTANCE_LENGTH) || (name as string).length === 0 || names.has(name)) return false;
    names.add(name);
    if (!CHECK_STATE_SET.has(state) || (message !== undefined && !isText(message, MAX_CHECK_MESSAGE_LENGTH)))
      return false;
    if (typeof ran !== 'string' || !TIMESTAMP.test(ran)) return false;
  }
  return true;
}

/** Containers and their images: up to 120 per report, each name once. */
function arePlainContainers(containers: unknown): boolean {
  if (!Array.isArray(containers) || containers.length > MAX_CONTAINERS_PER_REPORT) return false;
  const names = new Set<unknown>();
  for (const container of containers) {
    if (!isObject(container) || !onlyKeys(container, containerKey)) return false;
    const { name, image } = container;
    if (!isText(name, MAX_INSTANCE_LENGTH) || (name as string).length === 0 || names.has(name)) return false;
    names.add(name);
    if (!isText(image, MAX_IMAGE_LENGTH)) return false;
  }
  return true;
}

function isPlainEvent(event: unknown): boolean {
  if (!isObject(event) || !onlyKeys(event, eventKey)) return false;
  const { type, severity, message } = event;
  return (
    isMetricName(type) &&
    (severity === undefined || SEVERITIES.has(severity)) &&
    (message === undefined || isText(message, MAX_MESSAGE_LENGTH))
  );
}

/** The schema's defaults: `agent` {}, an event's severity INFO and message '', a check's message ''. */
function fillDefaults(body: Members): void {
  body['agent'] ??= {};
  for (const report of body['reports'] as Members[]) {
    for (const check of (report['scripts'] as Members[] | undefined) ?? []) check['message'] ??= '';
    const events = report['events'] as Members[] | undefined;
    if (!events) continue;
    for (const event of events) {
      event['severity'] ??= 'INFO';
      event['message'] ??= '';
    }
  }
}
