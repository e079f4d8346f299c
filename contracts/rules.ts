/** Alert rules, event rules and the rule preview as the API answers them (docs/api.md "Rules"). */
import { z } from 'zod';
import { id, instant, severity } from './common.js';

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

export const operator = z.enum(['>', '>=', '<', '<=', '==', '!=']);

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
    kind: z.enum(['metric', 'offline']),
    metric: z.string().nullable(),
    instanceGlob: z.string().nullable(),
    operator: operator.nullable(),
    threshold: z.number().nullable(),
    absolute: z.boolean(),
    forSeconds: z.number().int(),
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
    systems: z.array(
      z.object({
        systemId: id,
        systemName: z.string(),
        customerId: id,
        customerName: z.string(),
        instance: z.string(),
        value: z.number().nullable(),
        sampledAt: instant,
      }),
    ),
  })
  .meta({ id: 'RulePreview' });
export type RulePreview = z.infer<typeof rulePreview>;

/** A maintenance window: once (startsAt–endsAt) or weekly (weekdays, startTime, durationMinutes in the customer's zone). */
export const maintenanceWindow = z
  .object({
    id,
    name: z.string(),
    customerId: id,
    customerName: z.string(),
    timeZone: z.string(),
    scope: z.object({ type: scopeType, id, name: z.string().nullable() }),
    kind: z.enum(['once', 'weekly']),
    startsAt: instant.nullable(),
    endsAt: instant.nullable(),
    /** 0 = Sunday … 6 = Saturday. */
    weekdays: z.array(z.number().int()).nullable(),
    startTime: z.string().nullable(),
    durationMinutes: z.number().int().nullable(),
    createdBy: z.object({ id, name: z.string() }).nullable(),
    createdAt: instant,
    updatedAt: instant,
    activeNow: z.boolean(),
  })
  .meta({ id: 'MaintenanceWindow' });
export type MaintenanceWindow = z.infer<typeof maintenanceWindow>;
