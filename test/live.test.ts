import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const live = fileURLToPath(new URL('../tools/live.js', import.meta.url));

describe('npm start (tools/live.ts)', () => {
  it('runs a live session over UDP: every reliable message in order, every mirror equal to the world', async () => {
    const { stdout } = await run(
      process.execPath,
      [live, '--seconds', '2', '--clients', '3', '--loss', '5'],
      { timeout: 30_000 },
    );
    assert.match(
      stdout,
      /every reliable message arrived exactly once and in order, both ways, every map intact, and every bot's mirror equals the server's world near it\./,
    );
    // Each bot mirrors some of the arena (its avatar at least) and steered it by command.
    assert.equal(stdout.match(/mirror [1-9]\d* ghosts equal to the server's/g)?.length, 3);
    assert.match(stdout, /steer commands run [1-9]\d*, refused 0/);
    assert.match(stdout, /bot 0: .* maps [1-9]\d*\/[1-9]\d* intact/);
    assert.equal(stdout.match(/bot \d: reliable up/g)?.length, 3);
  });
});
