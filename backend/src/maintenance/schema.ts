/**
 * Request bodies of /api/maintenance-windows. A window is one-off
 * ([startsAt, endsAt) in absolute time) or weekly (weekdays 0 = Sunday … 6,
 * local start time HH:MM and a duration, in the customer's time zone).
 */
import { z } from 'zod';
import { scopeSchema } from '../scopes/schema.js';

const HH_MM = /^([01][0-9]|2[0-3]):[0-5][0-9]$/;
export const MAX_DURATION_MINUTES = 10_080; // one week: a longer weekly window would overlap itself

const instant = z.iso.datetime({ offset: true, error: 'must be an ISO 8601 date-time with an offset' });

export const windowSchema = z
  .object({
    name: z.string({ error: 'must be a string' }).trim().min(1, 'is required').max(200, 'is too long'),
    scope: scopeSchema.unwrap(),
    kind: z.enum(['once', 'weekly'], { error: 'must be "once" or "weekly"' }),
    startsAt: instant.nullable().default(null),
    endsAt: instant.nullable().default(null),
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
