import { NotFound } from './errors.js';

/** The largest `integer` (int4) id; a larger value in a query is a database error, not "not found". */
export const MAX_INT_ID = 2_147_483_647;

/**
 * An id as the API writes it: plain decimal, no sign, no leading zero, no blank, no exponent or
 * hex (`0x1`, `1e0`, `+1`, ` 1` and `01` name no row, though a number parser reads them all as 1).
 * At most 16 digits: past Number.MAX_SAFE_INTEGER no id exists.
 */
const PLAIN_DECIMAL = /^[1-9][0-9]{0,15}$/;

/** A path id; one that names no row (not plain decimal, or past the column's range: `max`) is a 404. */
export function idOf(raw: string | undefined, what: string, max = MAX_INT_ID): number {
  if (raw === undefined || !PLAIN_DECIMAL.test(raw) || Number(raw) > max) throw new NotFound(`No such ${what}`);
  return Number(raw);
}
