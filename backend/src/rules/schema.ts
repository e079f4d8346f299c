/**
 * Request bodies of /api/alert-rules and /api/event-rules (contracts.md "Alert
 * rules"). The inferred types are the services' input types.
 */
import { z } from 'zod';
import { scopeSchema } from '../scopes/schema.js';
import { OPERATORS } from './condition.js';

const NO_CONTROL = /^[^\p{Cc}]*$/u;
const severity = z.enum(['INFO', 'WARNING', 'CRITICAL'], { error: 'must be INFO, WARNING or CRITICAL' });
const name = z.string({ error: 'must be a string' }).trim().min(1, 'is required').max(200, 'is too long');
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
const operator = z.enum(OPERATORS as [string, ...string[]], { error: 'must be one of > >= < <= == !=' });
const threshold = z.number({ error: 'must be a number' }).finite('must be a finite number');
// 30 days: the longest default is 7 days; a longer wait is a typo, not a rule
const seconds = z
  .number({ error: 'must be a whole number of seconds' })
  .int('must be a whole number of seconds')
  .min(0, 'must not be negative')
  .max(30 * 86_400, 'must be at most 30 days');

const immutable = (what: string) => z.undefined({ error: `cannot be changed; ${what}` }).optional();

const alertRuleFields = {
  name,
  severity,
  metric: metric.nullable(),
  instanceGlob,
  operator: operator.nullable(),
  threshold: threshold.nullable(),
  absolute: z.boolean({ error: 'must be true or false' }),
  forSeconds: seconds,
  enabled: z.boolean({ error: 'must be true or false' }),
};

export const createAlertRuleSchema = z.object({
  key: ruleKey,
  ...alertRuleFields,
  metric: alertRuleFields.metric.default(null),
  instanceGlob: instanceGlob.default(null),
  operator: alertRuleFields.operator.default(null),
  threshold: alertRuleFields.threshold.default(null),
  absolute: alertRuleFields.absolute.default(false),
  forSeconds: seconds.default(0),
  enabled: alertRuleFields.enabled.default(true),
  scope: scopeSchema.default(null),
});

export const updateAlertRuleSchema = z
  .object({
    ...alertRuleFields,
    key: immutable('create a rule with the new key'),
    scope: immutable('create an override at the other scope'),
  })
  .partial()
  .strict();

export type AlertRuleInput = z.infer<typeof createAlertRuleSchema>;
export type AlertRuleChanges = z.infer<typeof updateAlertRuleSchema>;

const eventRuleFields = {
  name,
  severity,
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
  minEventSeverity: severity.nullable(),
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
  scope: scopeSchema.default(null),
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
