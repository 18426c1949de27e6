import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { LockstepEvent } from '../../src/lockstep/lockstep-options.js';
import { LockstepScene, type ScenePeer } from '../support/lockstep-scene.js';
import { testSeed } from '../support/seed.js';

/**
 * Lockstep end to end: four peers run an RTS sim of 1,024 units through 10,000 turns over a
 * simulated network (100 ms ± 30 ms one way, 5% loss, duplicates) and stay identical every turn;
 * a non-determinism put in one peer's sim is found at the turn it happens, by every peer.
 */
const SEED = testSeed('lockstep');
const replay = `seed ${SEED} (GW_SEED=${SEED})`;
const BAD_LINK = { latency: 100, jitter: 30, loss: 5, duplicates: 2 };

function of<K extends LockstepEvent['kind']>(
  peer: ScenePeer,
  kind: K,
): Extract<LockstepEvent, { kind: K }>[] {
  return peer.events.filter((e): e is Extract<LockstepEvent, { kind: K }> => e.kind === kind);
}

/** Asserts every peer recorded the same checksum for each turn in [from, to]. */
export function assertSameChecksums(peers: ScenePeer[], from: number, to: number): void {
  const reference = peers[0].checksums;
  for (const peer of peers.slice(1))
    for (let turn = from; turn <= to; turn++)
      if (peer.checksums[turn] !== reference[turn])
        assert.fail(
          `peer ${peer.index} differs from peer ${peers[0].index} at turn ${turn} (${peer.checksums[turn]} vs ${reference[turn]}), ${replay}`,
        );
}

describe('LockstepSession under the network simulator', () => {
  it('keeps 4 peers and 1,024 units identical through 10,000 turns at 100 ms ± 30 ms, 5% loss, duplicates', () => {
    const TURNS = 10_000;
    const scene = new LockstepScene({ peers: 4, units: 1024, seed: SEED, conditions: BAD_LINK });
    const finished = scene.runUntil(() => scene.minTurn() >= TURNS, 4000, 0.025);
    assert.ok(finished, `only turn ${scene.minTurn()} after ${scene.now.toFixed(0)} s, ${replay}`);
    assertSameChecksums(scene.peers, 0, TURNS);
    const stats = scene.peers.map((p) => p.session.stats());
    for (const [i, s] of stats.entries()) {
      assert.equal(s.desyncs, 0, `peer ${i} found a desync, ${replay}`);
      assert.equal(of(scene.peers[i], 'desync').length, 0);
      assert.equal(s.lastRefusal, null, `peer ${i} refused: ${s.lastRefusal}, ${replay}`);
    }
    // Every command queued was run by every peer (those still in flight at the end aside).
    const queued = stats.reduce((n, s) => n + s.commandsQueued, 0);
    const executed = stats[0].commandsExecuted;
    assert.ok(executed > 0.99 * queued && executed <= queued, `${executed} run of ${queued} queued`);
    // The first peers to finish ran the same commands in the same turns.
    assert.ok(scene.peers[0].sim.orders > 0.99 * queued, `${scene.peers[0].sim.orders} orders`);
    // The host fitted the turn length to how late lists arrive (100 ± 30 ms one way, a lost packet
    // repaired 33 ms later, the peers' clocks a trip apart): about 200 ms, 150-300 over seeds.
    const lengths = of(scene.peers[1], 'turnLength');
    assert.ok(lengths.length >= 1, 'the turn length was never adapted');
    assert.deepEqual(
      lengths.map((e) => [e.turn, e.turnMs]),
      of(scene.peers[3], 'turnLength').map((e) => [e.turn, e.turnMs]),
    );
    assert.ok(stats[0].turnMs >= 150 && stats[0].turnMs <= 300, `turn length ${stats[0].turnMs} ms`);
    // Loss and jitter stall a turn now and then, briefly: under 5% of the time.
    for (const s of stats)
      assert.ok(s.stallSeconds < 0.05 * scene.now, `stalled ${s.stallSeconds} s of ${scene.now}`);
    // Bytes: an order costs about 6 bytes, a turn's list a few bits and its checksum, resent until acked.
    const perPeerPerSecond = stats[0].peers.reduce((n, p) => n + p.bytesSent, 0) / scene.now;
    assert.ok(perPeerPerSecond < 2500, `${perPeerPerSecond.toFixed(0)} bytes/s sent by peer 0`);
  });

  it('finds a non-determinism at the turn it happens, on every peer, with both checksums', () => {
    const scene = new LockstepScene({ peers: 4, units: 256, seed: SEED, conditions: BAD_LINK });
    const glitchAt = 40 + (SEED % 200);
    scene.peers[2].sim.glitchAt = glitchAt;
    assert.ok(
      scene.runUntil(() => scene.minTurn() >= glitchAt + 10, 600),
      replay,
    );
    for (const peer of scene.peers) {
      const desyncs = of(peer, 'desync');
      const expected = peer.index === 2 ? [0, 1, 3] : [2];
      assert.deepEqual(
        desyncs.map((e) => e.peer),
        expected,
        `peer ${peer.index}: ${JSON.stringify(desyncs)}, ${replay}`,
      );
      for (const e of desyncs) {
        assert.equal(e.turn, glitchAt, replay);
        assert.equal(e.local, peer.checksums[glitchAt]);
        assert.equal(e.remote, scene.peers[e.peer].checksums[glitchAt]);
        assert.notEqual(e.local, e.remote);
        assert.deepEqual((e.dump as { turn: number }).turn, glitchAt);
      }
      // Reported once per peer, counted every turn it lasts (the sim may heal it); never thrown.
      assert.ok(peer.session.stats().desyncs >= 1);
    }
    assertSameChecksums([scene.peers[0], scene.peers[1], scene.peers[3]], 0, glitchAt + 5);
    assert.equal(scene.peers[2].checksums[glitchAt - 1], scene.peers[0].checksums[glitchAt - 1]);
  });

  it('replays the same run from the same seed', () => {
    const run = () => {
      const scene = new LockstepScene({ peers: 3, units: 64, seed: SEED, conditions: BAD_LINK });
      scene.runUntil(() => scene.minTurn() >= 150, 300);
      return { now: scene.now, checksums: [...scene.peers[1].checksums.subarray(0, 150)] };
    };
    assert.deepEqual(run(), run(), replay);
  });
});
