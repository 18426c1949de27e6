import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createScene, type ScenePeer, sentInput } from './support/rollback-scene.js';
import { testSeed } from './support/seed.js';

const SEED = testSeed('rollback session tests');

/** Every peer confirmed the same inputs (the ones sent) and ran the same states, frame by frame. */
function checkAgreement(peers: ScenePeer[], delay: number, seed: number): number {
  const upTo = Math.min(...peers.map((p) => p.confirmed.length)) - 1;
  assert.ok(upTo > 0, `seed ${seed}: nothing confirmed`);
  for (let f = 0; f <= upTo; f++) {
    for (const peer of peers) {
      for (let p = 0; p < peers.length; p++)
        assert.deepEqual(
          peer.confirmed[f][p],
          sentInput(seed, p, f, delay),
          `seed ${seed}: frame ${f} peer ${p}`,
        );
    }
    const sums = peers.map((p) => p.game.after.get(f));
    assert.ok(
      sums[0] !== undefined && sums.every((s) => s === sums[0]),
      `seed ${seed}: states differ after frame ${f}: ${sums}`,
    );
  }
  return upTo;
}

describe('RollbackSession', () => {
  it('2 peers at 100 ms RTT ± 20 ms and 5% loss: identical states and inputs every confirmed frame, rollbacks counted', () => {
    const scene = createScene({
      seed: SEED,
      peers: 2,
      frames: 1200,
      latencyMs: 50,
      jitterMs: 10,
      lossPercent: 5,
    });
    scene.run();
    const [a, b] = scene.peers;
    const upTo = checkAgreement(scene.peers, 2, SEED);
    for (const peer of scene.peers) {
      const s = peer.session.stats;
      console.log(
        `  seed ${SEED}: peer ${peer.session.self}: frame ${s.frame}, confirmed ${s.confirmedFrame}, ${s.rollbacks} rollbacks (max depth ${s.maxRollbackDepth}, depths ${s.rollbackDepths.join(' ')}), ${s.framesResimulated} resimulated, ${s.stalledFrames} stalled, ${s.waitedFrames} waited, ${s.checksumsCompared} checksums compared, rtt ${s.peers[1 - peer.session.self].rtt.toFixed(1)} ms`,
      );
      assert.ok(s.rollbacks > 20, `seed ${SEED}: only ${s.rollbacks} rollbacks`);
      assert.ok(
        s.maxRollbackDepth <= 9 && s.maxRollbackDepth >= 3,
        `seed ${SEED}: depth ${s.maxRollbackDepth}`,
      );
      assert.equal(
        s.rollbackDepths.reduce((x, y) => x + y, 0),
        s.rollbacks,
      );
      assert.equal(s.desyncs, 0);
      assert.ok(s.checksumsCompared >= 30, `seed ${SEED}: ${s.checksumsCompared} checksums compared`);
    }
    assert.ok(upTo >= 1150, `seed ${SEED}: confirmed only to ${upTo}`);
    assert.ok(Math.abs(a.session.frame - b.session.frame) <= 3);
  });
});
