/**
 * Every TypeScript block in the README is real code: each one is, verbatim, a whole file under
 * examples/ (the getting-started files, which test/examples/getting-started.test.ts also runs) or a region
 * of one (between `// #region readme` and `// #endregion`, with what the snippet leaves to the
 * reader declared around it). `npm test` type-checks examples/ with the rest of the project, so a
 * README edit not made in the example too, or an API change that breaks one, fails here or in tsc.
 * The same holds for the guides listed in DOCS: each of their blocks is a `// #region docs` of a
 * file under examples/.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../../', import.meta.url));

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? tsFiles(join(dir, entry.name))
      : entry.name.endsWith('.ts')
        ? [join(dir, entry.name)]
        : [],
  );
}

/** Guides whose code blocks are examples too (their regions are marked `// #region docs`). */
const DOCS = ['docs/latency.md', 'docs/browsers-webrtc.md', 'docs/services.md', 'docs/rooms.md'];

/** A markdown file's ```ts blocks, each with the line it starts on. */
function tsBlocks(file: string): { line: number; code: string }[] {
  const lines = readFileSync(join(root, file), 'utf8').split('\n');
  const blocks: { line: number; code: string }[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (lines[i] !== '```ts') continue;
    const start = i + 1;
    while (i + 1 < lines.length && lines[i + 1] !== '```') i++;
    blocks.push({ line: start, code: lines.slice(start, i + 1).join('\n') });
  }
  return blocks;
}

/** Every example file, whole, and every `// #region <marker>` … `// #endregion` in one. */
function exampleRegions(marker: string): Map<string, string> {
  const regions = new Map<string, string>();
  for (const file of tsFiles(join(root, 'examples'))) {
    const text = readFileSync(file, 'utf8');
    regions.set(text.trimEnd(), file.slice(root.length));
    const lines = text.split('\n');
    for (let i = 0; i < lines.length; i++) {
      if (lines[i].trim() !== `// #region ${marker}`) continue;
      const start = i + 1;
      while (i + 1 < lines.length && lines[i + 1].trim() !== '// #endregion') i++;
      regions.set(lines.slice(start, i + 1).join('\n'), file.slice(root.length));
    }
  }
  return regions;
}

describe('README code', () => {
  const blocks = tsBlocks('README.md');
  const regions = exampleRegions('readme');

  it('the README has TypeScript blocks to check', () => assert.ok(blocks.length >= 8, `${blocks.length}`));

  for (const block of blocks) {
    it(`the block at README.md line ${block.line} is an example (or a region of one) that tsc compiles`, () => {
      assert.ok(
        regions.has(block.code),
        `README.md:${block.line} is neither an examples/ file nor a '// #region readme' of one:\n${block.code}`,
      );
    });
  }
});

for (const doc of DOCS) {
  describe(`${doc} code`, () => {
    const blocks = tsBlocks(doc);
    const regions = exampleRegions('docs');

    it('it has TypeScript blocks to check', () => assert.ok(blocks.length >= 1, `${blocks.length}`));

    for (const block of blocks) {
      it(`the block at ${doc} line ${block.line} is a '// #region docs' of an example that tsc compiles`, () => {
        assert.ok(
          regions.has(block.code),
          `${doc}:${block.line} is not a '// #region docs' of an examples/ file:\n${block.code}`,
        );
      });
    }
  });
}
