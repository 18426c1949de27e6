/**
 * The README, BENCHMARKS.md and the guides link to each other: every relative link must name a
 * file that exists, and a `#fragment` a heading of that file (GitHub's anchors), so moving a
 * section or renaming a heading cannot leave a reader at a dead end.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../../', import.meta.url));

/**
 * Guides written in parallel with these ones (the game API, install, conventions): a link to one
 * may point at nothing until its branch is merged; once the file exists it is checked like any.
 */
const WRITTEN_ELSEWHERE = new Set(['docs/game.md', 'docs/install.md', 'docs/conventions.md', 'examples/tag']);

const pages = [
  'README.md',
  'BENCHMARKS.md',
  ...readdirSync(join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
function anchor(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\- ]/gu, '')
    .replace(/ /g, '-');
}

/** The anchors of a markdown file's headings (outside code fences), with GitHub's -1, -2 for repeats. */
function anchors(file: string): Set<string> {
  const found = new Set<string>();
  let fenced = false;
  for (const line of readFileSync(join(root, file), 'utf8').split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    const heading = /^#{1,6} (.*)$/.exec(line);
    if (fenced || heading === null) continue;
    const base = anchor(heading[1]);
    let name = base;
    for (let n = 1; found.has(name); n++) name = `${base}-${n}`;
    found.add(name);
  }
  return found;
}

/** A page's relative links (outside code fences and inline code), each with its line. */
function links(file: string): { line: number; target: string }[] {
  const found: { line: number; target: string }[] = [];
  let fenced = false;
  readFileSync(join(root, file), 'utf8')
    .split('\n')
    .forEach((text, i) => {
      if (text.startsWith('```')) fenced = !fenced;
      if (fenced) return;
      for (const match of text.replace(/`[^`]*`/g, '').matchAll(/\]\(([^)\s]+)\)/g)) {
        if (!/^[a-z]+:/i.test(match[1])) found.push({ line: i + 1, target: match[1] });
      }
    });
  return found;
}

describe('links between the README, BENCHMARKS.md and the guides', () => {
  it('there are pages and links to check', () => {
    assert.ok(pages.length >= 15, `${pages.length} pages`);
    assert.ok(pages.flatMap(links).length >= 40);
  });

  it('docs/README.md lists every guide in docs/', () => {
    const listed = new Set(links('docs/README.md').map((link) => link.target.split('#')[0]));
    const missing = pages.filter(
      (page) => page.startsWith('docs/') && page !== 'docs/README.md' && !listed.has(page.slice(5)),
    );
    assert.deepEqual(missing, []);
  });

  for (const page of pages) {
    it(`every relative link of ${page} names a file that exists, and a heading of it`, () => {
      const dead: string[] = [];
      for (const { line, target } of links(page)) {
        const [path, fragment] = target.split('#');
        const file = path === '' ? page : normalize(join(dirname(page), path));
        if (!existsSync(join(root, file))) {
          if (!WRITTEN_ELSEWHERE.has(file.replace(/\/$/, '')))
            dead.push(`${page}:${line} ${target}: no ${file}`);
          continue;
        }
        if (fragment !== undefined && file.endsWith('.md') && !anchors(file).has(fragment))
          dead.push(`${page}:${line} ${target}: no heading #${fragment} in ${file}`);
      }
      assert.deepEqual(dead, []);
    });
  }
});
