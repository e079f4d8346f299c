/**
 * The import rules of .dependency-cruiser.cjs refuse what docs/architecture.md says they refuse: each
 * case lays out a tiny tree with the repository's folder names and runs the real dependency-cruiser
 * with the real configuration over it.
 */
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { ESLint } from 'eslint';
import { REPO_ROOT, runTool } from '../deploy/support.js';

const CONFIG = path.join(REPO_ROOT, '.dependency-cruiser.cjs');
const DEPCRUISE = path.join(REPO_ROOT, 'node_modules/.bin/depcruise');
const roots: string[] = [];

/** Writes `files` (path → source) into a fresh tree and cruises it; returns the exit code and the report. */
async function cruise(files: Record<string, string>): Promise<{ code: number; report: string }> {
  const root = await mkdtemp(path.join(tmpdir(), 'argus-imports-'));
  roots.push(root);
  await writeFile(path.join(root, 'tsconfig.json'), JSON.stringify({ compilerOptions: { module: 'NodeNext' } }));
  for (const [file, source] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(root, file)), { recursive: true });
    await writeFile(path.join(root, file), source);
  }
  const folders = ['backend', 'db', 'frontend', 'ops', 'probes', 'agent'].filter((top) =>
    Object.keys(files).some((f) => f.startsWith(top)),
  );
  const result = await runTool(DEPCRUISE, [...folders, '--config', CONFIG, '--output-type', 'err'], {
    cwd: root,
    timeoutMs: 60_000,
  });
  return { code: result.code ?? -1, report: result.stdout + result.stderr };
}

after(async () => {
  for (const root of roots) await rm(root, { recursive: true, force: true });
});

describe('npm run lint refuses an import that runs back up', () => {
  const cases: { name: string; rule: string; files: Record<string, string> }[] = [
    {
      name: 'an entity imports a feature on a higher floor (users → auth)',
      rule: 'backend-floors',
      files: {
        'backend/src/users/service.ts': "import { x } from '../auth/login-service.js';\nexport const y = x;\n",
        'backend/src/auth/login-service.ts': 'export const x = 1;\n',
      },
    },
    {
      name: 'two folders on the same floor import each other (customers → systems)',
      rule: 'backend-floors',
      files: {
        'backend/src/customers/service.ts': "import { x } from '../systems/service.js';\nexport const y = x;\n",
        'backend/src/systems/service.ts': 'export const x = 1;\n',
      },
    },
    {
      name: 'lib imports http',
      rule: 'lib-imports-no-feature',
      files: {
        'backend/src/lib/validate.ts': "import { x } from '../http/errors.js';\nexport const y = x;\n",
        'backend/src/http/errors.ts': 'export const x = 1;\n',
      },
    },
    {
      name: 'db imports the backend configuration',
      rule: 'db-imports-nothing-from-backend',
      files: {
        'db/migrate.ts': "import { x } from '../backend/src/config.js';\nexport const y = x;\n",
        'backend/src/config.ts': 'export const x = 1;\n',
      },
    },
    {
      name: 'a feature imports the composition root',
      rule: 'composition-root-only-in-main-and-tests',
      files: {
        'backend/src/live/hub.ts': "import { x } from '../app.js';\nexport const y = x;\n",
        'backend/src/app.ts': 'export const x = 1;\n',
      },
    },
    {
      name: 'production code imports test support',
      rule: 'production-imports-no-test-support',
      files: {
        'backend/src/ingest/routes.ts': "import { x } from '../testing/database.js';\nexport const y = x;\n",
        'backend/src/testing/database.ts': 'export const x = 1;\n',
      },
    },
    {
      name: 'a console feature imports another feature',
      rule: 'console-feature-imports-no-other-feature',
      files: {
        'frontend/src/app/features/alerts/alerts-page.ts':
          "import { x } from '../systems/systems-page';\nexport const y = x;\n",
        'frontend/src/app/features/systems/systems-page.ts': 'export const x = 1;\n',
      },
    },
    {
      name: 'a shared building block imports a feature',
      rule: 'console-shared-imports-no-feature',
      files: {
        'frontend/src/app/shared/alerts/alerts-api.ts':
          "import { x } from '../../features/rules/rules-page';\nexport const y = x;\n",
        'frontend/src/app/features/rules/rules-page.ts': 'export const x = 1;\n',
      },
    },
    {
      name: 'the shared probes import the server (probes → its outbound policy)',
      rule: 'probes-import-only-contracts',
      files: {
        'probes/probe.ts': "import { x } from '../backend/src/lib/outbound-policy.js';\nexport const y = x;\n",
        'backend/src/lib/outbound-policy.ts': 'export const x = 1;\n',
      },
    },
    {
      name: 'the agent imports the server (agent → a backend probe)',
      rule: 'agent-imports-only-contracts',
      files: {
        'agent/src/checks.ts': "import { x } from '../../backend/src/checks/network.js';\nexport const y = x;\n",
        'backend/src/checks/network.ts': 'export const x = 1;\n',
      },
    },
    {
      name: 'the agent imports a contract schema as a value (zod into the executable)',
      rule: 'agent-takes-contract-types-only',
      files: {
        'agent/src/journal.ts':
          "import { agentReport } from '../../contracts/agent-report.js';\nexport const y = agentReport;\n",
        'contracts/agent-report.ts': 'export const agentReport = 1;\n',
      },
    },
    {
      name: 'a probe the agent bundles imports a contract value',
      rule: 'agent-takes-contract-types-only',
      files: {
        'probes/probe.ts': "import { checkSettings } from '../contracts/checks.js';\nexport const y = checkSettings;\n",
        'contracts/checks.ts': 'export const checkSettings = 1;\n',
      },
    },
    {
      name: "the agent's limits import a schema",
      rule: 'agent-limits-stay-plain',
      files: {
        'agent/src/journal.ts':
          "import { MAX } from '../../contracts/agent-report-limits.js';\nexport const y = MAX;\n",
        'contracts/agent-report-limits.ts': "import { z } from './zod-helpers.js';\nexport const MAX = z;\n",
        'contracts/zod-helpers.ts': 'export const z = 1;\n',
      },
    },
    {
      name: 'two files import each other',
      rule: 'no-circular',
      files: {
        'backend/src/rules/a.ts': "import { b } from './b.js';\nexport const a = () => b;\n",
        'backend/src/rules/b.ts': "import { a } from './a.js';\nexport const b = () => a;\n",
      },
    },
  ];

  for (const { name, rule, files } of cases) {
    test(`${name}: ${rule}`, async () => {
      const { code, report } = await cruise(files);
      assert.notEqual(code, 0, report);
      assert.match(report, new RegExp(`error ${rule}:`), report);
    });
  }

  test('and lets the same files through when they point down', async () => {
    const { code, report } = await cruise({
      'backend/src/auth/login-service.ts': "import { x } from '../users/service.js';\nexport const y = x;\n",
      'backend/src/users/service.ts': "import { z } from '../lib/errors.js';\nexport const x = z;\n",
      'backend/src/lib/errors.ts': "import { w } from '../../../db/environment.js';\nexport const z = w;\n",
      'db/environment.ts': 'export const w = 1;\n',
      'frontend/src/app/features/alerts/alerts-page.ts':
        "import { x } from '../../shared/alerts/alerts-api';\nexport const y = x;\n",
      'frontend/src/app/shared/alerts/alerts-api.ts': "import { z } from '../../core/auth';\nexport const x = z;\n",
      'frontend/src/app/core/auth.ts': 'export const z = 1;\n',
      'agent/src/checks.ts':
        "import { p } from '../../probes/probe.js';\nimport type { C } from '../../contracts/checks.js';\n" +
        "import { MAX } from '../../contracts/agent-report-limits.js';\n" +
        "export const q = async (c: C) => [p, c, MAX, (await import('../../contracts/checks.js')).c];\n",
      'probes/probe.ts': "import type { C } from '../contracts/checks.js';\nexport const p = (c: C) => c;\n",
      'contracts/checks.ts': 'export const c = 1;\nexport type C = number;\n',
      'contracts/agent-report-limits.ts': "import type { C } from './checks.js';\nexport const MAX: C = 1;\n",
    });
    assert.equal(code, 0, report);
  });
});

describe('npm run lint keeps zod values out of the agent', () => {
  const eslint = new ESLint({ cwd: REPO_ROOT });
  const fired = async (file: string, source: string): Promise<string[]> => {
    const [result] = await eslint.lintText(source, { filePath: path.join(REPO_ROOT, file) });
    assert.ok(result, `ESLint linted ${file}`);
    return result.messages.map((m) => m.ruleId ?? '');
  };

  test('a value import of zod in the agent or a probe is refused', async () => {
    const source = "import { z } from 'zod';\nexport const y = z.string();\n";
    assert.ok((await fired('agent/src/example.ts', source)).includes('@typescript-eslint/no-restricted-imports'));
    assert.ok((await fired('probes/example.ts', source)).includes('@typescript-eslint/no-restricted-imports'));
  });

  test('a type import of zod is let through, and the server keeps its zod', async () => {
    const typeOnly = "import type { z } from 'zod';\nexport type Y = z.ZodString;\n";
    assert.ok(!(await fired('agent/src/example.ts', typeOnly)).includes('@typescript-eslint/no-restricted-imports'));
    const value = "import { z } from 'zod';\nexport const y = z.string();\n";
    assert.ok(!(await fired('backend/src/lib/example.ts', value)).includes('@typescript-eslint/no-restricted-imports'));
  });
});
