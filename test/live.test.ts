import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const live = fileURLToPath(new URL('../tools/live.js', import.meta.url));

describe('npm start (tools/live.ts)', () => {
  it('runs a live session over UDP and finds every reliable message in order', async () => {
    const { stdout } = await run(
      process.execPath,
      [live, '--seconds', '2', '--clients', '3', '--loss', '5'],
      { timeout: 30_000 },
    );
    assert.match(
      stdout,
      /every reliable message arrived exactly once and in order, both ways, and every map intact\./,
    );
    assert.match(stdout, /bot 0: .* maps [1-9]\d*\/[1-9]\d* intact/);
    assert.equal(stdout.match(/bot \d: reliable up/g)?.length, 3);
  });
});
