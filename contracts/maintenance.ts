/**
 * Maintenance windows (/api/maintenance-windows): the answer and the request bodies (docs/api.md
 * "Alerts, rules, maintenance"). A window is one-off ([startsAt, endsAt) in absolute time) or weekly
 * (weekdays 0 = Sunday … 6, local start time HH:MM and a duration, in the customer's time zone).
 */
import { z } from 'zod';
import { id, instant, SAFE_NAME, SAFE_NAME_MESSAGE } from './common.js';
import { scopeBody, scopeType } from './rules.js';

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

const HH_MM = /^([01][0-9]|2[0-3]):[0-5][0-9]$/;
export const MAX_DURATION_MINUTES = 10_080; // one week: a longer weekly window would overlap itself

const instantBody = z.iso.datetime({ offset: true, error: 'must be an ISO 8601 date-time with an offset' });

export const windowSchema = z
  .object({
    name: z
      .string({ error: 'must be a string' })
      .trim()
      .min(1, 'is required')
      .max(200, 'is too long')
      .regex(SAFE_NAME, SAFE_NAME_MESSAGE),
    scope: scopeBody.unwrap(),
    kind: z.enum(['once', 'weekly'], { error: 'must be "once" or "weekly"' }),
    startsAt: instantBody.nullable().default(null),
    endsAt: instantBody.nullable().default(null),
    weekdays: z
      .array(
        z
          .number({ error: 'must be 0 (Sunday) to 6' })
          .int('must be 0 (Sunday) to 6')
          .min(0)
          .max(6, 'must be 0 (Sunday) to 6'),
        {
          error: 'must be a list of weekdays',
        },
      )
      .max(7)
      .nullable()
      .default(null),
    startTime: z
      .string({ error: 'must be HH:MM' })
      .regex(HH_MM, 'must be HH:MM (00:00–23:59)')
      .nullable()
      .default(null),
    durationMinutes: z
      .number({ error: 'must be a whole number of minutes' })
      .int('must be a whole number of minutes')
      .min(1, 'must be at least 1 minute')
      .max(MAX_DURATION_MINUTES, 'must be at most 10080 minutes (one week)')
      .nullable()
      .default(null),
  })
  .superRefine((w, ctx) => {
    const need = (field: keyof typeof w, message = 'is required for this kind of window') => {
      if (w[field] === null) ctx.addIssue({ code: 'custom', path: [field], message });
    };
    if (w.kind === 'once') {
      need('startsAt');
      need('endsAt');
      if (w.startsAt && w.endsAt && Date.parse(w.endsAt) <= Date.parse(w.startsAt)) {
        ctx.addIssue({ code: 'custom', path: ['endsAt'], message: 'must be after startsAt' });
      }
    } else {
      need('weekdays');
      if (w.weekdays && w.weekdays.length === 0) {
        ctx.addIssue({ code: 'custom', path: ['weekdays'], message: 'must name at least one weekday' });
      }
      if (w.weekdays && new Set(w.weekdays).size !== w.weekdays.length) {
        ctx.addIssue({ code: 'custom', path: ['weekdays'], message: 'must not repeat a weekday' });
      }
      need('startTime');
      need('durationMinutes');
    }
  })
  // the other kind's fields are dropped, so a window never carries a schedule it does not follow
  .transform((w) =>
    w.kind === 'once'
      ? { ...w, weekdays: null, startTime: null, durationMinutes: null }
      : { ...w, startsAt: null, endsAt: null, weekdays: [...(w.weekdays ?? [])].sort((a, b) => a - b) },
  );

export type WindowInput = z.infer<typeof windowSchema>;
/** What the console's window form sends on create and change: every field, the other kind's as null. */
export type WindowFields = Required<z.input<typeof windowSchema>>;

/** PATCH: any of the fields; the merged window is checked again as a whole. */
export const windowChangesSchema = z
  .object({
    name: z.unknown(),
    scope: z.unknown(),
    kind: z.unknown(),
    startsAt: z.unknown(),
    endsAt: z.unknown(),
    weekdays: z.unknown(),
    startTime: z.unknown(),
    durationMinutes: z.unknown(),
  })
  .partial()
  .strict();

export const listQuerySchema = z.object({
  customer: z.coerce
    .number({ error: 'must be an id' })
    .int('must be an id')
    .positive('must be an id')
    .max(2_147_483_647, 'must be an id')
    .optional(),
});
