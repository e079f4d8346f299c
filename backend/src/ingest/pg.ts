/**
 * The two statements of the hot path (system lookup, group commit) go to
 * PostgreSQL as named prepared statements (lib/prepared-transaction.ts): no parse
 * and plan per request, and their arrays are sent as ready-made array literals,
 * which is several times cheaper than node-postgres escaping each element.
 */

/** `{1,2.5,NULL}`: numbers are finite (validated), so String() is a valid float8/int literal. */
export function numberArray(values: readonly (number | null)[]): string {
  let out = '{';
  for (let i = 0; i < values.length; i++) {
    if (i > 0) out += ',';
    const value = values[i];
    out += value === null || value === undefined ? 'NULL' : String(value);
  }
  return `${out}}`;
}

const FLOAT8_OID = 701;

/**
 * A float8[] in PostgreSQL's binary form (a Buffer parameter goes as binary): the values' bits as
 * they are, no decimal text made here nor parsed there. Finite numbers only (validated); never null.
 */
export function float8ArrayBinary(values: readonly number[]): Buffer {
  const out = Buffer.allocUnsafe(20 + values.length * 12);
  const view = new DataView(out.buffer, out.byteOffset, out.length);
  view.setInt32(0, 1); // dimensions
  view.setInt32(4, 0); // no nulls
  view.setInt32(8, FLOAT8_OID);
  view.setInt32(12, values.length);
  view.setInt32(16, 1); // lower bound
  for (let i = 0, at = 20; i < values.length; i++, at += 12) {
    view.setInt32(at, 8);
    view.setFloat64(at + 4, values[i] as number);
  }
  return out;
}

/** `{t,f}`. */
export function boolArray(values: readonly boolean[]): string {
  let out = '{';
  for (let i = 0; i < values.length; i++) out += i > 0 ? (values[i] ? ',t' : ',f') : values[i] ? 't' : 'f';
  return `${out}}`;
}

const NEEDS_ESCAPE = /["\\]/;

/** `{"a","b \"c\"",NULL}`: every element quoted, so no value can read as NULL or break the list. */
export function textArray(values: readonly (string | null)[]): string {
  let out = '{';
  for (let i = 0; i < values.length; i++) {
    if (i > 0) out += ',';
    const value = values[i];
    if (value === null || value === undefined) out += 'NULL';
    else out += `"${NEEDS_ESCAPE.test(value) ? value.replace(/["\\]/g, '\\$&') : value}"`;
  }
  return `${out}}`;
}

/** Knex's `?` placeholders as PostgreSQL's `$1`, `$2`, … (the SQL holds no other `?`). */
export function numbered(sql: string): string {
  let index = 0;
  return sql.replace(/\?/g, () => `$${++index}`);
}
