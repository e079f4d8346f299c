/**
 * Alert rules, event rules and the rule preview as the API answers them, and the rule request
 * bodies the routes parse (docs/api.md "Alerts, rules, maintenance").
 */
import { z } from 'zod';
import { id, instant, severity, SAFE_NAME, SAFE_NAME_MESSAGE } from './common.js';

export const scopeType = z.enum(['customer', 'cluster', 'system']);

/** Where a rule or window applies; absent (null) = everything. */
export const ruleScope = z
  .object({
    type: scopeType,
    id,
    /** null when the scope's customer, cluster or system was deleted (only an ADMIN sees such a rule). */
    customerId: id.nullable(),
    name: z.string().nullable(),
  })
  .meta({ id: 'Scope' });
export type RuleScope = z.infer<typeof ruleScope>;

export const OPERATORS = ['>', '>=', '<', '<=', '==', '!='] as const;
export type Operator = (typeof OPERATORS)[number];
export const operator = z.enum(OPERATORS);

const ruleBase = {
  id,
  key: z.string(),
  name: z.string(),
  severity,
  enabled: z.boolean(),
  scope: ruleScope.nullable(),
  createdAt: instant,
  updatedAt: instant,
};

export const alertRule = z
  .object({
    ...ruleBase,
    /** metric: the newest value against the threshold; forecast: the trend reaches it within `horizonSeconds`. */
    kind: z.enum(['metric', 'offline', 'forecast']),
    metric: z.string().nullable(),
    instanceGlob: z.string().nullable(),
    operator: operator.nullable(),
    threshold: z.number().nullable(),
    absolute: z.boolean(),
    forSeconds: z.number().int(),
    /** Forecast rules: how far ahead the projected crossing may lie (null for the other kinds). */
    horizonSeconds: z.number().int().nullable(),
    /** Its alerts count as downtime in availability reports (the offline rule always does). */
    countsAsDowntime: z.boolean(),
  })
  .meta({ id: 'AlertRule' });
export type AlertRule = z.infer<typeof alertRule>;

export const eventRule = z
  .object({
    ...ruleBase,
    eventType: z.string().nullable(),
    messagePattern: z.string().nullable(),
    minEventSeverity: severity.nullable(),
    derived: z.literal('reboot').nullable(),
    holdSeconds: z.number().int(),
  })
  .meta({ id: 'EventRule' });
export type EventRule = z.infer<typeof eventRule>;

export const rulePreview = z
  .object({
    evaluatedAt: instant,
    note: z.string(),
    /** How many (system, instance) pairs would fire: `systems` lists the first 100 of them by name. */
    total: z.number().int(),
    systems: z.array(
      z.object({
        systemId: id,
        systemName: z.string(),
        customerId: id,
        customerName: z.string(),
        instance: z.string(),
        value: z.number().nullable(),
        sampledAt: instant,
        /** Forecast rules: when the trend reaches the threshold (null for the other kinds). */
        projectedAt: instant.nullable(),
      }),
    ),
  })
  .meta({ id: 'RulePreview' });
export type RulePreview = z.infer<typeof rulePreview>;

/**
 * A system's stored forecast lines, one per series a forecast rule governing the system reads: the
 * least-squares line over the window (hours before `through`), and where it goes under the rule
 * with the farthest horizon. The system page's chart draws it as a dashed projection.
 */
export const systemForecasts = z
  .object({
    evaluatedAt: instant,
    windowHours: z.number().int(),
    lines: z.array(
      z.object({
        metric: z.string(),
        instance: z.string(),
        /** The window's end (a whole hour): `level` is the line's value there. */
        through: instant,
        level: z.number(),
        slopePerHour: z.number(),
        /** Whether the window holds enough hours of data for a forecast (the setting's share). */
        enoughData: z.boolean(),
        ruleKey: z.string(),
        threshold: z.number(),
        /** 1: rises to the threshold; -1: falls to it. */
        direction: z.union([z.literal(1), z.literal(-1)]),
        horizonSeconds: z.number().int(),
        /** When the line reaches the threshold; null: not enough data, or it shrinks or stays flat. */
        projectedAt: instant.nullable(),
        /** "Disk used on /var reaches 100 % in 2 d 6 h, around Tue 14:00", or null with `projectedAt`. */
        text: z.string().nullable(),
      }),
    ),
  })
  .meta({ id: 'SystemForecasts' });
export type SystemForecasts = z.infer<typeof systemForecasts>;

// --- the request bodies of /api/alert-rules and /api/event-rules (docs/rules.md "Metric rules") ---
// The inferred types are the services' input types.

/** The scope of a rule or a maintenance window in a request body: a customer, a cluster or a system, or null for everything. */
export const scopeBody = z
  .object({
    type: z.enum(['customer', 'cluster', 'system'], { error: 'must be customer, cluster or system' }),
    id: z
      .number({ error: 'must be an id' })
      .int('must be an id')
      .positive('must be an id')
      .max(2_147_483_647, 'must be an id'),
  })
  .nullable();
export type NewScope = z.input<typeof scopeBody>;

const NO_CONTROL = /^[^\p{Cc}]*$/u;
const severityBody = z.enum(['INFO', 'WARNING', 'CRITICAL'], { error: 'must be INFO, WARNING or CRITICAL' });
const name = z
  .string({ error: 'must be a string' })
  .trim()
  .min(1, 'is required')
  .max(200, 'is too long')
  .regex(SAFE_NAME, SAFE_NAME_MESSAGE);
const ruleKey = z
  .string({ error: 'must be a string' })
  .regex(/^[a-z0-9_.-]{1,64}$/, 'must be 1–64 of a-z, 0-9, "_", "." and "-"');
const metric = z.string({ error: 'must be a string' }).regex(/^[a-z0-9_.]{1,64}$/, 'must be a metric name');
const instanceGlob = z
  .string({ error: 'must be a string' })
  .max(128, 'is too long')
  .regex(NO_CONTROL, 'must not contain control characters')
  .nullable()
  .transform((glob) => (glob === '' ? null : glob));
const operatorBody = z.enum(OPERATORS, { error: 'must be one of > >= < <= == !=' });
const threshold = z.number({ error: 'must be a number' }).finite('must be a finite number');
// 30 days: the longest default is 7 days; a longer wait is a typo, not a rule
const seconds = z
  .number({ error: 'must be a whole number of seconds' })
  .int('must be a whole number of seconds')
  .min(0, 'must not be negative')
  .max(30 * 86_400, 'must be at most 30 days');
// a forecast looks at least an hour (one bucket of the hourly rollup) and at most 30 days ahead
const horizonSeconds = z
  .number({ error: 'must be a whole number of seconds' })
  .int('must be a whole number of seconds')
  .min(3600, 'must be at least one hour')
  .max(30 * 86_400, 'must be at most 30 days');

const immutable = (what: string) => z.undefined({ error: `cannot be changed; ${what}` }).optional();

const alertRuleFields = {
  name,
  severity: severityBody,
  metric: metric.nullable(),
  instanceGlob,
  operator: operatorBody.nullable(),
  threshold: threshold.nullable(),
  absolute: z.boolean({ error: 'must be true or false' }),
  forSeconds: seconds,
  enabled: z.boolean({ error: 'must be true or false' }),
  countsAsDowntime: z.boolean({ error: 'must be true or false' }),
  horizonSeconds: horizonSeconds.nullable(),
};

export const createAlertRuleSchema = z.object({
  key: ruleKey,
  // the offline rule is the one with the key system.offline; any other is a metric or forecast rule
  kind: z.enum(['metric', 'forecast'], { error: 'must be metric or forecast' }).default('metric'),
  ...alertRuleFields,
  horizonSeconds: alertRuleFields.horizonSeconds.default(null),
  metric: alertRuleFields.metric.default(null),
  instanceGlob: instanceGlob.default(null),
  operator: alertRuleFields.operator.default(null),
  threshold: alertRuleFields.threshold.default(null),
  absolute: alertRuleFields.absolute.default(false),
  forSeconds: seconds.default(0),
  enabled: alertRuleFields.enabled.default(true),
  // absent: as the rule of that key it overrides (false for a new key)
  countsAsDowntime: alertRuleFields.countsAsDowntime.optional(),
  scope: scopeBody.default(null),
});

export const updateAlertRuleSchema = z
  .object({
    ...alertRuleFields,
    key: immutable('create a rule with the new key'),
    kind: immutable('create a rule of the other kind'),
    scope: immutable('create an override at the other scope'),
  })
  .partial()
  .strict();

export type AlertRuleInput = z.infer<typeof createAlertRuleSchema>;
export type AlertRuleChanges = z.infer<typeof updateAlertRuleSchema>;
/** What the console's rule form sends: every field but the key and the scope, which a change cannot touch. */
export type AlertRuleFields = Required<Omit<z.input<typeof updateAlertRuleSchema>, 'key' | 'kind' | 'scope'>>;
export type NewAlertRule = z.input<typeof createAlertRuleSchema>;

const eventRuleFields = {
  name,
  severity: severityBody,
  eventType: z
    .string({ error: 'must be a string' })
    .regex(/^[a-z0-9_.-]{1,64}$/, 'must be an event type such as service.failed')
    .nullable(),
  messagePattern: z
    .string({ error: 'must be a string' })
    .max(200, 'is too long')
    .regex(NO_CONTROL, 'must not contain control characters')
    .nullable()
    .transform((pattern) => (pattern === '' ? null : pattern)),
  minEventSeverity: severityBody.nullable(),
  derived: z.enum(['reboot'], { error: 'must be "reboot" or null' }).nullable(),
  holdSeconds: seconds,
  enabled: z.boolean({ error: 'must be true or false' }),
};

export const createEventRuleSchema = z.object({
  key: ruleKey,
  ...eventRuleFields,
  eventType: eventRuleFields.eventType.default(null),
  messagePattern: eventRuleFields.messagePattern.default(null),
  minEventSeverity: eventRuleFields.minEventSeverity.default(null),
  derived: eventRuleFields.derived.default(null),
  holdSeconds: seconds.default(1800),
  enabled: eventRuleFields.enabled.default(true),
  scope: scopeBody.default(null),
});

export const updateEventRuleSchema = z
  .object({
    ...eventRuleFields,
    key: immutable('create a rule with the new key'),
    scope: immutable('create an override at the other scope'),
  })
  .partial()
  .strict();

export type EventRuleInput = z.infer<typeof createEventRuleSchema>;
export type EventRuleChanges = z.infer<typeof updateEventRuleSchema>;
export type EventRuleFields = Required<Omit<z.input<typeof updateEventRuleSchema>, 'key' | 'scope'>>;
export type NewEventRule = z.input<typeof createEventRuleSchema>;
