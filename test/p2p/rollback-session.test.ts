import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createScene, type ScenePeer, sentInput, TICK } from '../support/rollback-scene.js';
import { testSeed } from '../support/seed.js';

const SEED = testSeed('rollback session tests');

/** Every peer confirmed the same inputs (the ones sent) and ran the same states, frame by frame. */
function checkAgreement(peers: ScenePeer[], delay: number, seed: number): number {
  const upTo = Math.min(...peers.map((p) => p.confirmed.length)) - 1;
  const settled = Math.min(...peers.map((p) => p.settled));
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
    if (f > settled) continue; // confirmed by the last update, not yet run again by advanceFrame
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

describe('RollbackSession frame advantage', () => {
  it('a peer whose clock runs 3% fast waits now and then, so the two stay level', () => {
    const scene = createScene({
      seed: SEED,
      peers: 2,
      frames: 900,
      latencyMs: 50,
      jitterMs: 10,
      lossPercent: 5,
    });
    const fast = new Set([0]);
    const none = new Set<number>();
    const gaps: number[] = [];
    for (let tick = 1; tick <= 900; tick++) {
      scene.step(none, tick % 30 === 0 ? fast : none);
      gaps.push(scene.peers[0].session.frame - scene.peers[1].session.frame);
    }
    const [a, b] = scene.peers;
    console.log(
      `  seed ${SEED}: gap at 5 s ${gaps[299]}, at 10 s ${gaps[599]}, at 15 s ${gaps[899]} (largest ${Math.max(...gaps)}); waited ${a.session.stats.waitedFrames} / ${b.session.stats.waitedFrames}, stalled ${a.session.stats.stalledFrames} / ${b.session.stats.stalledFrames}, max depth ${a.session.stats.maxRollbackDepth} / ${b.session.stats.maxRollbackDepth}`,
    );
    // 30 extra frames in 15 s: the fast peer skips about that many, the other next to none.
    assert.ok(
      a.session.stats.waitedFrames >= 20,
      `seed ${SEED}: the fast peer waited ${a.session.stats.waitedFrames} frames`,
    );
    assert.ok(
      b.session.stats.waitedFrames <= 8,
      `seed ${SEED}: the other waited ${b.session.stats.waitedFrames}`,
    );
    for (const gap of gaps) assert.ok(Math.abs(gap) <= 4, `seed ${SEED}: a gap of ${gap} frames`);
    // A run of lost packets can still hold it a frame or two at the prediction bound.
    assert.ok(
      a.session.stats.stalledFrames <= 5,
      `seed ${SEED}: stalled ${a.session.stats.stalledFrames} frames`,
    );
    checkAgreement(scene.peers, 2, SEED);
  });
});

describe('RollbackSession with 3 peers', () => {
  it('3 peers at 100 ms RTT ± 20 ms, 5% loss and 2% duplicates agree on every confirmed frame', () => {
    const scene = createScene({
      seed: SEED,
      peers: 3,
      frames: 900,
      latencyMs: 50,
      jitterMs: 10,
      lossPercent: 5,
      duplicatesPercent: 2,
    });
    scene.run();
    const upTo = checkAgreement(scene.peers, 2, SEED);
    for (const peer of scene.peers) {
      const s = peer.session.stats;
      console.log(
        `  seed ${SEED}: 3 peers, peer ${peer.session.self}: ${s.rollbacks} rollbacks, max depth ${s.maxRollbackDepth}, ${s.framesResimulated} resimulated, ${s.stalledFrames} stalled, ${s.checksumsCompared} compared`,
      );
      assert.ok(s.rollbacks > 20);
      assert.equal(s.desyncs, 0);
      assert.ok(s.checksumsCompared >= 2 * 25);
    }
    assert.ok(upTo >= 850, `seed ${SEED}: confirmed only to ${upTo}`);
  });
});

describe('RollbackSession desync detection', () => {
  it('reports the first checksum frame after an injected difference, with both checksums, and runs on', () => {
    const scene = createScene({
      seed: SEED,
      peers: 2,
      frames: 600,
      latencyMs: 50,
      jitterMs: 10,
      lossPercent: 5,
    });
    scene.peers[1].game.corruptAt = 300;
    scene.run();
    for (const [self, peer] of scene.peers.entries()) {
      const desyncs = peer.events.filter((e) => e.kind === 'desync');
      assert.ok(desyncs.length >= 8, `seed ${SEED}: ${desyncs.length} desyncs reported`);
      const first = desyncs[0];
      assert.ok(first.kind === 'desync');
      // The state at the start of frame 330 is the first checksummed one the nudge changed.
      assert.equal(first.frame, 330);
      assert.equal(first.peer, 1 - self);
      assert.equal(first.local, peer.game.after.get(329));
      assert.equal(first.remote, scene.peers[1 - self].game.after.get(329));
      assert.notEqual(first.local, first.remote);
      assert.equal(peer.session.stats.desyncs, desyncs.length);
    }
  });
});

describe('RollbackSession stalls and disconnects', () => {
  it('stalls at max prediction, reports whom it waits for, and resumes in agreement', () => {
    const scene = createScene({ seed: SEED, peers: 2, frames: 0, latencyMs: 20, maxPrediction: 6 });
    for (let i = 0; i < 60; i++) scene.step();
    const [a, b] = scene.peers;
    const paused = new Set([1]);
    for (let i = 0; i < 40; i++) scene.step(paused);
    // Peer 0 ran on predictions up to 6 frames past peer 1's newest input, then stopped.
    assert.equal(a.session.frame - b.session.confirmedFrame >= 0, true);
    assert.equal(a.session.frame, a.session.stats.peers[1].lastInputFrame + 7);
    assert.deepEqual(a.session.waitingFor, [1]);
    assert.ok(a.results.stalled >= 20, `${a.results.stalled} stalled calls`);
    const stalls = a.events.filter((e) => e.kind === 'stalled');
    assert.equal(stalls.length, 1);
    assert.deepEqual(stalls[0], { kind: 'stalled', frame: a.session.frame, waitingFor: [1] });
    for (let i = 0; i < 300; i++) scene.step();
    assert.deepEqual(a.session.waitingFor, []);
    assert.ok(a.session.frame > 300);
    checkAgreement(scene.peers, 2, SEED);
  });

  it('reports a peer that went silent and one that left, and goes on without them', () => {
    const scene = createScene({ seed: SEED, peers: 3, frames: 0, latencyMs: 20 });
    for (let i = 0; i < 60; i++) scene.step();
    const [a, , c] = scene.peers;
    const paused = new Set([1]);
    for (let i = 0; i < 200; i++) scene.step(paused); // the links time out after 2 s of silence
    assert.deepEqual(
      a.events.filter((e) => e.kind === 'disconnected'),
      [{ kind: 'disconnected', peer: 1, reason: 'timedOut' }],
    );
    assert.equal(a.session.stats.peers[1].connected, false);
    assert.deepEqual(a.session.waitingFor, []); // c and a agreed on 1's last frame (test/p2p/rollback-departures.test.ts)
    assert.equal(a.events.filter((e) => e.kind === 'departed').length, 1);
    c.session.close();
    for (let i = 0; i < 5; i++) {
      scene.step(new Set([1, 2]));
      c.simulator.update(scene.tick * TICK); // the goodbye waits in c's simulated link
    }
    assert.deepEqual(a.events.filter((e) => e.kind === 'disconnected').at(-1), {
      kind: 'disconnected',
      peer: 2,
      reason: 'left',
    });
    assert.equal(a.events.at(-1)?.kind, 'departed'); // a alone now: nobody else to agree with
    assert.equal(c.session.state, 'closed');
  });
});
