import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FrameAdvantage } from '../../src/lockstep/frame-advantage.js';

/** How many frames a rollback peer waits for another: from both sides' measures, a hostile one clamped. */
describe('FrameAdvantage', () => {
  const run = (localFrame: number, reported: number) => {
    const a = new FrameAdvantage();
    // 100 ms round trip at 60 frames a second: the remote's frame now is the one sent + 3.
    for (let i = 0; i < 20; i++) a.sample(localFrame, 97, 0.1, 60, reported);
    return a;
  };

  it('waits half the difference of two honest measures', () => {
    assert.equal(run(100, 0).recommendedWait(), 0);
    // 30 frames ahead, and the other says it is 30 behind: wait 30.
    assert.equal(run(130, -30).recommendedWait(), 30);
    assert.equal(run(130, -31).recommendedWait(), 30.5);
  });

  it('takes a report far from the opposite of ours as the most plausible (half a round trip + 1 frame)', () => {
    const a = run(100, -32); // level by our measure, "32 behind" by the peer's
    assert.equal(a.reported, -4);
    assert.equal(a.recommendedWait(), 2);
    assert.equal(run(100, 32).reported, 4);
  });
});
