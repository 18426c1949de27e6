/**
 * The seed sweep (scripts/seed-sweep.ts): its flags, which files it finds, and one tiny real sweep
 * of a synthetic test file that fails on odd seeds. Not a sweep of the project (`npm run sweep`).
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { readCommandLine } from '../../scripts/cli.js';
import { parseSweepArgs, SWEEP_COMMAND } from '../../scripts/seed-sweep.js';
import {
  failureDetail,
  findSeededTestFiles,
  formatSweepReport,
  runOnce,
  selectFiles,
  shortName,
} from '../../scripts/seed-sweep-core.js';

const parse = (argv: string[]) => {
  const values = readCommandLine(SWEEP_COMMAND, argv);
  assert.ok(values !== null);
  return parseSweepArgs(values);
};

describe('seed sweep command line', () => {
  it('defaults to 200 seeds, one job, all files, no time limit', () => {
    assert.deepEqual(parse([]), {
      seeds: 200,
      files: [],
      exclude: [],
      jobs: 1,
      minutes: Number.POSITIVE_INFINITY,
      timeoutS: 600,
      edges: false,
      list: false,
    });
  });

  it('reads --seeds, --files, --exclude, --jobs and --minutes', () => {
    const args = parse([
      '--seeds',
      '5',
      '--files',
      'vector, crc32.test.js',
      '--exclude=latency',
      '-j',
      '2',
      '--minutes',
      '30',
    ]);
    assert.equal(args.seeds, 5);
    assert.deepEqual(args.files, ['vector', 'crc32.test.js']);
    assert.deepEqual(args.exclude, ['latency']);
    assert.equal(args.jobs, 2);
    assert.equal(args.minutes, 30);
  });

  it('refuses a bad count, naming the flag, and returns null for --help', () => {
    assert.throws(() => parse(['--seeds', '0']), /--seeds must be a positive integer/);
    assert.throws(() => parse(['--jobs', '1.5']), /--jobs must be a positive integer/);
    assert.throws(() => parse(['--bogus']), /Unknown option/);
    assert.equal(readCommandLine(SWEEP_COMMAND, ['--help']), null);
  });
});

describe('seed sweep discovery', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ghostwire-sweep-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(join(dir, 'support'));
  writeFileSync(
    join(dir, 'support', 'seed.js'),
    'export const testSeed = () => Number(process.env.GW_SEED ?? 1);\n',
  );
  writeFileSync(
    join(dir, 'support', 'scene.js'),
    "import { testSeed } from './seed.js';\nexport { testSeed };\n",
  );
  writeFileSync(join(dir, 'support', 'loop-a.js'), "import './loop-b.js';\n");
  writeFileSync(join(dir, 'support', 'loop-b.js'), "import './loop-a.js';\n");
  // Test files sit in per-layer folders beside support/, as in dist/test.
  mkdirSync(join(dir, 'layer-a'));
  mkdirSync(join(dir, 'layer-b'));
  writeFileSync(join(dir, 'layer-a', 'direct.test.js'), "import { testSeed } from '../support/seed.js';\n");
  writeFileSync(
    join(dir, 'layer-b', 'through-scene.test.js'),
    "import { testSeed } from '../support/scene.js';\n",
  );
  writeFileSync(
    join(dir, 'layer-a', 'fixed.test.js'),
    "import assert from 'node:assert';\nimport '../support/loop-a.js';\n",
  );

  it('finds the test files that reach support/seed.js, directly or through support modules', () => {
    const found = findSeededTestFiles(dir).map(shortName);
    assert.deepEqual(found, ['direct', 'through-scene']);
  });

  it("finds this project's randomized files and not its fixed ones", () => {
    const found = findSeededTestFiles(join(import.meta.dirname, '..')).map(shortName);
    assert.ok(found.includes('vector') && found.includes('stream-property'), found.join(' '));
    assert.ok(!found.includes('architecture') && !found.includes('seed-sweep'), found.join(' '));
  });

  it('selects by exact short name, refuses an unknown one, and excludes by substring', () => {
    const files = findSeededTestFiles(dir);
    assert.deepEqual(selectFiles(files, ['direct.test.js'], []).map(shortName), ['direct']);
    assert.throws(() => selectFiles(files, ['fixed'], []), /not a randomized test file: fixed/);
    assert.deepEqual(selectFiles(files, [], ['scene']).map(shortName), ['direct']);
  });
});

describe('seed sweep runs', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ghostwire-sweep-run-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('runs a file under each seed and reports the failing file and seed with its replay command', async () => {
    const file = join(dir, 'odd.test.mjs');
    writeFileSync(
      file,
      [
        "import { it } from 'node:test';",
        "it('fails on odd seeds', () => { if (Number(process.env.GW_SEED) % 2 === 1) throw new Error('odd seed'); });",
      ].join('\n'),
    );
    const results = [await runOnce(file, 4, 60), await runOnce(file, 7, 60)];
    assert.deepEqual(
      results.map((r) => [r.seed, r.ok]),
      [
        [4, true],
        [7, false],
      ],
    );
    const report = formatSweepReport([file], results);
    assert.match(report, /odd\.test\.mjs\s+2 seeds {2}1 failed/);
    assert.ok(report.includes(`odd.test.mjs seed 7: GW_SEED=7 node --test ${file}`), report);
    assert.match(report, /not ok 1 - fails on odd seeds/);
    assert.match(report, /error: 'odd seed'/);
    assert.equal(
      failureDetail('  not ok 1 - x\n    error: |-\n      Expected values to be strictly equal:\n'),
      'not ok 1 - x\n  error: Expected values to be strictly equal:',
    );
  });
});
