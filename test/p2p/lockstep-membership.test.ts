import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { LockstepEvent } from '../../src/lockstep/lockstep-options.js';
import { LockstepScene, type ScenePeer } from '../support/lockstep-scene.js';
import { testSeed } from '../support/seed.js';

/**
 * Joining late, leaving and timing out: every peer agrees from which turn a joiner's commands
 * count and after which turn a leaver's stop, and all stay identical through the change.
 */
const SEED = testSeed('lockstep membership');
const replay = `seed ${SEED} (GW_SEED=${SEED})`;
const LINK = { latency: 60, jitter: 20, loss: 5, duplicates: 2 };

function of<K extends LockstepEvent['kind']>(
  peer: ScenePeer,
  kind: K,
): Extract<LockstepEvent, { kind: K }>[] {
  return peer.events.filter((e): e is Extract<LockstepEvent, { kind: K }> => e.kind === kind);
}

function assertSame(peers: ScenePeer[], from: number, to: number): void {
  for (const peer of peers.slice(1))
    for (let turn = from; turn <= to; turn++)
      assert.equal(
        peer.checksums[turn],
        peers[0].checksums[turn],
        `peer ${peer.index} vs ${peers[0].index} at turn ${turn}, ${replay}`,
      );
}

describe('LockstepSession membership', () => {
  it('admits a late joiner from a snapshot: everyone agrees on its first turn and stays identical', () => {
    const scene = new LockstepScene({ peers: 4, units: 512, seed: SEED, conditions: LINK, joiners: [3] });
    assert.ok(
      scene.runUntil(() => scene.minTurn() >= 60, 60),
      replay,
    );
    assert.equal(scene.peers[3].session.status.state, 'joining');
    assert.throws(() => scene.peers[3].session.queue({ first: 0, count: 1, x: 0, y: 0 }), RangeError);
    scene.start(3);
    assert.ok(
      scene.runUntil(() => scene.peers[3].session.status.state !== 'joining', 10),
      replay,
    );
    const started = of(scene.peers[3], 'started');
    assert.equal(started.length, 1);
    const snapshotTurn = started[0].turn;
    // 180 s: the turn length adapts to the round trips, which 5% loss makes up to ~300 ms here:
    // some seeds settle at 440 ms turns (132 s for 300) plus stalls (GW_SEED=1798001422).
    assert.ok(
      scene.runUntil(() => scene.minTurn() >= snapshotTurn + 300, 180),
      replay,
    );
    const joined = scene.peers.slice(0, 3).map((p) => of(p, 'joined'));
    for (const j of joined) assert.deepEqual(j, [{ kind: 'joined', peer: 3, fromTurn: snapshotTurn + 4 }]);
    assert.deepEqual(scene.peers[3].session.members, [0, 1, 2, 3]);
    // The joiner's state after the snapshot turn is the others' (it loaded it), and so is every turn since.
    assertSame(scene.peers, snapshotTurn + 1, snapshotTurn + 300);
    assert.equal(scene.peers[3].checksums[snapshotTurn - 1], 0, 'the joiner ran turns before its snapshot');
    // Its orders ran everywhere: 300 turns at 4 a second make some.
    assert.ok(scene.peers[3].session.stats().commandsQueued > 10);
    for (const p of scene.peers) assert.equal(p.session.stats().desyncs, 0, replay);
  });

  it('counts out a peer that says goodbye after one agreed turn, and the others go on', () => {
    // No loss here: the links say goodbye once, and a lost goodbye is a timeout (the next test).
    const conditions = { ...LINK, loss: 0 };
    const scene = new LockstepScene({ peers: 4, units: 256, seed: SEED, conditions });
    assert.ok(
      scene.runUntil(() => scene.minTurn() >= 80, 60),
      replay,
    );
    scene.leave(3);
    const survivors = scene.peers.slice(0, 3);
    assert.ok(
      scene.runUntil(() => survivors.every((p) => p.session.turn >= 280), 120),
      replay,
    );
    const left = survivors.map((p) => of(p, 'left'));
    for (const l of left) {
      assert.equal(l.length, 1, JSON.stringify(left));
      assert.equal(l[0].peer, 3);
      assert.equal(l[0].reason, 'left');
      assert.equal(l[0].afterTurn, left[0][0].afterTurn);
    }
    const last = left[0][0].afterTurn;
    assert.ok(last >= scene.peers[3].session.turn, `${last} < ${scene.peers[3].session.turn}`);
    assertSame(survivors, 0, 280);
    assertSame([survivors[0], scene.peers[3]], 0, scene.peers[3].session.turn);
    for (const p of survivors) assert.deepEqual(p.session.members, [0, 1, 2]);
  });

  it('times out a silent peer, reports whom the stall waits for, and a silent host is replaced', () => {
    const scene = new LockstepScene({ peers: 4, units: 256, seed: SEED, conditions: LINK, linkTimeout: 1 });
    assert.ok(
      scene.runUntil(() => scene.minTurn() >= 60, 60),
      replay,
    );
    scene.cut(2);
    const rest = [scene.peers[0], scene.peers[1], scene.peers[3]];
    assert.ok(
      scene.runUntil(() => rest.every((p) => p.session.turn >= 200), 120),
      replay,
    );
    for (const p of rest) {
      const stalled = of(p, 'stalled');
      assert.ok(
        stalled.some((e) => e.waitingFor.includes(2)),
        `peer ${p.index}: ${JSON.stringify(stalled)}`,
      );
      assert.ok(of(p, 'resumed').length >= 1);
      const left = of(p, 'left');
      assert.deepEqual(
        left.map((e) => [e.peer, e.reason, e.afterTurn]),
        [[2, 'timedOut', of(scene.peers[0], 'left')[0].afterTurn]],
        replay,
      );
    }
    // Now the host: peer 1 takes over and counts peer 0 out.
    scene.cut(0);
    const last = [scene.peers[1], scene.peers[3]];
    assert.ok(
      scene.runUntil(() => last.every((p) => p.session.turn >= 400), 120),
      replay,
    );
    const zero = last.map((p) => of(p, 'left').filter((e) => e.peer === 0));
    assert.equal(zero[0].length, 1, JSON.stringify(zero));
    assert.deepEqual(zero[0], zero[1]);
    assert.ok(zero[0][0].afterTurn >= scene.peers[0].session.turn);
    assertSame(last, 0, 400);
    assertSame([scene.peers[0], scene.peers[1]], 0, scene.peers[0].session.turn);
    for (const p of last) assert.deepEqual(p.session.members, [1, 3]);
  });

  it('drops one of two peers that cannot reach each other; the dropped one learns it was removed', () => {
    const scene = new LockstepScene({ peers: 4, units: 256, seed: SEED, conditions: LINK, linkTimeout: 1 });
    assert.ok(
      scene.runUntil(() => scene.minTurn() >= 60, 60),
      replay,
    );
    scene.cutBetween(1, 3);
    const removed = () => scene.peers.filter((p) => of(p, 'removed').length > 0).map((p) => p.index);
    assert.ok(
      scene.runUntil(() => removed().length > 0, 30),
      replay,
    );
    assert.equal(removed().length, 1, `removed: ${removed()}`);
    const gone = removed()[0];
    assert.ok(gone === 1 || gone === 3);
    assert.equal(scene.peers[gone].session.status.state, 'removed');
    scene.cut(gone);
    const rest = scene.peers.filter((p) => p.index !== gone);
    assert.ok(
      scene.runUntil(() => rest.every((p) => p.session.turn >= 250), 120),
      replay,
    );
    const left = rest.map((p) => of(p, 'left').map((e) => [e.peer, e.afterTurn]));
    for (const l of left) assert.deepEqual(l, left[0]);
    assert.equal(left[0].length, 1);
    assert.equal(left[0][0][0], gone);
    assert.ok((left[0][0][1] as number) >= scene.peers[gone].session.turn);
    assertSame(rest, 0, 250);
    assertSame([rest[0], scene.peers[gone]], 0, scene.peers[gone].session.turn);
  });
});
