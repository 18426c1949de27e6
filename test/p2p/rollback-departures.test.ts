import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RollbackDepartures } from '../../src/lockstep/rollback-departures.js';
import type { RollbackEvent } from '../../src/lockstep/rollback-stats.js';
import { createScene, type ScenePeer, TICK } from '../support/rollback-scene.js';
import { testSeed } from '../support/seed.js';

const SEED = testSeed('rollback departure tests');

type Departed = Extract<RollbackEvent, { kind: 'departed' }>;
const departedEvents = (peer: ScenePeer): Departed[] =>
  peer.events.filter((e): e is Departed => e.kind === 'departed');

/**
 * The survivors agreed on the same last frame of `gone`, ran past it alone for 300+ frames, and
 * every frame both have settled left the same state (the departed peer's own game agreeing up to
 * the agreed frame).
 */
function checkSurvivors(
  survivors: ScenePeer[],
  departed: ScenePeer,
  gone: number,
  fromFrame: number,
): number {
  const lasts = survivors.map((p) => departedEvents(p).map((e) => e.lastFrame));
  for (const l of lasts) assert.equal(l.length, 1, `seed ${SEED}: one departed event each: ${lasts}`);
  const last = lasts[0][0];
  for (const p of survivors) {
    assert.equal(p.session.departedAfter(gone), last, `seed ${SEED}: agreed frames differ: ${lasts}`);
    assert.deepEqual(p.session.waitingFor, [], `seed ${SEED}: still waiting`);
    assert.equal(p.session.stats.desyncs, 0, `seed ${SEED}: desync`);
    assert.ok(p.session.frame > fromFrame + 300, `seed ${SEED}: only to frame ${p.session.frame}`);
    assert.ok(last >= fromFrame - 60, `seed ${SEED}: agreed ${last}, left near ${fromFrame}`);
  }
  const settled = Math.min(...survivors.map((p) => p.settled));
  assert.ok(settled > last + 300, `seed ${SEED}: settled only to ${settled} (agreed ${last})`);
  for (let f = 0; f <= settled; f++) {
    const sums = survivors.map((p) => p.game.after.get(f));
    assert.ok(
      sums[0] !== undefined && sums.every((s) => s === sums[0]),
      `seed ${SEED}: states differ after frame ${f}`,
    );
  }
  for (let f = 0; f <= Math.min(last, departed.settled); f++)
    assert.equal(departed.game.after.get(f), survivors[0].game.after.get(f), `seed ${SEED}: frame ${f}`);
  return last;
}

describe('RollbackSession: a peer that leaves', () => {
  it('3 peers, one goes silent mid-game: the two others agree on its last frame and go on identically', () => {
    const scene = createScene({
      seed: SEED,
      peers: 3,
      frames: 0,
      latencyMs: 50,
      jitterMs: 10,
      lossPercent: 5,
    });
    const [a, b, c] = scene.peers;
    for (let i = 0; i < 168; i++) scene.step();
    // c hears nothing for the last 12 ticks before b goes silent: a holds b's inputs further than c,
    // has run past c's last frame of b with b's real inputs, and must roll back to agree.
    const conditions = c.simulator.getConditions('incoming');
    c.simulator.setConditions('incoming', { ...conditions, loss: 100 });
    for (let i = 0; i < 12; i++) scene.step();
    const silentFrom = b.session.frame;
    const paused = new Set([1]);
    for (let i = 0; i < 20; i++) scene.step(paused);
    c.simulator.setConditions('incoming', conditions);
    const heldByA = a.session.stats.peers[1].lastInputFrame;
    const rollbacksBefore = a.session.stats.rollbacks;
    for (let i = 0; i < 580; i++) scene.step(paused); // the links time out after 2 s of silence
    for (const p of [a, c])
      assert.deepEqual(
        p.events.filter((e) => e.kind === 'disconnected'),
        [{ kind: 'disconnected', peer: 1, reason: 'timedOut' }],
      );
    const last = checkSurvivors([a, c], b, 1, silentFrom);
    assert.ok(heldByA > last + 8, `seed ${SEED}: a held b to ${heldByA}, agreed ${last}`);
    assert.ok(a.session.stats.rollbacks > rollbacksBefore, `seed ${SEED}: a rolled back`);
    console.log(
      `  seed ${SEED}: silent from frame ${silentFrom}, a held to ${heldByA}, agreed last frame ${last}, survivors at ${a.session.frame} and ${c.session.frame}, ${a.session.stats.checksumsCompared} checksums compared`,
    );
    assert.ok(a.session.stats.checksumsCompared > 10, `seed ${SEED}: checksums still compared`);
  });

  it('3 peers, one says goodbye: the others agree at once and go on identically', () => {
    const scene = createScene({
      seed: SEED,
      peers: 3,
      frames: 0,
      latencyMs: 30,
      jitterMs: 5,
      lossPercent: 2,
    });
    for (let i = 0; i < 150; i++) scene.step();
    const [a, b, c] = scene.peers;
    const leftAt = c.session.frame;
    c.session.close();
    const paused = new Set([2]);
    for (let i = 0; i < 400; i++) {
      scene.step(paused);
      c.simulator.update(scene.tick * TICK); // the goodbye waits in c's simulated link
    }
    for (const p of [a, b]) assert.equal(p.events.find((e) => e.kind === 'disconnected')?.reason, 'left');
    checkSurvivors([a, b], c, 2, leftAt);
    // A goodbye needs no timeout: the agreement came within a second.
    assert.ok(a.session.stats.stalledFrames < 60, `seed ${SEED}: ${a.session.stats.stalledFrames} stalled`);
  });

  it('2 peers: the one left goes on alone with the other at the initial input', () => {
    const scene = createScene({
      seed: SEED,
      peers: 2,
      frames: 0,
      latencyMs: 40,
      jitterMs: 5,
      lossPercent: 5,
    });
    for (let i = 0; i < 120; i++) scene.step();
    const [a, b] = scene.peers;
    const silentFrom = b.session.frame;
    for (let i = 0; i < 600; i++) scene.step(new Set([1]));
    const last = checkSurvivors([a], b, 1, silentFrom);
    assert.ok(
      last <= b.session.stats.frame + 2,
      `seed ${SEED}: agreed ${last}, b sent to ${b.session.frame + 2}`,
    );
    // The departed player is idle from the frame after its last: it neither moves up or down nor fires.
    const [y, score] = [a.game.state[4], a.game.state[5]];
    for (let i = 0; i < 30; i++) scene.step(new Set([1]));
    assert.deepEqual([a.game.state[4], a.game.state[5]], [y, score]);
  });
});

describe('RollbackDepartures', () => {
  it('only our own links start a departure; reports from others only lower the agreed frame', () => {
    const d = new RollbackDepartures(4, 0);
    d.noteRemote(1, 3, 10); // peer 1 says 3 is gone: nothing starts here
    d.noteRemote(2, 3, 5);
    assert.equal(d.agreed(3), null);
    assert.equal(d.pending(), false);
    d.noteRemote(1, 0, 0); // about us, or about itself: meaningless
    d.noteRemote(2, 2, 0);
    assert.equal(d.agreed(0), null);
    assert.equal(d.agreed(2), null);
    d.noteLocal(3, 12);
    assert.equal(d.pending(), true);
    assert.equal(d.agreed(3), 5);
    d.noteRemote(2, 3, 1); // a changed report: the first stands
    assert.equal(d.agreed(3), 5);
    d.settle(3, 5);
    assert.equal(d.pending(), false);
    assert.equal(d.agreed(3), null);
    assert.deepEqual(d.reports, [3, 12]);
  });

  it('waits for every remaining peer, and stops waiting for one that is gone too', () => {
    const d = new RollbackDepartures(4, 0);
    d.noteLocal(3, 20);
    d.noteRemote(1, 3, 18);
    assert.equal(d.agreed(3), null); // peer 2 has not reported
    d.noteLocal(2, 30);
    assert.equal(d.agreed(3), 18);
  });
});
