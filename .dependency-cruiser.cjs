/**
 * The import rules of docs/architecture.md, checked by `npm run lint` (dependency-cruiser).
 * Imports point one way, down the floors below; `npm run graph` draws what the code does.
 */

/**
 * Backend floors, top to bottom. A folder imports its own files and folders on LOWER floors only: never
 * a folder on its own floor or above. (Root files count as folders of their own name.)
 */
const BACKEND_FLOORS = [
  { name: 'process entry', folders: ['main.ts'] },
  { name: 'composition root', folders: ['app.ts'] },
  { name: 'feature graph', folders: ['features.ts'] },
  { name: 'live channel', folders: ['live'] },
  { name: 'views', folders: ['overview', 'status-pages'] },
  { name: 'single sign-on', folders: ['sso'] },
  { name: 'runs and sign-in', folders: ['evaluation', 'auth', 'reports'] },
  {
    name: 'workflows',
    folders: ['rules', 'maintenance', 'notifications', 'second-factor', 'password-reset', 'settings', 'checks'],
  },
  {
    name: 'entities',
    folders: [
      'channels',
      'customers',
      'systems',
      'alerts',
      'scopes',
      'users',
      'tokens',
      'agents',
      'agent-settings',
      'ingest',
      'health',
      'audit',
      'housekeeping',
      'self-metrics',
      'search',
    ],
  },
  {
    name: 'platform',
    folders: ['http', 'bus', 'ratelimit', 'secrets', 'mail', 'config.ts', 'instance-lock.ts'],
  },
  { name: 'ground floor', folders: ['lib'] },
];

const TEST_SUPPORT = [
  '\\.test\\.ts$',
  '\\.spec\\.ts$',
  '^backend/src/testing/',
  '^ops/(test|e2e|bench|deploy|stack)/',
  '^agent/test/',
  '^frontend/src/app/testing\\.ts$',
  '-testing\\.ts$',
];

const escape = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const pathOf = (folder) => `^backend/src/${escape(folder)}${folder.endsWith('.ts') ? '$' : '/'}`;
const anyOf = (folders) => `(${folders.map(pathOf).join('|')})`;

const floorRules = BACKEND_FLOORS.flatMap((floor, index) => {
  const sameOrAbove = BACKEND_FLOORS.slice(0, index + 1).flatMap((f) => f.folders);
  return floor.folders.flatMap((folder) => {
    const forbidden = sameOrAbove.filter((f) => f !== folder);
    return forbidden.length === 0
      ? []
      : [
          {
            name: 'backend-floors',
            severity: 'error',
            comment:
              `backend/src/${folder} is on the "${floor.name}" floor: it may import only the floors below it ` +
              '(see BACKEND_FLOORS in .dependency-cruiser.cjs and docs/architecture.md). An effect that must ' +
              'travel upward is an injected function or a bus event; what two folders share moves down.',
            from: { path: pathOf(folder), pathNot: TEST_SUPPORT },
            to: { path: anyOf(forbidden) },
          },
        ];
  });
});

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'A circle of imports: nobody can tell which of these files stands below the other.',
      from: {},
      to: { circular: true },
    },
    ...floorRules,
    {
      name: 'lib-imports-no-feature',
      severity: 'error',
      comment: 'lib/ is the ground floor of the backend: it knows no feature, no HTTP and no configuration.',
      from: { path: '^backend/src/lib/', pathNot: TEST_SUPPORT },
      to: { path: '^backend/src/', pathNot: '^backend/src/lib/' },
    },
    {
      name: 'db-imports-nothing-from-backend',
      severity: 'error',
      comment: 'db/ is the lowest floor: it reads its own environment and takes a logger as an argument.',
      from: { path: '^db/', pathNot: TEST_SUPPORT },
      to: { path: '^(backend|frontend|ops)/' },
    },
    {
      name: 'contracts-import-only-zod',
      severity: 'error',
      comment:
        'contracts/ is the JSON both sides speak: zod schemas and nothing of the server, the ' +
        'console or the scripts, so the console can import its types and the server its schemas.',
      from: { path: '^contracts/' },
      to: { path: '^(agent|backend|frontend|db|ops|probes)/' },
    },
    {
      name: 'agent-imports-only-contracts',
      severity: 'error',
      comment:
        'argus-agent ships alone as a single executable: it shares the report schema with the ' +
        'server through contracts/, the network check probes through probes/, and imports nothing else of the repository.',
      from: { path: '^agent/', pathNot: TEST_SUPPORT },
      to: { path: '^(backend|frontend|db|ops)/' },
    },
    {
      name: 'agent-takes-contract-types-only',
      severity: 'error',
      comment:
        'The agent (and the probes it bundles) takes types from contracts/, never values: zod costs the executable ' +
        'megabytes of heap it does not need to build a report. Values come from the zod-free limits ' +
        '(contracts/agent-report-limits.ts); the two schemas it does run (a check list, an update offer) are loaded ' +
        'by a dynamic import, only when there is something to parse.',
      from: { path: '^(agent/src|probes)/', pathNot: TEST_SUPPORT },
      to: {
        path: '^contracts/',
        pathNot: '^contracts/agent-report-limits\\.ts$',
        dependencyTypesNot: ['type-only', 'dynamic-import'],
      },
    },
    {
      name: 'agent-limits-stay-plain',
      severity: 'error',
      comment:
        'contracts/agent-report-limits.ts is the one contract module the agent imports as a value: it imports ' +
        'types only, so zod does not come into the executable through it.',
      from: { path: '^contracts/agent-report-limits\\.ts$' },
      to: { dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'probes-import-only-contracts',
      severity: 'error',
      comment:
        'probes/ are the network check probes the server and the agent both run: Node built-ins and the ' +
        'contracts only, the way onto the network passed in by the caller (the server its address policy).',
      from: { path: '^probes/' },
      to: { path: '^(agent|backend|frontend|db|ops)/' },
    },
    {
      name: 'console-imports-contract-types-only',
      severity: 'error',
      comment:
        'The console takes types from contracts/, never values: zod stays out of the bundle (the metric catalogue and the zone arithmetic are plain code, see the next rule).',
      from: { path: '^frontend/' },
      to: {
        path: '^contracts/',
        pathNot: '^contracts/(metric-catalogue|zoned-time)\\.ts$',
        dependencyTypesNot: ['type-only'],
      },
    },
    {
      name: 'console-values-stay-plain',
      severity: 'error',
      comment:
        'The metric catalogue and the zone arithmetic are shared as values with the console: they import types only (no zod), ' +
        "besides the plain values of the checks' and the script checks' series (check-metrics.ts, script-metrics.ts, which import nothing).",
      from: { path: '^contracts/(metric-catalogue|zoned-time)\\.ts$' },
      to: { dependencyTypesNot: ['type-only'], pathNot: '^contracts/(check|script)-metrics\\.ts$' },
    },
    {
      name: 'composition-root-only-in-main-and-tests',
      severity: 'error',
      comment: 'backend/src/app.ts builds the whole graph: only main.ts and test support import it.',
      from: { pathNot: [`^backend/src/main\\.ts$`, ...TEST_SUPPORT] },
      to: { path: '^backend/src/app\\.ts$' },
    },
    {
      name: 'feature-graph-only-in-the-composition-root',
      severity: 'error',
      comment:
        'backend/src/features.ts is the half of the composition root that lists the feature assemblies: only app.ts and tests import it.',
      from: { pathNot: [`^backend/src/app\\.ts$`, ...TEST_SUPPORT] },
      to: { path: '^backend/src/features\\.ts$' },
    },
    {
      name: 'production-imports-no-test-support',
      severity: 'error',
      comment: 'Test support stays out of the build and the image: production code never imports it.',
      from: { path: '^(backend|db|frontend|ops)/', pathNot: TEST_SUPPORT },
      to: { path: TEST_SUPPORT },
    },
    {
      name: 'console-feature-imports-no-other-feature',
      severity: 'error',
      comment:
        'A console feature imports core/, ui/, shared/ and the contract, never another feature: ' +
        'what two features share moves down to shared/.',
      from: { path: '^frontend/src/app/features/([^/]+)/' },
      to: { path: '^frontend/src/app/features/', pathNot: '^frontend/src/app/features/$1/' },
    },
    {
      name: 'console-shared-imports-no-feature',
      severity: 'error',
      comment: 'shared/ holds what features share: it stands below every feature.',
      from: { path: '^frontend/src/app/shared/' },
      to: { path: '^frontend/src/app/features/' },
    },
    {
      name: 'console-core-and-ui-import-no-feature',
      severity: 'error',
      comment: 'core/ and ui/ are the console ground floor: no feature, no shared building block.',
      from: { path: '^frontend/src/app/(core|ui)/' },
      to: { path: '^frontend/src/app/(features|shared)/' },
    },
    {
      name: 'console-http-only-in-data-services',
      severity: 'error',
      comment:
        'Pages, dialogs and building blocks get their data from the entity’s data service (an *-api.ts, see ' +
        'docs/architecture.md "Console floors"); only those and core/ hold HttpClient.',
      from: { path: '^frontend/src/app/(features|shared|ui)/', pathNot: '(-api|\\.spec|-testing)\\.ts$' },
      to: { path: '@angular/common/.*http' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: ['node_modules', '^dist/', '^\\.angular/'] },
    // type-only imports tie folders together as much as value imports do
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js', '.json'] },
  },
};

// for `npm run graph` (ops/graph.ts), which draws the floors; not enumerable, so not part of the
// configuration dependency-cruiser validates
Object.defineProperty(module.exports, 'BACKEND_FLOORS', { value: BACKEND_FLOORS, enumerable: false });
