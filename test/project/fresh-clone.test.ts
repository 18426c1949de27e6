/**
 * A fresh clone has no ../shared: its conformance suites skip, `npm test` still passes and ends by
 * saying what was skipped and why; with GHOSTWIRE_REQUIRE_VECTORS=1 (what .ci/run sets) the same
 * absence fails the run. Checked by copying the compiled tests somewhere with no ../shared beside.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const dist = fileURLToPath(new URL('../../', import.meta.url));
const root = mkdtempSync(join(tmpdir(), 'ghostwire-fresh-'));
const clone = join(root, 'clone'); // ../shared would be root/shared: absent
cpSync(join(dist, 'src'), join(clone, 'dist/src'), { recursive: true });
cpSync(join(dist, 'test'), join(clone, 'dist/test'), { recursive: true });
writeFileSync(join(clone, 'package.json'), readFileSync(join(dist, '..', 'package.json')));
after(() => rmSync(root, { recursive: true, force: true }));

/** Runs one compiled conformance suite in the copy, as `npm test` runs every suite. */
function runSuite(env: NodeJS.ProcessEnv): Promise<{ code: number; stdout: string; stderr: string }> {
  const args = [
    '--test',
    '--test-reporter=tap',
    '--test-reporter-destination=stdout',
    '--test-reporter=./dist/test/support/run-summary.js',
    '--test-reporter-destination=stdout',
    'dist/test/packet/reliable-vectors.test.js',
  ];
  const childEnv = { ...process.env, ...env };
  delete childEnv.NODE_TEST_CONTEXT; // run as a top-level test runner, not as our subtest
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      args,
      { cwd: clone, env: childEnv, timeout: 60_000 },
      (error, stdout, stderr) =>
        resolve({ code: error === null ? 0 : ((error as { code?: number }).code ?? 1), stdout, stderr }),
    );
  });
}

describe('fresh clone without ../shared', () => {
  it('passes, and its last line names the skipped conformance suite and why', async () => {
    const { code, stdout } = await runSuite({ GHOSTWIRE_REQUIRE_VECTORS: '' });
    assert.equal(code, 0, stdout);
    const last = stdout.trimEnd().split('\n').at(-1) ?? '';
    assert.match(
      last,
      /^# skipped 1 \(suites and tests: reliable_vectors\.json .*\): conformance vectors absent/,
    );
  });

  it('fails with GHOSTWIRE_REQUIRE_VECTORS=1, as .ci/run sets it', async () => {
    const { code, stdout, stderr } = await runSuite({ GHOSTWIRE_REQUIRE_VECTORS: '1' });
    assert.notEqual(code, 0);
    assert.match(stdout + stderr, /GHOSTWIRE_REQUIRE_VECTORS=1 requires the conformance vectors/);
    assert.doesNotMatch(stdout, /# skipped \d+ \(suites and tests/);
  });
});
