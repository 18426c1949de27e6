/**
 * The seed sweep's parts: finding the randomized test files, running one file under one seed, and
 * the report. scripts/seed-sweep.ts is the command line around them.
 */
import { spawn } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';

/** The module every randomized test draws its seed from (compiled name). */
const SEED_MODULE = join('support', 'seed.js');

/**
 * Relative import specifiers of a compiled module: static imports and re-exports, which start a
 * line (so an import written inside a string, as a test writing a fixture file does, is not one).
 */
function relativeImports(source: string): string[] {
  const found: string[] = [];
  for (const match of source.matchAll(/^(?:import|export)\b[^'"]*?\bfrom\s*['"](\.{1,2}\/[^'"]+)['"]/gm)) {
    found.push(match[1]);
  }
  for (const match of source.matchAll(/^import\s*['"](\.{1,2}\/[^'"]+)['"]/gm)) found.push(match[1]);
  return found;
}

/**
 * The `*.test.js` files under the compiled test directory that reach test/support/seed.js through
 * their relative imports (directly or through support modules), sorted by short name. Those are the
 * files whose behaviour GW_SEED changes.
 */
export function findSeededTestFiles(testDir: string): string[] {
  const seedModule = resolve(testDir, SEED_MODULE);
  const reaches = new Map<string, boolean>();
  const visit = (file: string): boolean => {
    const known = reaches.get(file);
    if (known !== undefined) return known;
    reaches.set(file, false); // cycles count as not reaching through themselves
    let result = false;
    if (file === seedModule) result = true;
    else if (existsSync(file)) {
      for (const spec of relativeImports(readFileSync(file, 'utf8'))) {
        if (visit(resolve(dirname(file), spec))) {
          result = true;
          break;
        }
      }
    }
    reaches.set(file, result);
    return result;
  };
  return testFiles(testDir)
    .sort((a, b) => shortName(a).localeCompare(shortName(b)))
    .filter((file) => visit(resolve(file)));
}

/** The `*.test.js` files of `dir` and its folders (tests live in one folder per layer). */
function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return testFiles(path);
    return entry.name.endsWith('.test.js') ? [path] : [];
  });
}

/** A test file's short name for --files / --exclude: `vector` for dist/test/serialize/vector.test.js. */
export const shortName = (file: string): string => basename(file).replace(/\.test\.js$/, '');

/**
 * The files to sweep: `only` (short names, exact) when given, each of which must be a seeded
 * file; minus those whose short name contains any `exclude` substring.
 */
export function selectFiles(
  seeded: readonly string[],
  only: readonly string[],
  exclude: readonly string[],
): string[] {
  const byName = new Map(seeded.map((file) => [shortName(file), file]));
  let chosen = [...seeded];
  if (only.length > 0) {
    const unknown = only.filter((name) => !byName.has(shortName(name)));
    if (unknown.length > 0) {
      throw new Error(`--files: not a randomized test file: ${unknown.join(', ')} (see --list)`);
    }
    chosen = only.map((name) => byName.get(shortName(name)) as string);
  }
  return chosen.filter((file) => !exclude.some((part) => part !== '' && shortName(file).includes(part)));
}

/** A fresh uint32 seed. */
export const freshSeed = (): number => randomInt(0, 2 ** 32);

/**
 * Seeds where int32 arithmetic on a seed goes wrong: `seed ^ k` is negative from 2^31 up, and
 * `seed + k` passes 2^32 near the top (what `--edges` runs first).
 */
export const EDGE_SEEDS: readonly number[] = [0, 2 ** 31 - 1, 2 ** 31, 2 ** 32 - 1];

export interface RunResult {
  file: string;
  seed: number;
  ok: boolean;
  seconds: number;
  /** For a failure: the first lines naming what failed (`not ok` lines and their error). */
  detail: string;
}

/** The lines of a failed run worth repeating in the report: its `not ok` lines and first errors. */
export function failureDetail(output: string, maxLines = 6): string {
  const lines = output.split('\n');
  const picked: string[] = [];
  for (let i = 0; i < lines.length && picked.length < maxLines; i++) {
    const line = lines[i];
    if (/^\s*not ok \d+/.test(line)) picked.push(line.trim());
    else if (/^\s*error: [|>]-?$/.test(line) && i + 1 < lines.length) {
      // A multi-line YAML error: its first line is the next one.
      picked.push(`  error: ${lines[i + 1].trim()}`);
    } else if (/^\s*error: /.test(line)) picked.push(`  ${line.trim()}`);
  }
  if (picked.length === 0) {
    const tail = lines.filter((line) => line.trim() !== '').slice(-3);
    picked.push(...tail.map((line) => line.trim()));
  }
  return picked.join('\n');
}

/** Runs one test file under one seed in a child `node --test` (GW_SEED set), killed after `timeoutS`. */
export function runOnce(file: string, seed: number, timeoutS: number): Promise<RunResult> {
  const started = performance.now();
  return new Promise((done) => {
    const env: NodeJS.ProcessEnv = { ...process.env, GW_SEED: String(seed) };
    delete env.NODE_TEST_CONTEXT; // a top-level test run even when the sweep itself runs under node --test
    const child = spawn(process.execPath, ['--test', '--test-reporter=tap', file], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const keep = (chunk: Buffer): void => {
      // Bounded: a run that prints without end must not fill the sweep's memory.
      if (output.length < 4_000_000) output += chunk.toString('utf8');
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeoutS * 1000);
    child.on('close', (code) => {
      clearTimeout(timer);
      const ok = code === 0 && !timedOut;
      const detail = ok ? '' : timedOut ? `timed out after ${timeoutS} s` : failureDetail(output);
      done({ file, seed, ok, seconds: (performance.now() - started) / 1000, detail });
    });
  });
}

/** The command that replays one run. */
export const replayCommand = (file: string, seed: number): string => `GW_SEED=${seed} node --test ${file}`;

/** The sweep's closing report: per file seeds run and failures, then each failure with its replay. */
export function formatSweepReport(files: readonly string[], results: readonly RunResult[]): string {
  const lines = ['seed sweep: per file, seeds run and failures'];
  const width = Math.max(4, ...files.map((file) => shortName(file).length));
  for (const file of files) {
    const mine = results.filter((r) => r.file === file);
    const failed = mine.filter((r) => !r.ok).length;
    lines.push(
      `  ${shortName(file).padEnd(width)}  ${String(mine.length).padStart(4)} seeds  ${failed} failed`,
    );
  }
  const failures = results.filter((r) => !r.ok);
  lines.push(`${results.length} runs, ${failures.length} failed`);
  if (failures.length > 0) {
    lines.push('failures (file, seed, replay):');
    for (const f of failures) {
      lines.push(`  ${shortName(f.file)} seed ${f.seed}: ${replayCommand(f.file, f.seed)}`);
      for (const line of f.detail.split('\n')) if (line !== '') lines.push(`      ${line}`);
    }
  }
  return lines.join('\n');
}
