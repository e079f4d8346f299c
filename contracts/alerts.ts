/** Alerts, acknowledgements, incidents and an alert's delivery log (docs/api.md "Alerts"). */
import { z } from 'zod';
import { id, instant, pageLimit, severity } from './common.js';
import { channelType } from './channels.js';

/** Alert ids are bigint: any id JavaScript holds exactly. */
const alertId = z.number().int().positive().max(Number.MAX_SAFE_INTEGER);
const MAX_INT_ID = 2_147_483_647;
const queryId = (max: number) =>
  z.coerce.number({ error: 'must be an id' }).int('must be an id').positive('must be an id').max(max, 'must be an id');

export const alertState = z.enum(['open', 'resolved']);

/** The one shape of an alert outside the database: REST answers, bus events and live messages. */
export const alert = z
  .object({
    id: alertId,
    ruleKey: z.string(),
    severity,
    systemId: id,
    customerId: id,
    instance: z.string(),
    value: z.number().nullable(),
    message: z.string(),
    state: alertState,
    acknowledged: z.boolean(),
    startedAt: instant,
    resolvedAt: instant.nullable(),
  })
  .meta({ id: 'Alert' });
export type Alert = z.infer<typeof alert>;

export const alertDetail = alert
  .extend({
    ruleKind: z.enum(['metric', 'offline', 'event', 'forecast']),
    systemName: z.string(),
    customerName: z.string(),
    /** The customer's IANA zone: the console shows the alert's times (and those in its text) in it. */
    customerTimeZone: z.string(),
    acknowledgedAt: instant.nullable(),
    acknowledgedBy: z.object({ id, name: z.string() }).nullable(),
    ackNote: z.string().nullable(),
    /** When the acknowledgement runs out and the alert counts as unacknowledged again. */
    ackUntil: instant.nullable(),
    incidentId: alertId.nullable(),
    flapping: z.boolean(),
  })
  .meta({ id: 'AlertDetail' });
export type AlertDetail = z.infer<typeof alertDetail>;

/** Pages go backwards by id: pass the last id of a page as `before`. */
export const alertsQuery = z.object({
  state: alertState.optional().meta({ description: 'open or resolved' }),
  customer: queryId(MAX_INT_ID).optional(),
  system: queryId(MAX_INT_ID).optional(),
  severity: z.enum(['INFO', 'WARNING', 'CRITICAL'], { error: 'must be INFO, WARNING or CRITICAL' }).optional(),
  limit: pageLimit(),
  before: queryId(Number.MAX_SAFE_INTEGER).optional(),
});

export const acknowledgeBody = z
  .object({
    note: z
      .string({ error: 'must be a string' })
      .trim()
      .max(1000, 'is too long')
      .nullable()
      .optional()
      .transform((note) => (note ? note : null)),
    until: z.iso
      .datetime({ offset: true, error: 'must be an ISO 8601 time with offset' })
      .nullable()
      .optional()
      .transform((until) => (until ? new Date(until) : null))
      .meta({ description: 'Acknowledged until then (future, at most 30 days); absent: until resolved' }),
  })
  .meta({ id: 'Acknowledge', example: { note: 'Disk swap scheduled', until: '2026-11-26T08:00:00Z' } });
export type AcknowledgeInput = z.input<typeof acknowledgeBody>;

export const incident = z
  .object({
    id: alertId,
    title: z.string(),
    customerId: id,
    customerName: z.string(),
    clusterId: id,
    clusterName: z.string(),
    state: alertState,
    startedAt: instant,
    resolvedAt: instant.nullable(),
    alerts: z.array(z.object({ id: alertId, systemId: id, systemName: z.string(), state: alertState })),
  })
  .meta({ id: 'Incident' });
export type Incident = z.infer<typeof incident>;

export const incidentsQuery = z.object({
  state: alertState.optional(),
  customer: queryId(MAX_INT_ID).optional(),
  limit: pageLimit(),
});

export const deliveryEvent = z.enum(['raised', 'resolved', 'acknowledged', 'repeat', 'escalated', 'flapping']);
export const deliveryStatus = z.enum(['pending', 'sent', 'failed', 'dropped']);

export const deliveryAttempt = z.object({
  at: instant,
  status: z.number().int().nullable(),
  error: z.string().nullable(),
});

export const deliveryLogEntry = z
  .object({
    id,
    /** null: the account e-mail of the built-in rules (no channel), or a channel deleted since. */
    channel: z.object({ id: id.nullable(), name: z.string(), type: channelType }),
    /** A test send is not logged: only the alert's own events (the CHECK of channel_deliveries and alert_notifications). */
    event: deliveryEvent,
    status: deliveryStatus,
    attempts: z.number().int(),
    lastStatus: z.number().int().nullable(),
    lastError: z.string().nullable(),
    /** ADMIN only; null for everyone else. */
    recipient: z.string().nullable(),
    createdAt: instant,
    lastAttemptAt: instant.nullable(),
    sentAt: instant.nullable(),
    attemptLog: z.array(deliveryAttempt),
  })
  .meta({ id: 'DeliveryLogEntry' });
export type DeliveryLogEntry = z.infer<typeof deliveryLogEntry>;
