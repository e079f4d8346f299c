/**
 * Availability reports (docs/api.md "Reports"): the report over a range of
 * a customer's local calendar, and the customer's monthly report e-mail.
 */
import { z } from 'zod';
import { id, instant } from './common.js';

const MAX_INT_ID = 2_147_483_647;
const localDate = z
  .string({ error: 'must be a date YYYY-MM-DD' })
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date YYYY-MM-DD')
  .meta({ example: '2026-10-01' });

export const reportFormat = z.enum(['json', 'csv', 'pdf'], { error: 'must be json, csv or pdf' });
export type ReportFormat = z.infer<typeof reportFormat>;

export const availabilityQuery = z.object({
  customer: z.coerce
    .number({ error: 'must be an id' })
    .int('must be an id')
    .positive('must be an id')
    .max(MAX_INT_ID, 'must be an id')
    .meta({ description: 'The customer the report is about' }),
  from: localDate.optional().meta({
    description: "First day, in the customer's time zone (default: the first of this month)",
    example: '2026-10-01',
  }),
  to: localDate.optional().meta({
    description: "Last day, included, in the customer's time zone (default: today); the report stops at now",
    example: '2026-10-31',
  }),
  format: reportFormat.default('json').meta({ description: 'json (default), csv or pdf' }),
});
export type AvailabilityQuery = z.input<typeof availabilityQuery>;

const duration = z.number().int().nonnegative();

/** Figures in milliseconds; availability in percent of the monitored time, null when none was monitored. */
export const availabilityStats = z.object({
  periodMs: duration.meta({ description: 'The part of the range the system existed (summed for groups)' }),
  monitoredMs: duration.meta({ description: 'periodMs less unknown, inactive and maintenance time' }),
  downMs: duration.meta({
    description: 'Offline, or an alert of a rule that counts as downtime open, outside maintenance and inactivity',
  }),
  maintenanceMs: duration,
  inactiveMs: duration.meta({ description: 'The customer was inactive' }),
  unknownMs: duration.meta({ description: 'Before the alert retention horizon (resolved alerts purged)' }),
  availability: z.number().min(0).max(100).nullable(),
});
export type AvailabilityStats = z.infer<typeof availabilityStats>;

export const periodKind = z.enum(['down', 'maintenance', 'inactive', 'unknown']);
export type PeriodKind = z.infer<typeof periodKind>;

export const availabilityPeriod = z.object({
  kind: periodKind,
  from: instant,
  to: instant,
  /** For `down`: the alerts open during it. */
  alertIds: z.array(z.number().int().positive()).optional(),
});
export type AvailabilityPeriod = z.infer<typeof availabilityPeriod>;

export const systemAvailability = availabilityStats.extend({
  id,
  name: z.string(),
  /** "agent" (a host) or "check" (a network check: its downtime is the time it was DOWN). */
  kind: z.enum(['agent', 'check']),
  clusterId: id.nullable(),
  periods: z.array(availabilityPeriod),
});
export type SystemAvailability = z.infer<typeof systemAvailability>;

export const clusterAvailability = availabilityStats.extend({ id, name: z.string() });

export const availabilityReport = z
  .object({
    customer: z.object({ id, name: z.string(), timeZone: z.string(), active: z.boolean() }),
    /** The local days asked for (inclusive) and the instants they cover, the end cut at now. */
    fromDate: z.string(),
    toDate: z.string(),
    from: instant,
    to: instant,
    generatedAt: instant,
    /** Resolved alerts before this instant may have been purged (alert retention); null: all kept. */
    dataFrom: instant.nullable(),
    total: availabilityStats,
    clusters: z.array(clusterAvailability),
    systems: z.array(systemAvailability),
    /** What counted as down besides a system offline: the rules whose alerts count as downtime here. */
    downtimeRules: z.array(z.object({ key: z.string(), name: z.string() })).meta({
      description:
        "The alert rules whose alerts counted as downtime for some system of the customer (a rule's countsAsDowntime, " +
        'its overrides included); a system offline always counts',
    }),
  })
  .meta({ id: 'AvailabilityReport' });
export type AvailabilityReport = z.infer<typeof availabilityReport>;

// --- the monthly report e-mail ---

const recipient = z.string().trim().toLowerCase().max(254).email('must be an e-mail address');

export const monthlyReportSettings = z
  .object({
    customerId: id,
    enabled: z.boolean(),
    recipients: z.array(z.string()),
    /** The last months mailed (newest first), with their outcome. */
    deliveries: z.array(
      z.object({
        month: z.string(),
        status: z.enum(['sending', 'sent', 'failed']),
        attempts: z.number().int().nonnegative(),
        sentAt: instant.nullable(),
        error: z.string().nullable(),
      }),
    ),
  })
  .meta({ id: 'MonthlyReportSettings' });
export type MonthlyReportSettings = z.infer<typeof monthlyReportSettings>;

export const monthlyReportUpdate = z
  .object({
    enabled: z.boolean({ error: 'must be true or false' }),
    recipients: z.array(recipient, { error: 'must be a list of e-mail addresses' }).max(20, 'at most 20 addresses'),
  })
  .strict()
  .refine((body) => !body.enabled || body.recipients.length > 0, {
    message: 'at least one address when the e-mail is on',
    path: ['recipients'],
  })
  .meta({ example: { enabled: true, recipients: ['it@customer.example'] } });
export type MonthlyReportUpdate = z.input<typeof monthlyReportUpdate>;
