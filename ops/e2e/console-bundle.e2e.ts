/**
 * The built console carries no test support: no text of a spec helper (`testing.ts`, `*-testing.ts`)
 * that production code does not also hold turns up in the bundle `ng build` wrote. Needs
 * `ng build` first, like the other end-to-end files.
 */
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import ts from 'typescript';
import { REPO_ROOT } from '../deploy/support.js';

const APP = path.join(REPO_ROOT, 'frontend/src/app');
const CONTRACTS = path.join(REPO_ROOT, 'contracts');
const BUNDLE = path.join(REPO_ROOT, 'dist/frontend/browser');
const TEST_SUPPORT = /(^|\/)testing\.ts$|-testing\.ts$/;

async function filesUnder(dir: string, ending: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries.filter((e) => e.isFile() && e.name.endsWith(ending)).map((e) => path.join(e.parentPath, e.name));
}

/**
 * The string literals of a source that read as words of its own (a space, 8 characters or more):
 * selectors, keys and URLs that a library or a contract also holds are no sign of test support.
 */
function literals(file: string, source: string): string[] {
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isStringLiteralLike(node) && node.text.length >= 8 && node.text.includes(' ')) found.push(node.text);
    ts.forEachChild(node, visit);
  };
  visit(ts.createSourceFile(file, source, ts.ScriptTarget.Latest));
  return found;
}

test('the production bundle holds no text of the console test support', async () => {
  const sources = (await filesUnder(APP, '.ts')).filter((f) => !f.endsWith('.spec.ts'));
  const support = sources.filter((f) => TEST_SUPPORT.test(f));
  assert.ok(support.length >= 5, `found the test support files (${support.length})`);
  const productionFiles = [...sources.filter((f) => !TEST_SUPPORT.test(f)), ...(await filesUnder(CONTRACTS, '.ts'))];
  const production = await Promise.all(productionFiles.map((f) => readFile(f, 'utf8')));
  const productionText = production.join('\n');
  const own = new Set<string>();
  for (const file of support) {
    for (const text of literals(file, await readFile(file, 'utf8'))) if (!productionText.includes(text)) own.add(text);
  }
  assert.ok(own.size >= 5, `test support has text of its own to look for (${own.size})`);

  const bundle = (await Promise.all((await filesUnder(BUNDLE, '.js')).map((f) => readFile(f, 'utf8')))).join('\n');
  // the search itself works: text that only production code holds is found
  assert.ok(bundle.includes('Showing the last answer.'), 'the bundle is the built console');
  const leaked = [...own].filter((text) => bundle.includes(text));
  assert.deepEqual(leaked, [], 'text of test support found in the production bundle');
});
