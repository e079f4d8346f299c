/**
 * What every answer shares: ids, instants, the error body. The contracts are the JSON on the wire
 * (an instant is an ISO 8601 string, never a Date), so one schema serves the OpenAPI document, the
 * server's answer checks and the console's types. This folder imports zod and nothing else.
 */
import { z } from 'zod';

/** A database id: a positive integer. */
export const id = z.number().int().positive();

/**
 * What a name (of a customer, cluster, system, rule, channel, account, token, status page…) must
 * not hold: C0 and C1 control characters (CR and LF forge log lines, ESC rewrites a terminal) and
 * the bidi controls that reorder what a reader sees (U+202E shows "gpj.exe" as "exe.jpg").
 */
export const SAFE_NAME = /^[^\p{Cc}\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]*$/u;
export const SAFE_NAME_MESSAGE = 'must not contain control characters (line breaks, escape) or text-direction controls';

/** An instant as JSON carries it: ISO 8601 in UTC, e.g. 2026-11-25T16:00:00.000Z. */
export const instant = z.iso.datetime({ offset: true }).meta({ example: '2026-11-25T16:00:00.000Z' });

export const severity = z.enum(['INFO', 'WARNING', 'CRITICAL']);
export type Severity = z.infer<typeof severity>;

export const role = z.enum(['ADMIN', 'OPERATOR', 'VIEWER']);
export type Role = z.infer<typeof role>;

/** Every refusal: a message for people, a stable code for scripts, the offending field where there is one. */
export const errorBody = z
  .object({
    error: z.string(),
    code: z.string().optional(),
    details: z.record(z.string(), z.unknown()).optional(),
  })
  .meta({ id: 'Error', example: { error: 'name: is required', code: 'bad_request', details: { field: 'name' } } });
export type ErrorBody = z.infer<typeof errorBody>;

/** A `:id` in a path. */
export const pathId = z
  .string()
  .regex(/^[1-9][0-9]*$/)
  .meta({ description: 'A positive integer id', example: '42' });

/** `?limit=`: a page of 1 to `max` rows, `byDefault` when absent. */
export const pageLimit = (max = 500, byDefault = 100) =>
  z.coerce
    .number({ error: `must be 1 to ${max}` })
    .int(`must be 1 to ${max}`)
    .min(1, `must be 1 to ${max}`)
    .max(max, `must be 1 to ${max}`)
    .default(byDefault);
