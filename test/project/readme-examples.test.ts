/**
 * Every TypeScript block in the README is real code: each one is, verbatim, a whole file under
 * examples/ (such as the getting-started files, which test/getting-started.test.ts also runs) or a
 * region of one (between `// #region readme` and `// #endregion`, with what the snippet leaves to
 * the reader declared around it). `npm test` type-checks examples/ with the rest of the project, so a
 * README edit not made in the example too, or an API change that breaks one, fails here or in tsc.
 * The same holds for the guides listed in GUIDES (where the README's reference moved), but for the
 * fragments each is known to hold. Regions are marked `// #region readme` or `// #region docs`.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
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

/**
 * The guides this test covers, each with how many of its blocks are fragments no example compiles
 * yet (reference snippets that leave names to the reader): that number may only go down. Every
 * other block is an examples/ file or a region of one.
 */
const GUIDES: Record<string, number> = {
  'docs/getting-started.md': 0,
  'docs/serialization.md': 0,
  'docs/packet.md': 0,
  'docs/connection.md': 1,
  'docs/channels.md': 0,
  'docs/replication.md': 5,
  'docs/interest.md': 1,
  'docs/latency.md': 0,
  'docs/transports.md': 0,
  'docs/browsers.md': 2,
  'docs/browsers-webrtc.md': 0,
  'docs/services.md': 0,
  'docs/rooms.md': 0,
  'docs/lockstep.md': 1,
  'docs/game.md': 0,
};

/** Where the README shows the tag game: a sketch between these until examples/tag's code replaces it. */
const TAG_START = '<!-- tag game: examples/tag -->';
const TAG_END = '<!-- /tag game -->';

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

/**
 * Every example file, whole, and every region in one: `// #region readme` or `// #region docs` …
 * `// #endregion` (readme: first written for the README; both may be shown anywhere).
 */
function exampleRegions(): Map<string, string> {
  const regions = new Map<string, string>();
  for (const file of tsFiles(join(root, 'examples'))) {
    const text = readFileSync(file, 'utf8');
    regions.set(text.trimEnd(), file.slice(root.length));
    const lines = text.split('\n');
    for (let i = 0; i < lines.length; i++) {
      const marker = lines[i].trim();
      if (marker !== '// #region readme' && marker !== '// #region docs') continue;
      const start = i + 1;
      while (i + 1 < lines.length && lines[i + 1].trim() !== '// #endregion') i++;
      regions.set(lines.slice(start, i + 1).join('\n'), file.slice(root.length));
    }
  }
  return regions;
}

const regions = exampleRegions();

describe('README code', () => {
  const blocks = tsBlocks('README.md');

  for (const block of blocks) {
    it(`the block at README.md line ${block.line} is an example (or a region of one) that tsc compiles`, () => {
      assert.ok(
        regions.has(block.code),
        `README.md:${block.line} is neither an examples/ file nor a region of one:\n${block.code}`,
      );
    });
  }

  const tagExample = existsSync(join(root, 'examples/tag'));
  it('the README shows the tag game from examples/tag in place of its sketch', {
    skip: tagExample ? false : 'examples/tag is not there yet: the README shows a sketch',
  }, () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    const start = readme.indexOf(TAG_START);
    const end = readme.indexOf(TAG_END);
    assert.ok(start >= 0 && end > start, `README.md has no ${TAG_START} … ${TAG_END} section`);
    const section = readme.slice(start, end);
    const fences = section.split('\n').filter((line) => line.startsWith('```'));
    const opened = fences.filter((line) => line !== '```').length;
    assert.equal(
      fences.length,
      2 * opened,
      'the tag game section still holds the sketch (a fence without a language)',
    );
    const shown = blocks.filter((b) => regions.get(b.code)?.startsWith('examples/tag/'));
    assert.ok(shown.length >= 1, 'no TypeScript block of the README is a file or region of examples/tag');
  });
});

describe('guides code', () => {
  it('the guides have TypeScript blocks to check', () => {
    const checked = Object.keys(GUIDES).flatMap((doc) => tsBlocks(doc).filter((b) => regions.has(b.code)));
    assert.ok(checked.length >= 30, `${checked.length}`);
  });

  for (const [doc, fragments] of Object.entries(GUIDES)) {
    it(`every block of ${doc} is an example or a region of one (${fragments} known fragments)`, () => {
      const unchecked = tsBlocks(doc).filter((b) => !regions.has(b.code));
      assert.ok(
        unchecked.length <= fragments,
        `${doc} has ${unchecked.length} blocks that are not an examples/ file or a region of one (at most ${fragments}):\n` +
          unchecked.map((b) => `${doc}:${b.line}\n${b.code}`).join('\n\n'),
      );
    });
  }
});
