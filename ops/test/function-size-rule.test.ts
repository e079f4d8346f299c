/**
 * The project's rule `argus/own-lines-per-function` (ops/lint/own-lines-per-function.js) refuses what
 * docs/architecture.md "Size" says it refuses: each case lints a small source with the repository's
 * real ESLint configuration, under a path of the server, the agent or test support, and names the rule
 * it expects to fire (and, for what it leaves alone, that it stays quiet).
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, test } from 'node:test';
import { ESLint } from 'eslint';
import { REPO_ROOT } from '../deploy/support.js';

const RULE = 'argus/own-lines-per-function';
const eslint = new ESLint({ cwd: REPO_ROOT });

/** The messages of `RULE` ESLint reports for `source` as if it were the file `file` (relative to the repository). */
async function refusals(file: string, source: string): Promise<string[]> {
  const [result] = await eslint.lintText(source, { filePath: path.join(REPO_ROOT, file) });
  assert.ok(result, `ESLint linted ${file}`);
  assert.deepEqual(
    result.messages.filter((m) => m.fatal),
    [],
    `${file} parses`,
  );
  return result.messages.filter((m) => m.ruleId === RULE).map((m) => m.message);
}

/** `count` statements, one a line, indented by `indent`. */
const statements = (count: number, indent: string) =>
  Array.from({ length: count }, (_, i) => `${indent}total += ${i};`).join('\n');

/** A function of `lines` statements. */
const longFunction = (lines: number) =>
  `export function long(): number {\n  let total = 0;\n${statements(lines, '  ')}\n  return total;\n}\n`;

/** A factory of `methods` methods of 30 statements each, the repository shape. */
const factory = (methods: number) => {
  const method = (i: number) =>
    `    method${i}(): number {\n      let total = 0;\n${statements(30, '      ')}\n      return total;\n    },`;
  const body = Array.from({ length: methods }, (_, i) => method(i)).join('\n');
  return `export function createExampleRepo() {\n  return {\n${body}\n  };\n}\n`;
};

describe('npm run lint counts a function of the server and the agent by its own lines', () => {
  test('a production function of more than 80 lines of its own is refused, in the server and the agent', async () => {
    const [message] = await refusals('backend/src/customers/example.ts', longFunction(90));
    assert.match(message ?? '', /Function 'long' has 94 lines of its own .*at most 80/);
    assert.equal((await refusals('agent/src/example.ts', longFunction(90))).length, 1);
    assert.equal((await refusals('probes/example.ts', longFunction(90))).length, 1);
  });

  test('a function of 80 lines of its own passes, one of 81 does not', async () => {
    assert.deepEqual(await refusals('backend/src/customers/example.ts', longFunction(76)), []);
    assert.equal((await refusals('backend/src/customers/example.ts', longFunction(77))).length, 1);
  });

  test("a factory of many short methods passes: the methods' bodies are not the factory's lines", async () => {
    assert.deepEqual(await refusals('backend/src/customers/example.ts', factory(10)), []);
  });

  test('a long method inside a factory is refused by its own name, the factory not', async () => {
    const source = `export function createExampleRepo() {\n  return {\n    long(): number {\n      let total = 0;\n${statements(90, '      ')}\n      return total;\n    },\n  };\n}\n`;
    const fired = await refusals('backend/src/customers/example.ts', source);
    assert.equal(fired.length, 1, fired.join('\n'));
    assert.match(fired[0] ?? '', /Method 'long' has 94 lines of its own/);
  });

  test('what the factory does itself still counts: 90 lines of set-up before `return` is refused', async () => {
    const source = `export function createExample() {\n  let total = 0;\n${statements(90, '  ')}\n  return { read: () => total };\n}\n`;
    const fired = await refusals('backend/src/customers/example.ts', source);
    assert.equal(fired.length, 1, fired.join('\n'));
    assert.match(fired[0] ?? '', /Function 'createExample'/);
  });

  test('blank and comment-only lines are not counted', async () => {
    const body = Array.from({ length: 70 }, (_, i) => `  // step ${i}\n\n  total += ${i};`).join('\n');
    const source = `export function commented(): number {\n  let total = 0;\n${body}\n  return total;\n}\n`;
    assert.deepEqual(await refusals('backend/src/customers/example.ts', source), []);
  });

  test('tests and test support may be longer', async () => {
    assert.deepEqual(await refusals('backend/src/customers/example.test.ts', longFunction(90)), []);
    assert.deepEqual(await refusals('backend/src/testing/example.ts', longFunction(90)), []);
  });
});
