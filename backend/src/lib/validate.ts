/**
 * Validation at the edge: one zod schema per route; a failure is a 400 whose
 * message and `details.field` name the offending field.
 */
import type { z } from 'zod';
import { Invalid } from './errors.js';

export function parseInput<S extends z.ZodType>(schema: S, input: unknown): z.infer<S> {
  // an absent body or query is an empty one; a JSON `null` is a body, and not an object
  const result = schema.safeParse(input === undefined ? {} : input);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const field = issue?.path.join('.') ?? '';
  const message = issue ? `${field ? `${field}: ` : ''}${issue.message}` : 'Invalid request';
  throw new Invalid(message, field ? { field } : undefined);
}

/** `?limit=`: lives with the contracts, which describe every query. */
export { pageLimit } from '../../../contracts/common.js';
