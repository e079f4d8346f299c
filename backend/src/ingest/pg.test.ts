import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestDatabase, type TestDatabase } from '../testing/database.js';
import { preparedQuery } from '../lib/prepared-transaction.js';
import { boolArray, float8ArrayBinary, numberArray, numbered, textArray } from './pg.js';

describe('array literals of the prepared statements', () => {
  let db: TestDatabase;
  before(async () => {
    db = await createTestDatabase();
  });
  after(() => db.drop());

  it('round-trips any printable text, empty strings, the word NULL and real nulls', async () => {
    const texts = [
      '',
      'NULL',
      'null',
      '/var',
      'a,b',
      '{x}',
      'quote " inside',
      'back\\slash',
      '\\"',
      ' spaced ',
      'é ünï 💾',
      null,
    ];
    const [row] = await preparedQuery(db.knex, 'test_text_array', 'SELECT $1::text[] AS v', [textArray(texts)]);
    assert.deepEqual(row?.['v'], texts);
  });

  it('round-trips numbers, including exponents and negative zero, and nulls', async () => {
    const numbers = [0, -0, 1, -1.5, 1e21, 1.7976931348623157e308, 5e-324, 0.1 + 0.2, 1763718000123, null];
    const [row] = await preparedQuery(db.knex, 'test_number_array', 'SELECT $1::float8[] AS v', [numberArray(numbers)]);
    assert.deepEqual(
      row?.['v'],
      numbers.map((n) => (n === null ? null : n === 0 ? 0 : n)),
    );
  });

  it('round-trips numbers sent as a binary float8[], bit for bit, also an empty list and a slice cast to real', async () => {
    const numbers = [0, -0, 1, -1.5, 1e21, 1.7976931348623157e308, 5e-324, 0.1 + 0.2, 1763718000123, 31_536_123, 12.3];
    const [row] = await preparedQuery(
      db.knex,
      'test_float8_binary',
      'SELECT $1::float8[] AS v, $2::float8[] AS e, ($1::float8[])[10:11]::real[] AS r, (($1::float8[])[2])::text AS z',
      [float8ArrayBinary(numbers), float8ArrayBinary([])],
    );
    assert.deepEqual(row?.['v'], numbers);
    assert.ok(Object.is((row?.['v'] as number[])[1], -0), 'negative zero kept');
    assert.deepEqual(row?.['e'], []);
    assert.deepEqual(row?.['r'], [31_536_124, 12.3], 'as the text form gave: real keeps 7 digits');
    assert.equal(row?.['z'], '-0');
    const [text] = await preparedQuery(db.knex, 'test_float8_text_real', 'SELECT ($1::float8[])[10:11]::real[] AS r', [
      numberArray(numbers),
    ]);
    assert.deepEqual(text?.['r'], row?.['r'], 'the same real values as the text literal gives');
  });

  it('round-trips booleans, also an empty list', async () => {
    const flags = [true, false, false, true];
    const [row] = await preparedQuery(db.knex, 'test_bool_array', 'SELECT $1::bool[] AS v, $2::bool[] AS e', [
      boolArray(flags),
      boolArray([]),
    ]);
    assert.deepEqual([row?.['v'], row?.['e']], [flags, []]);
  });

  it('numbers the placeholders', () => {
    assert.equal(numbered('SELECT ?, ?::int[], ?'), 'SELECT $1, $2::int[], $3');
  });
});
