/**
 * `npm run graph`: draws the import graph of the code into docs/architecture.md (Mermaid, between the
 * GRAPH markers), folder by folder and floor by floor, from dependency-cruiser's own reading of the
 * imports. `npm run graph -- --check` fails when the drawing there is not what the code does now
 * (`npm run lint` runs it).
 */
import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const DOC = path.join(ROOT, 'docs/architecture.md');
const BEGIN = '<!-- GRAPH:BEGIN (npm run graph writes this block) -->';
const END = '<!-- GRAPH:END -->';

interface Floor {
  name: string;
  folders: string[];
}
interface CruiseResult {
  modules: { source: string; dependencies: { resolved: string; coreModule: boolean }[] }[];
}

const require = createRequire(import.meta.url);
const { BACKEND_FLOORS } = require(path.join(ROOT, '.dependency-cruiser.cjs')) as { BACKEND_FLOORS: Floor[] };

const CONSOLE_FLOORS: Floor[] = [
  { name: 'console root', folders: ['app'] },
  { name: 'features', folders: [] },
  { name: 'shared', folders: [] },
  { name: 'ground floor', folders: ['core', 'ui'] },
];

const isTestSupport = (file: string) =>
  /\.(test|spec)\.ts$|-testing\.ts$|^backend\/src\/testing\/|^frontend\/src\/app\/testing\.ts$/.test(file);

/** The folder a file counts for: a backend or console folder (or root file), or db. */
function unitOf(file: string): string | null {
  let m = /^backend\/src\/([^/]+)/.exec(file);
  if (m) return `backend/${m[1]}`;
  if (file.startsWith('db/')) return 'db';
  m = /^frontend\/src\/app\/((features|shared)\/[^/]+|core|ui)\//.exec(file);
  if (m) return `console/${m[1]}`;
  if (/^frontend\/src\/app\/[^/]+$/.test(file)) return 'console/app';
  return null;
}

async function cruise(): Promise<Map<string, Set<string>>> {
  const bin = path.join(ROOT, 'node_modules/.bin/depcruise');
  const { stdout } = await promisify(execFile)(
    bin,
    ['backend/src', 'db', 'frontend/src', '--config', '.dependency-cruiser.cjs', '--output-type', 'json'],
    { cwd: ROOT, maxBuffer: 64 * 1024 * 1024 },
  );
  const result = JSON.parse(stdout) as CruiseResult;
  const edges = new Map<string, Set<string>>();
  for (const module of result.modules) {
    const from = unitOf(module.source);
    if (!from || isTestSupport(module.source)) continue;
    if (!edges.has(from)) edges.set(from, new Set());
    for (const dependency of module.dependencies) {
      const to = dependency.coreModule ? null : unitOf(dependency.resolved);
      if (to && to !== from) edges.get(from)?.add(to);
    }
  }
  return edges;
}

const nodeId = (unit: string) => unit.replace(/[^A-Za-z0-9]/g, '_');
const labelOf = (unit: string) => unit.replace(/^(backend|console)\//, '');

function mermaid(edges: Map<string, Set<string>>): string {
  const units = [...edges.keys()].sort();
  const backendFloors = [...BACKEND_FLOORS, { name: 'database', folders: ['db'] }];
  const floorsOf = (prefix: string, floors: Floor[]) =>
    floors.map((floor) => ({
      name: floor.name,
      units: units.filter((unit) => {
        if (prefix === 'console/' && floor.folders.length === 0) return unit.startsWith(`console/${floor.name}/`);
        return floor.folders.some((folder) => unit === (folder === 'db' ? 'db' : `${prefix}${folder}`));
      }),
    }));
  const lines = ['```mermaid', 'flowchart TB'];
  const drawn = new Set<string>();
  for (const [title, floors] of [
    ['Backend', floorsOf('backend/', backendFloors)],
    ['Console', floorsOf('console/', CONSOLE_FLOORS)],
  ] as const) {
    lines.push(`  subgraph ${title.toLowerCase()}["${title}"]`, '    direction TB');
    floors.forEach((floor, index) => {
      if (floor.units.length === 0) return;
      lines.push(`    subgraph ${title.toLowerCase()}_${index}["${floor.name}"]`);
      for (const unit of floor.units) {
        lines.push(`      ${nodeId(unit)}["${labelOf(unit)}"]`);
        drawn.add(unit);
      }
      lines.push('    end');
    });
    lines.push('  end');
  }
  const strays = units.filter((unit) => !drawn.has(unit));
  if (strays.length > 0) throw new Error(`not on any floor (add it in .dependency-cruiser.cjs): ${strays.join(', ')}`);
  for (const from of units) {
    for (const to of [...(edges.get(from) ?? [])].sort()) lines.push(`  ${nodeId(from)} --> ${nodeId(to)}`);
  }
  lines.push('```');
  return lines.join('\n');
}

const doc = await readFile(DOC, 'utf8');
const begin = doc.indexOf(BEGIN);
const end = doc.indexOf(END);
if (begin < 0 || end < begin) throw new Error(`${DOC} has no ${BEGIN} … ${END} block`);
const next = `${doc.slice(0, begin + BEGIN.length)}\n${mermaid(await cruise())}\n${doc.slice(end)}`;
if (process.argv.includes('--check')) {
  if (next !== doc) {
    process.stderr.write('docs/architecture.md: the import graph there is out of date: run `npm run graph`\n');
    process.exitCode = 1;
  }
} else if (next !== doc) {
  await writeFile(DOC, next);
  process.stdout.write('docs/architecture.md: import graph updated\n');
}
