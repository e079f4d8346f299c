/**
 * Settings edited at runtime (ADMIN): SMTP (/api/settings/smtp), forecasts (/api/settings/forecasts), alert retention
 * (/api/settings/alerts) and the storage panel (/api/storage) — docs/api.md "Settings". The SMTP
 * password is write-only.
 */
import { z } from 'zod';
import { instant } from './common.js';

// --- SMTP: the PUT body, the test send, the answer ---

// No whitespace or control characters: a host name or an IP literal, nothing to inject into SMTP.
const HOST = /^[^\s\p{Cc}]+$/u;
// The sender name goes into a mail header: line breaks there would let it add headers.
const NO_CONTROL = /^[^\p{Cc}]*$/u;
const PORT = 'must be a whole number from 1 to 65535';

export const smtpSettingsSchema = z
  .object({
    enabled: z.boolean({ error: 'must be true or false' }),
    host: z
      .string({ error: 'must be a string' })
      .trim()
      .max(253, 'is too long')
      .refine((host) => host === '' || HOST.test(host), 'must not contain spaces or control characters'),
    port: z.number({ error: PORT }).int(PORT).min(1, PORT).max(65535, PORT),
    encryption: z.enum(['tls', 'starttls', 'none'], { error: 'must be "tls", "starttls" or "none"' }),
    user: z
      .string({ error: 'must be a string' })
      .max(320, 'is too long')
      .regex(NO_CONTROL, 'must not contain control characters')
      .default(''),
    /** Absent: keep the stored one; '': remove it; anything else: replace it. */
    password: z.string({ error: 'must be a string' }).max(1024, 'is too long').optional(),
    fromAddress: z.string({ error: 'must be a string' }).trim().max(320, 'is too long'),
    fromName: z
      .string({ error: 'must be a string' })
      .trim()
      .max(200, 'is too long')
      .regex(NO_CONTROL, 'must not contain control characters')
      .default(''),
  })
  .superRefine((value, ctx) => {
    // A switched-off block may stay half filled in; one that sends mail must be complete.
    if (!value.enabled) return;
    if (value.host === '') ctx.addIssue({ code: 'custom', path: ['host'], message: 'is required to enable SMTP' });
    if (!z.email().safeParse(value.fromAddress).success) {
      ctx.addIssue({ code: 'custom', path: ['fromAddress'], message: 'must be an e-mail address' });
    }
  });

export type SmtpSettingsInput = z.infer<typeof smtpSettingsSchema>;
/** The PUT body as the console sends it: `user` and `fromName` may be left out. */
export type SmtpUpdate = z.input<typeof smtpSettingsSchema>;

export const smtpTestSchema = z.object({
  to: z.email({ error: 'must be an e-mail address' }).max(320, 'is too long').optional(),
});

/** What the SMTP block shows: everything but the password, which is only said to be set or not. */
export const smtpSettings = z
  .object({
    enabled: z.boolean(),
    host: z.string(),
    port: z.number().int().min(1).max(65535),
    encryption: z.enum(['tls', 'starttls', 'none']),
    user: z.string(),
    passwordSet: z.boolean(),
    fromAddress: z.string(),
    fromName: z.string(),
  })
  .meta({ id: 'SmtpSettings' });
export type SmtpSettings = z.infer<typeof smtpSettings>;

export const smtpTestSent = z.object({ sent: z.literal(true) }).meta({ id: 'SmtpTestSent' });
export type SmtpTestSent = z.infer<typeof smtpTestSent>;

const DAYS = 'must be a whole number of days from 0 (keep) to 3650';
/** `retentionDays` 0..3650; 0 keeps resolved alerts. */
export const alertRetentionBody = z
  .object({ retentionDays: z.number({ error: DAYS }).int(DAYS).min(0, DAYS).max(3650, DAYS) })
  .strict()
  .meta({ id: 'AlertRetentionChange', example: { retentionDays: 90 } });

export const alertRetention = z
  .object({ retentionDays: z.number().int().min(0).max(3650) })
  .meta({ id: 'AlertRetention' });
export type AlertRetention = z.infer<typeof alertRetention>;

const HOURS = 'must be a whole number of hours from 6 to 720';
const SHARE = 'must be a share from 0.1 to 1';
/** Forecast rules: the window of hourly points a trend is fitted over, and the share of it that must hold data. */
export const forecastSettingsBody = z
  .object({
    windowHours: z.number({ error: HOURS }).int(HOURS).min(6, HOURS).max(720, HOURS),
    minShare: z.number({ error: SHARE }).min(0.1, SHARE).max(1, SHARE),
  })
  .strict()
  .meta({ id: 'ForecastSettingsChange', example: { windowHours: 24, minShare: 0.75 } });

export const forecastSettings = z
  .object({ windowHours: z.number().int().min(6).max(720), minShare: z.number().min(0.1).max(1) })
  .meta({ id: 'ForecastSettings' });
export type ForecastSettings = z.infer<typeof forecastSettings>;
/** The settings until an administrator changes them: the last day, 18 of its 24 hours. */
export const FORECAST_DEFAULTS: ForecastSettings = { windowHours: 24, minShare: 0.75 };

const bytes = z.number().int().min(0);

/** One TimescaleDB policy job (compression, retention, rollups) and how its runs went. */
export const storageJob = z
  .object({
    id: z.number().int(),
    name: z.string(),
    relation: z.string().nullable(),
    scheduleSeconds: z.number(),
    /** failing: the last run failed; late: no success within twice the schedule; never: not run yet, not overdue. */
    state: z.enum(['ok', 'failing', 'late', 'never']),
    lastRunStatus: z.string().nullable(),
    lastSuccessAt: instant.nullable(),
    nextStartAt: instant.nullable(),
    /** For administrators only. */
    lastError: z.string().nullable(),
  })
  .meta({ id: 'StorageJob' });
export type StorageJob = z.infer<typeof storageJob>;

export const storageReport = z
  .object({
    /** Whether the TimescaleDB extension is installed (without it: plain tables, no jobs). */
    timescale: z.boolean(),
    databaseBytes: bytes,
    /** `metrics` with its indexes (and its chunks and their compressed data on TimescaleDB). */
    metricsBytes: bytes,
    chunks: z.number().int().min(0),
    compressedChunks: z.number().int().min(0),
    /** Before and after compression, over the compressed chunks; null while none is compressed. */
    compression: z.object({ beforeBytes: bytes, afterBytes: bytes }).nullable(),
    jobs: z.array(storageJob),
  })
  .meta({ id: 'StorageReport' });
export type StorageReport = z.infer<typeof storageReport>;
