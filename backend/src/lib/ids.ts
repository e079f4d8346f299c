import { z } from 'zod';
import { NotFound } from './errors.js';

/** The largest `integer` (int4) id; a larger value in a query is a database error, not "not found". */
export const MAX_INT_ID = 2_147_483_647;

/** A path id; one that names no row (not a number, or past the column's range: `max`) is a 404. */
export function idOf(raw: string | undefined, what: string, max = MAX_INT_ID): number {
  const parsed = z.coerce.number().int().positive().max(max).safeParse(raw);
  if (!parsed.success) throw new NotFound(`No such ${what}`);
  return parsed.data;
}
