/**
 * The agent's report body (docs/protocol.md "Report format"): the one schema the server validates with
 * and the agent (agent/) builds its reports against, so the two cannot drift. Malformed input is a
 * 400 naming the field (e.g. `reports.3.metrics.0.value`); nothing of such a
 * request is stored. Every string is free of control characters: they would
 * reach the console, and a NUL would make PostgreSQL refuse a whole batch.
 */
import { z } from 'zod';

import {
  MAX_REPORTS,
  MAX_METRICS_PER_REPORT,
  MAX_EVENTS_PER_REPORT,
  MAX_CHECK_RUNS_PER_REPORT,
  MAX_CHECKS_PER_REPORT,
  CHECK_STATES,
  MAX_CHECK_MESSAGE_LENGTH,
  MAX_CONTAINERS_PER_REPORT,
  MAX_IMAGE_LENGTH,
  PRINTABLE,
  METRIC_NAME,
  MAX_INSTANCE_LENGTH,
  MAX_MESSAGE_LENGTH,
  EVENT_SEVERITIES,
  MAX_AGENT_TEXT,
  MAX_CORES,
} from './agent-report-limits.js';

export * from './agent-report-limits.js';

function text(max: number) {
  return z.string().max(max).regex(PRINTABLE, 'must not contain control characters');
}

export const metricName = z.string().regex(METRIC_NAME, 'must be 1-64 of a-z, 0-9, "_" and "."');

// z.number() refuses NaN and ±Infinity (1e999 parses to Infinity): a value is always finite
const metricSchema = z.object({
  name: metricName,
  instance: text(MAX_INSTANCE_LENGTH).optional(),
  value: z.number(),
});

const eventSchema = z.object({
  type: metricName,
  severity: z.enum(EVENT_SEVERITIES).default('INFO'),
  message: text(MAX_MESSAGE_LENGTH).default(''),
});

/** One run of a network check assigned to the agent (the answer's `checks`): what it measured. */
const checkRunSchema = z.object({
  id: z.number().int().positive().max(2_147_483_647),
  at: z.iso.datetime({ offset: true }),
  up: z.boolean(),
  reason: text(200).nullable(),
  responseMs: z.number().min(0).nullable(),
  status: z.number().int().min(0).max(999).nullable(),
  keywordMatched: z.boolean().nullable(),
  certDaysLeft: z.number().nullable(),
  certValid: z.boolean().nullable(),
  packetLossPct: z.number().min(0).max(100).nullable(),
});
export type CheckRun = z.infer<typeof checkRunSchema>;

/**
 * A script check's state at its last run: the report's one text channel besides events. `name` is
 * the check's instance in its `script.*` series; `ran` when the agent last ran it.
 */
const checkSchema = z.object({
  name: text(MAX_INSTANCE_LENGTH).min(1),
  state: z.enum(CHECK_STATES),
  message: text(MAX_CHECK_MESSAGE_LENGTH).default(''),
  ran: z.iso.datetime({ offset: true }),
});

/**
 * A container the agent saw at this report: its text, beside its `container.*` series (whose
 * instance is `name`). The engine's image name, as `docker ps` shows it.
 */
const containerSchema = z.object({
  name: text(MAX_INSTANCE_LENGTH).min(1),
  image: text(MAX_IMAGE_LENGTH),
});

const reportSchema = z
  .object({
    ts: z.iso.datetime({ offset: true }),
    metrics: z.array(metricSchema).max(MAX_METRICS_PER_REPORT),
    events: z.array(eventSchema).max(MAX_EVENTS_PER_REPORT).optional(),
    /** Runs of the checks assigned to the agent finished since its previous report. */
    checks: z.array(checkRunSchema).max(MAX_CHECK_RUNS_PER_REPORT).optional(),
    scripts: z.array(checkSchema).max(MAX_CHECKS_PER_REPORT).optional(),
    /** Every container the engine listed (absent: the agent could not ask, or is older). */
    containers: z.array(containerSchema).max(MAX_CONTAINERS_PER_REPORT).optional(),
  })
  .superRefine((report, ctx) => {
    // the same (name, instance) twice in one report is ambiguous: which value counts?
    const seen = new Set<string>();
    report.metrics.forEach((metric, index) => {
      const key = `${metric.name}\u0000${metric.instance ?? ''}`;
      if (seen.has(key))
        ctx.addIssue({ code: 'custom', path: ['metrics', index], message: 'duplicate metric name and instance' });
      seen.add(key);
    });
    const names = new Set<string>();
    report.scripts?.forEach((check, index) => {
      if (names.has(check.name))
        ctx.addIssue({ code: 'custom', path: ['scripts', index, 'name'], message: 'duplicate check name' });
      names.add(check.name);
    });
    const containers = new Set<string>();
    report.containers?.forEach((container, index) => {
      if (containers.has(container.name))
        ctx.addIssue({ code: 'custom', path: ['containers', index, 'name'], message: 'duplicate container name' });
      containers.add(container.name);
    });
  });

export const agentInfoSchema = z.object({
  version: text(MAX_AGENT_TEXT.version).optional(),
  hostname: text(MAX_AGENT_TEXT.hostname).optional(),
  os: text(MAX_AGENT_TEXT.os).optional(),
  kernel: text(MAX_AGENT_TEXT.kernel).optional(),
  arch: text(MAX_AGENT_TEXT.arch).optional(),
  cores: z.number().int().min(0).max(MAX_CORES).optional(),
  enrollment: text(MAX_AGENT_TEXT.enrollment).optional(),
});

export const agentBodySchema = z.object({
  agent: agentInfoSchema.default({}),
  reports: z.array(reportSchema).min(1).max(MAX_REPORTS),
});

export type AgentBody = z.infer<typeof agentBodySchema>;
export type AgentInfo = z.infer<typeof agentInfoSchema>;
export type AgentReport = AgentBody['reports'][number];
export type CheckState = (typeof CHECK_STATES)[number];
export type CheckResult = NonNullable<AgentReport['scripts']>[number];
export type ContainerText = NonNullable<AgentReport['containers']>[number];
