/**
 * scripts/build.mjs (`npm run build`), run on a small project of its own in a scratch folder (the
 * repository's dist/ is in use by the other test files): concurrent builds wait for each other, an
 * unchanged project is not rebuilt, and the outputs of a removed source go while the rest stay.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const REPO = fileURLToPath(new URL('../../../', import.meta.url));

interface Run {
  code: number | null;
  output: string;
}

function build(project: string, ...args: string[]): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(project, 'scripts', 'build.mjs'), ...args], { cwd: project });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, output }));
  });
}

function scratchProject(): string {
  const project = mkdtempSync(join(tmpdir(), 'ghostwire-build-'));
  mkdirSync(join(project, 'scripts'));
  cpSync(join(REPO, 'scripts', 'build.mjs'), join(project, 'scripts', 'build.mjs'));
  mkdirSync(join(project, 'node_modules'));
  symlinkSync(join(REPO, 'node_modules', 'typescript'), join(project, 'node_modules', 'typescript'), 'dir');
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'scratch', type: 'module' }));
  const compilerOptions = {
    module: 'nodenext',
    target: 'es2022',
    strict: true,
    outDir: 'dist',
    rootDir: '.',
  };
  writeFileSync(join(project, 'tsconfig.json'), JSON.stringify({ compilerOptions, include: ['src'] }));
  mkdirSync(join(project, 'src', 'deep'), { recursive: true });
  writeFileSync(join(project, 'src', 'a.ts'), 'export const a: number = 1;\n');
  writeFileSync(
    join(project, 'src', 'deep', 'b.ts'),
    "import { a } from '../a.js';\nexport const b = a + 1;\n",
  );
  return project;
}

describe('scripts/build.mjs', () => {
  let project = '';
  before(() => {
    project = scratchProject();
  });
  after(() => rmSync(project, { recursive: true, force: true }));

  it('two builds started together both succeed: one compiles, the other waits and finds it done', async () => {
    const runs = await Promise.all([build(project), build(project)]);
    for (const run of runs) assert.equal(run.code, 0, run.output);
    const compiled = runs.filter((run) => run.output.includes('build: compiled'));
    const skipped = runs.filter((run) => run.output.includes('build: dist/ is up to date'));
    assert.equal(compiled.length, 1, runs.map((run) => run.output).join('\n---\n'));
    assert.equal(skipped.length, 1);
    assert.ok(existsSync(join(project, 'dist', 'src', 'deep', 'b.js')));
    assert.ok(!existsSync(join(project, 'dist', '.build-lock')), 'the lock is released');
  });

  it('a build with nothing changed compiles nothing and writes no output', async () => {
    const output = join(project, 'dist', 'src', 'a.js');
    const before = statSync(output).mtimeMs;
    const run = await build(project);
    assert.equal(run.code, 0, run.output);
    assert.match(run.output, /up to date/);
    assert.equal(statSync(output).mtimeMs, before);
  });

  it('a changed source, or a deleted output, rebuilds', async () => {
    writeFileSync(join(project, 'src', 'a.ts'), 'export const a: number = 2;\n');
    let run = await build(project);
    assert.match(run.output, /build: compiled/);
    assert.match(readFileSync(join(project, 'dist', 'src', 'a.js'), 'utf8'), /= 2/);
    rmSync(join(project, 'dist', 'src', 'a.js'));
    run = await build(project);
    assert.match(run.output, /build: compiled/);
    assert.ok(existsSync(join(project, 'dist', 'src', 'a.js')));
  });

  it("a removed source's outputs (and its emptied folder) go; the others and files not from tsc stay", async () => {
    mkdirSync(join(project, 'dist', 'browser'), { recursive: true });
    writeFileSync(join(project, 'dist', 'browser', 'bundle.js'), '// written by another script\n');
    rmSync(join(project, 'src', 'deep'), { recursive: true });
    writeFileSync(join(project, 'src', 'a.ts'), 'export const a: number = 3;\n');
    const run = await build(project);
    assert.equal(run.code, 0, run.output);
    assert.match(run.output, /removed 1 stale outputs/);
    assert.ok(!existsSync(join(project, 'dist', 'src', 'deep')));
    assert.ok(existsSync(join(project, 'dist', 'src', 'a.js')));
    assert.ok(existsSync(join(project, 'dist', 'browser', 'bundle.js')));
  });

  it('a type error fails the build and leaves no stamp, so the next build compiles again', async () => {
    writeFileSync(join(project, 'src', 'a.ts'), "export const a: number = 'four';\n");
    let run = await build(project);
    assert.notEqual(run.code, 0);
    assert.ok(!existsSync(join(project, 'dist', '.build-stamp')));
    run = await build(project);
    assert.notEqual(run.code, 0, 'still broken: compiled again, not skipped');
    writeFileSync(join(project, 'src', 'a.ts'), 'export const a: number = 4;\n');
    run = await build(project);
    assert.equal(run.code, 0, run.output);
  });

  it('a lock left by a process that is gone is taken over, not waited on forever', async () => {
    mkdirSync(join(project, 'dist', '.build-lock'));
    const gone = spawn(process.execPath, ['-e', '']);
    await new Promise((resolve) => gone.once('close', resolve));
    writeFileSync(join(project, 'dist', '.build-lock', 'pid'), String(gone.pid));
    const run = await build(project);
    assert.equal(run.code, 0, run.output);
    assert.ok(!existsSync(join(project, 'dist', '.build-lock')));
  });
});
