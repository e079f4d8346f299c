import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { duplicateKey, duplicateKeyIn } from './duplicate-keys.js';

/** A JSON text as a tree: keys drawn from a few names (so they repeat), blanks anywhere JSON allows. */
type Node = { leaf: string } | { array: Node[] } | { object: [string, Node][] };

const key = fc.constantFrom('"a"', '"\\u0061"', '"b"', '"x:y"', '"q\\""', '"c\\\\"');
const leaf = fc.constantFrom('1', '-2.5e3', 'true', 'null', '"s"', '"t:\\":"', '"2026-11-28T10:00:00Z"', '":"');
const { node } = fc.letrec<{ node: Node }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leaf.map((text) => ({ leaf: text })),
    fc.array(tie('node'), { maxLength: 3 }).map((array) => ({ array })),
    fc.array(fc.tuple(key, tie('node')), { maxLength: 4 }).map((object) => ({ object })),
  ),
}));

function write(tree: Node, blank: string): string {
  if ('leaf' in tree) return tree.leaf;
  if ('array' in tree) return `[${blank}${tree.array.map((n) => write(n, blank)).join(`${blank},${blank}`)}${blank}]`;
  const members = tree.object.map(([name, value]) => `${name}${blank}:${blank}${write(value, blank)}`);
  return `{${blank}${members.join(`${blank},${blank}`)}${blank}}`;
}

describe('duplicate keys in a JSON body', () => {
  it('the quick count never lets a duplicate through: it agrees with the exact scan on every text', () => {
    let duplicates = 0;
    fc.assert(
      fc.property(node, fc.constantFrom('', ' ', '\n\t', '\r\n  '), (tree, blank) => {
        const text = write({ object: [['"top"', tree]] }, blank);
        const exact = duplicateKey(text);
        assert.equal(duplicateKeyIn(text, JSON.parse(text)), exact, text);
        if (exact !== null) duplicates += 1;
      }),
      { numRuns: 3000 },
    );
    assert.ok(duplicates > 300, `${duplicates} texts with a duplicate`);
  });

  it('names the path of the first duplicate, escapes decoded', () => {
    const text = '{"reports":[{"metrics":[{"name":"a","value":1,"v\\u0061lue":2}]}]}';
    assert.equal(duplicateKeyIn(text, JSON.parse(text)), 'reports.0.metrics.0.value');
    const spaced = '{ "a" :\n1 , "b"\t: { "a" : 2 } }';
    assert.equal(duplicateKeyIn(spaced, JSON.parse(spaced)), null);
  });
});
