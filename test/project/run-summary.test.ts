/**
 * The end-of-run reporter of `npm test` (test/support/run-summary.ts): fed synthetic node:test
 * events, and once for real, a failing file run the way `npm test` runs every file.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import runSummary, { errorHeadline, type TestEvent } from '../support/run-summary.js';

async function report(events: TestEvent[]): Promise<string[]> {
  async function* source(): AsyncGenerator<TestEvent> {
    yield* events;
  }
  const out: string[] = [];
  for await (const line of runSummary(source())) out.push(line);
  return out.join('').split('\n').slice(0, -1);
}

/** node:test wraps a test's error in an ERR_TEST_FAILURE whose cause is what was thrown. */
function failure(cause: unknown, failureType = 'testCodeFailure'): Error {
  return Object.assign(new Error('wrapped'), { cause, failureType });
}

const FILE = join(process.cwd(), 'dist/test/x.test.js');
const start = (name: string, nesting: number, file = FILE): TestEvent => ({
  type: 'test:start',
  data: { name, nesting, file },
});

describe('run summary reporter', () => {
  it('ends a failing run with each failing test: file, suite path and the first line of its error, after the skips', async () => {
    const lines = await report([
      start('outer', 0),
      start('inner fails', 1),
      {
        type: 'test:fail',
        data: {
          name: 'inner fails',
          nesting: 1,
          file: FILE,
          details: { error: failure(new Error('Expected values to be strictly equal:\n\n1 !== 2\n')) },
        },
      },
      start('inner skipped', 1),
      {
        type: 'test:pass',
        data: { name: 'inner skipped', nesting: 1, file: FILE, skip: 'redis-server absent' },
      },
      {
        type: 'test:fail',
        data: {
          name: 'outer',
          nesting: 0,
          file: FILE,
          details: { type: 'suite', error: failure(new Error('1 subtest failed'), 'subtestsFailed') },
        },
      },
      start('top', 0),
      {
        type: 'test:fail',
        data: {
          name: 'top',
          nesting: 0,
          file: FILE,
          details: { error: failure(new TypeError('bad\nsecond line')) },
        },
      },
      start('a todo', 0),
      {
        type: 'test:fail',
        data: {
          name: 'a todo',
          nesting: 0,
          file: FILE,
          todo: true,
          details: { error: failure(new Error('x')) },
        },
      },
    ]);
    assert.deepEqual(lines, [
      '# skipped 1 (suites and tests: inner skipped): redis-server absent',
      '# FAILED 2 tests (details in the TAP above; search for "not ok"):',
      '# not ok dist/test/x.test.js: outer > inner fails: Expected values to be strictly equal: 1 !== 2',
      '# not ok dist/test/x.test.js: top: bad',
    ]);
  });

  it('names a file that failed without a test of its own (it crashed while loading)', async () => {
    const lines = await report([
      start(FILE, 0),
      {
        type: 'test:fail',
        data: { name: FILE, nesting: 0, file: FILE, details: { error: failure('test failed') } },
      },
    ]);
    assert.deepEqual(lines, [
      '# FAILED 1 test (details in the TAP above; search for "not ok"):',
      '# not ok dist/test/x.test.js: test failed',
    ]);
  });

  it('prints nothing for a clean run, and only the skips when nothing failed', async () => {
    assert.deepEqual(
      await report([start('a', 0), { type: 'test:pass', data: { name: 'a', nesting: 0, file: FILE } }]),
      [],
    );
    const skips = await report([
      { type: 'test:pass', data: { name: 'b', nesting: 0, file: FILE, skip: true } },
    ]);
    assert.deepEqual(skips, ['# skipped 1 (suites and tests: b): no reason given']);
  });

  it('keeps a long list of failures short', async () => {
    const events: TestEvent[] = [];
    for (let i = 0; i < 45; i++) {
      events.push({
        type: 'test:fail',
        data: { name: `t${i}`, nesting: 0, file: FILE, details: { error: failure(new Error('no')) } },
      });
    }
    const lines = await report(events);
    assert.equal(lines[0], '# FAILED 45 tests (details in the TAP above; search for "not ok"):');
    assert.equal(lines.length, 1 + 40 + 1);
    assert.equal(lines.at(-1), '# ... and 5 more');
  });

  it('reads an error that is not an Error', () => {
    assert.equal(errorHeadline(failure(42)), '42');
    assert.equal(errorHeadline(failure(new RangeError(''))), 'RangeError');
  });
});

describe('run summary under node --test, as npm test runs it', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ghostwire-summary-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('the last lines of a failing run name the failing test after the skip summary', async () => {
    const file = join(dir, 'failing.test.mjs');
    writeFileSync(
      file,
      [
        "import { it } from 'node:test';",
        "it('passes', () => {});",
        "it('is skipped', { skip: 'no reason to run' }, () => {});",
        "it('breaks', () => { throw new Error('the first line\\nthe second'); });",
      ].join('\n'),
    );
    const reporter = join(import.meta.dirname, '..', 'support', 'run-summary.js');
    const args = [
      '--test',
      '--test-reporter=tap',
      '--test-reporter-destination=stdout',
      `--test-reporter=${reporter}`,
      '--test-reporter-destination=stdout',
      file,
    ];
    const env = { ...process.env };
    delete env.NODE_TEST_CONTEXT; // a top-level runner, not our subtest
    const stdout = await new Promise<string>((resolve) => {
      execFile(process.execPath, args, { cwd: dir, env, timeout: 60_000 }, (_error, out) => resolve(out));
    });
    const last = stdout.trimEnd().split('\n').slice(-3);
    assert.deepEqual(last, [
      '# skipped 1 (suites and tests: is skipped): no reason to run',
      '# FAILED 1 test (details in the TAP above; search for "not ok"):',
      '# not ok failing.test.mjs: breaks: the first line',
    ]);
  });
});
