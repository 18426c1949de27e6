import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const live = fileURLToPath(new URL('../../tools/live.js', import.meta.url));

describe('npm start (tools/live.ts)', () => {
  it('runs a live session over UDP: reliable messages in order, mirrors equal to the world, predicted avatars converged', async () => {
    const { stdout } = await run(
      process.execPath,
      [live, '--seconds', '2', '--clients', '3', '--loss', '5'],
      { timeout: 30_000 },
    );
    assert.match(
      stdout,
      /every reliable message arrived exactly once and in order, both ways, every map intact, every bot's mirror equals the server's world near it, and every bot's predicted avatar equals the server's\./,
    );
    // Each bot mirrors some of the arena (its avatar at least).
    assert.equal(stdout.match(/mirror [1-9]\d* ghosts equal to the server's/g)?.length, 3);
    assert.match(stdout, /bot 0: .* maps [1-9]\d*\/[1-9]\d* intact/);
    assert.equal(stdout.match(/bot \d: reliable up/g)?.length, 3);
    // Each bot predicted its avatar from its inputs, reconciled it with the server's states, and
    // once both stood still its prediction equalled the server's avatar.
    assert.equal(
      stdout.match(
        /prediction: [1-9]\d* reconciliations, \d+ mispredicted \([\d.]+%;[^)]*\), correction mean [\d.]+ cm, max [\d.]+ cm; .* equal to the server's/g,
      )?.length,
      3,
    );
    // The orbs were interpolated behind an adaptive delay; the clock was synced.
    assert.equal(
      stdout.match(
        /interpolation: delay [\d.]+ ticks \(Fiedler's 3 intervals: [\d.]+;.*\), .* of [1-9]\d* frames; [\d.]+% of [1-9]\d* orb samples between two states; clock sync/g,
      )?.length,
      3,
    );
    // The avatars moved only by inputs: every bot sent some and the server took them tick by tick.
    assert.equal(
      stdout.match(/input: [1-9]\d* bytes\/s up in [1-9]\d* packets, .* server buffer: [1-9]\d* ticks taken/g)
        ?.length,
      3,
    );
    assert.match(stdout, /arena: 403 entities on the server, [1-9]\d* ticks at 60 Hz/);
  });
});
