/**
 * Validation at the edge: one zod schema per route; a failure is a 400 whose
 * message and `details.field` name the offending field.
 */
import { z } from 'zod';
import { Invalid } from './errors.js';

export function parseInput<S extends z.ZodType>(schema: S, input: unknown): z.infer<S> {
  const result = schema.safeParse(input ?? {});
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const field = issue?.path.join('.') ?? '';
  const message = issue ? `${field ? `${field}: ` : ''}${issue.message}` : 'Invalid request';
  throw new Invalid(message, field ? { field } : undefined);
}

/** `?limit=`: a page of 1 to `max` rows, `byDefault` when absent. */
export const pageLimit = (max = 500, byDefault = 100) =>
  z.coerce
    .number({ error: `must be 1 to ${max}` })
    .int(`must be 1 to ${max}`)
    .min(1, `must be 1 to ${max}`)
    .max(max, `must be 1 to ${max}`)
    .default(byDefault);
