/**
 * The console's lint rules refuse what docs/architecture.md says they refuse: each case lints a small
 * source with the repository's real ESLint configuration, under a path in the console, and names the
 * rule it expects to fire (and, for the exemptions, that it stays quiet).
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, test } from 'node:test';
import { ESLint } from 'eslint';
import { REPO_ROOT } from '../deploy/support.js';

const eslint = new ESLint({ cwd: REPO_ROOT });

/** The rule ids ESLint reports for `source` as if it were the file `file` (relative to the repository). */
async function rulesFiredOn(file: string, source: string): Promise<string[]> {
  const [result] = await eslint.lintText(source, { filePath: path.join(REPO_ROOT, file) });
  assert.ok(result, `ESLint linted ${file}`);
  const fatal = result.messages.filter((m) => m.fatal);
  assert.deepEqual(fatal, [], `${file} parses`);
  return result.messages.map((m) => m.ruleId ?? '');
}

/** A function of `lines` statements, each on a line of its own. */
function longFunction(lines: number): string {
  const body = Array.from({ length: lines }, (_, i) => `  total += ${i};`).join('\n');
  return `export function long(): number {\n  let total = 0;\n${body}\n  return total;\n}\n`;
}

const component = (
  selector: string,
  template: string,
) => `import { ChangeDetectionStrategy, Component } from '@angular/core';

@Component({
  selector: '${selector}',
  changeDetection: ChangeDetectionStrategy.OnPush,
  template: \`${template}\`,
})
export class Example {}
`;

describe('npm run lint holds console code to the Angular and size rules', () => {
  test('a production function over 80 lines is refused; a spec and test support may be longer', async () => {
    assert.ok(
      (await rulesFiredOn('frontend/src/app/ui/example.ts', longFunction(90))).includes('max-lines-per-function'),
    );
    assert.ok(
      !(await rulesFiredOn('frontend/src/app/ui/example.ts', longFunction(60))).includes('max-lines-per-function'),
    );
    assert.ok(
      !(await rulesFiredOn('frontend/src/app/ui/example.spec.ts', longFunction(90))).includes('max-lines-per-function'),
    );
    assert.ok(
      !(await rulesFiredOn('frontend/src/app/core/example-testing.ts', longFunction(90))).includes(
        'max-lines-per-function',
      ),
    );
  });

  test('another folder of the console is imported through @console/, never ../', async () => {
    const fired = (source: string) => rulesFiredOn('frontend/src/app/features/example/example.ts', source);
    assert.ok(
      (await fired("import { Icon } from '../../ui/icon';\nexport const x = Icon;\n")).includes(
        'no-restricted-imports',
      ),
    );
    assert.ok(
      !(await fired("import { Icon } from '@console/ui/icon';\nexport const x = Icon;\n")).includes(
        'no-restricted-imports',
      ),
    );
    assert.ok(
      !(await fired("import { Icon } from './icon';\nexport const x = Icon;\n")).includes('no-restricted-imports'),
    );
  });

  test("a component's selector must be an argus- element", async () => {
    assert.ok(
      (await rulesFiredOn('frontend/src/app/ui/example.ts', component('app-example', '<p>Hi</p>'))).includes(
        '@angular-eslint/component-selector',
      ),
    );
    assert.deepEqual(await rulesFiredOn('frontend/src/app/ui/example.ts', component('argus-example', '<p>Hi</p>')), []);
  });

  test('an aliased input is refused', async () => {
    const source = `import { Directive, input } from '@angular/core';

@Directive({ selector: '[argusExample]' })
export class Example {
  readonly value = input<string>('', { alias: 'other' });
}
`;
    assert.ok(
      (await rulesFiredOn('frontend/src/app/ui/example.ts', source)).includes('@angular-eslint/no-input-rename'),
    );
  });

  test('inline templates are held to the template accessibility rules', async () => {
    const fired = await rulesFiredOn(
      'frontend/src/app/ui/example.ts',
      component('argus-example', '<img src="a.png" /><div (click)="go()">Go</div>'),
    );
    assert.ok(fired.includes('@angular-eslint/template/alt-text'), fired.join(', '));
    assert.ok(fired.includes('@angular-eslint/template/click-events-have-key-events'), fired.join(', '));
    assert.ok(fired.includes('@angular-eslint/template/interactive-supports-focus'), fired.join(', '));
  });

  test('external templates are held to the template rules', async () => {
    const fired = await rulesFiredOn(
      'frontend/src/app/ui/example.html',
      '<label>Name</label><input /><input ([value])="name" />',
    );
    assert.ok(fired.includes('@angular-eslint/template/label-has-associated-control'), fired.join(', '));
    assert.ok(fired.includes('@angular-eslint/template/banana-in-box'), fired.join(', '));
    assert.deepEqual(
      await rulesFiredOn('frontend/src/app/ui/example.html', '<label for="n">Name</label><input id="n" />'),
      [],
    );
  });
});
