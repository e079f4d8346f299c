import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Invalid } from '../lib/errors.js';
import { duplicateKey as findDuplicateKey } from '../http/duplicate-keys.js';
import { parseJsonBody } from './body.js';

describe('findDuplicateKey', () => {
  const cases: [string, string | null][] = [
    ['{"a":1,"b":2}', null],
    ['{"a":1,"a":2}', 'a'],
    ['{"a":{"x":1},"b":{"x":2}}', null],
    [
      '{"reports":[{"ts":"t","metrics":[{"name":"n","value":1},{"name":"n","value":1,"value":2}]}]}',
      'reports.0.metrics.1.value',
    ],
    ['{"s":"a,\\"b\\":1","b":1}', null],
    ['{"\\u0061":1,"a":2}', 'a'],
    ['{"k":["a","a"],"l":[{"a":1},{"a":1}]}', null],
    ['[{"a":1},{"b":1,"b":1}]', '1.b'],
    ['{"a\\\\":1,"b":2}', null],
    ['{}', null],
  ];
  for (const [text, expected] of cases) {
    it(`${text} → ${expected}`, () => {
      JSON.parse(text); // the scanner only ever sees valid JSON
      assert.equal(findDuplicateKey(text), expected);
    });
  }
});

describe('parseJsonBody', () => {
  it('refuses invalid UTF-8, invalid JSON and duplicate keys with a 400 naming the field', () => {
    for (const [raw, field] of [
      [Buffer.from([0x7b, 0xff, 0x7d]), 'body'],
      [Buffer.from('{"value": NaN}'), 'body'],
      [Buffer.from('{"a":1,"a":1}'), 'a'],
    ] as const) {
      assert.throws(
        () => parseJsonBody(raw),
        (error) => error instanceof Invalid && error.details?.['field'] === field,
      );
    }
    assert.deepEqual(parseJsonBody(Buffer.from('{"a":[1,2]}')), { a: [1, 2] });
  });

  it('finds duplicates however the body is spaced or nested, and accepts strings that look like keys', () => {
    for (const [text, field] of [
      ['{"a":1, "a" :2}', 'a'],
      ['{"a" \n:1,"a"\t:2}', 'a'],
      ['{"r":[{"m":{"x":1}},{"m":{"x":1,"x":2}}]}', 'r.1.m.x'],
      ['{"__proto__":1,"__proto__":2}', '__proto__'],
    ] as const) {
      assert.throws(
        () => parseJsonBody(Buffer.from(text)),
        (error) => error instanceof Invalid && error.details?.['field'] === field,
        text,
      );
    }
    assert.deepEqual(parseJsonBody(Buffer.from('{"s":"x\\":y","t":"\\" :"}')), { s: 'x":y', t: '" :' });
    const deep = `${'['.repeat(5000)}{"a":1}${']'.repeat(5000)}`;
    assert.ok(parseJsonBody(Buffer.from(deep)));
  });
});
