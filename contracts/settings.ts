/**
 * Settings edited at runtime (ADMIN): SMTP (/api/settings/smtp), alert retention
 * (/api/settings/alerts) and the storage panel (/api/storage) — docs/api.md "Settings". The SMTP
 * request bodies are backend/src/settings/schema.ts; the SMTP password is write-only.
 */
import { z } from 'zod';
import { instant } from './common.js';

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

const DAYS = 'must be a whole number of days from 0 (keep) to 3650';
/** `retentionDays` 0..3650; 0 keeps resolved alerts. */
export const alertRetentionBody = z
  .object({ retentionDays: z.number({ error: DAYS }).int(DAYS).min(0, DAYS).max(3650, DAYS) })
  .strict()
  .meta({ id: 'AlertRetentionChange', example: { retentionDays: 90 } });

export const alertRetention = z
  .object({ retentionDays: z.number().int().min(0).max(3650) })
  .meta({ id: 'AlertRetention' });

const bytes = z.number().int().min(0);

/** One TimescaleDB policy job (compression, retention, rollups) and how its runs went. */
export const storageJob = z
  .object({
    id: z.number().int(),
    name: z.string(),
    relation: z.string().nullable(),
    scheduleSeconds: z.number(),
    /** failing: the last run failed; late: no success within twice the schedule. */
    state: z.enum(['ok', 'failing', 'late']),
    lastRunStatus: z.string().nullable(),
    lastSuccessAt: instant.nullable(),
    nextStartAt: instant.nullable(),
    /** For administrators only. */
    lastError: z.string().nullable(),
  })
  .meta({ id: 'StorageJob' });

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
