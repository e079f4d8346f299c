/**
 * The documentation holds together: every relative link of README.md and docs/*.md reaches a file
 * that exists and, when it names one, a heading of that file; and every heading a doc names in
 * quotes after a file name (`rules.md "Flapping"`, the way code comments point into the docs) is
 * the start of a heading there. A renamed heading or a moved section fails here, naming the link.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';

const ROOT = path.resolve(import.meta.dirname, '../..');
const DOCS = path.join(ROOT, 'docs');
const FILES = [path.join(ROOT, 'README.md'), ...readdirSync(DOCS).map((name) => path.join(DOCS, name))].filter((file) =>
  file.endsWith('.md'),
);

/** The text outside fenced code blocks and inline code spans, where links and headings live. */
function prose(markdown: string): string {
  return markdown.replace(/^```[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, '');
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
export function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\- _]/gu, '')
    .replace(/ /g, '-');
}

function headingsOf(file: string): string[] {
  return [...prose(readFileSync(file, 'utf8')).matchAll(/^#{1,6} +(.+?) *#*$/gm)].map((match) => match[1]!);
}

/** Anchors of a file, with GitHub's -1, -2 … suffixes for repeated headings. */
function anchorsOf(file: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const heading of headingsOf(file)) {
    const base = anchorOf(heading);
    const count = seen.get(base) ?? 0;
    anchors.add(count === 0 ? base : `${base}-${count}`);
    seen.set(base, count + 1);
  }
  return anchors;
}

function relativeLinks(file: string): string[] {
  const links = [...prose(readFileSync(file, 'utf8')).matchAll(/\]\(([^)\s]+)\)/g)].map((match) => match[1]!);
  return links.filter((link) => !/^[a-z]+:/i.test(link));
}

/** `<name>.md "Heading"` and `<name>.md) "Heading"`: a doc naming a heading of another doc (or of itself). */
function quotedHeadings(file: string): { target: string; heading: string }[] {
  const text = prose(readFileSync(file, 'utf8')).replace(/\s+/g, ' ');
  return [...text.matchAll(/\b([\w-]+\.md)\)? \(?"([^"]+)"/g)].map((match) => ({
    target: match[1]!,
    heading: match[2]!,
  }));
}

function resolveDoc(from: string, name: string): string | undefined {
  const candidates = [path.resolve(path.dirname(from), name), path.join(DOCS, name), path.join(ROOT, name)];
  return candidates.find((candidate) => existsSync(candidate));
}

describe('documentation links', () => {
  it('finds the docs it checks', () => {
    assert.ok(FILES.length >= 5, `only ${FILES.length} markdown files found`);
  });

  for (const file of FILES) {
    const name = path.relative(ROOT, file);

    it(`${name}: every relative link reaches a file and its heading`, () => {
      const broken: string[] = [];
      for (const link of relativeLinks(file)) {
        const [target = '', anchor] = link.split('#');
        const targetFile = target === '' ? file : path.resolve(path.dirname(file), target);
        if (!existsSync(targetFile)) broken.push(`${link}: no file ${path.relative(ROOT, targetFile)}`);
        else if (anchor !== undefined && targetFile.endsWith('.md') && !anchorsOf(targetFile).has(anchor))
          broken.push(`${link}: no heading with anchor #${anchor}`);
      }
      assert.deepEqual(broken, [], `${name} has broken links`);
    });

    it(`${name}: every quoted heading of a doc exists there`, () => {
      const missing: string[] = [];
      for (const { target, heading } of quotedHeadings(file)) {
        const targetFile = resolveDoc(file, target);
        if (targetFile === undefined || !targetFile.startsWith(ROOT)) continue; // not a doc of ours
        const wanted = heading.toLowerCase();
        if (!headingsOf(targetFile).some((candidate) => candidate.toLowerCase().startsWith(wanted)))
          missing.push(`${target} "${heading}"`);
      }
      assert.deepEqual(missing, [], `${name} names headings that do not exist`);
    });
  }
});
