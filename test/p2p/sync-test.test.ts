import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { dmath } from '../../src/lockstep/dmath.js';
import type { RollbackGame } from '../../src/lockstep/rollback-options.js';
import { stateChecksum } from '../../src/lockstep/state-checksum.js';
import { syncTest } from '../../src/lockstep/sync-test.js';
import { ArenaGame, type ArenaInputValue, scriptedInput } from '../support/rollback-game.js';
import { testSeed } from '../support/seed.js';

const SEED = testSeed('sync test tests');
const inputs = (frame: number) => [scriptedInput(SEED, 0, frame), scriptedInput(SEED, 1, frame)];

/** Bodies by id; `step` moves each and sums a float over them in the Map's iteration order. */
class Bodies implements RollbackGame<ArenaInputValue, Float64Array> {
  bodies = new Map<number, number>();
  energy = 0;
  hidden = 0;
  constructor(
    private readonly flaw: 'none' | 'random' | 'order' | 'hidden',
    private readonly flawFrom = 0,
  ) {
    for (const id of [2, 5, 9]) this.bodies.set(id, id * 0.1);
  }
  save(_frame: number, reuse: Float64Array | undefined): Float64Array {
    // Saved sorted by id: loading rebuilds the Map in id order.
    const ids = [...this.bodies.keys()].sort((a, b) => a - b);
    const out = reuse && reuse.length === 2 + ids.length * 2 ? reuse : new Float64Array(2 + ids.length * 2);
    out[0] = this.energy;
    out[1] = ids.length;
    ids.forEach((id, i) => {
      out[2 + 2 * i] = id;
      out[3 + 2 * i] = this.bodies.get(id) as number;
    });
    return out;
  }
  load(state: Float64Array): void {
    this.energy = state[0];
    this.bodies = new Map();
    for (let i = 0; i < state[1]; i++) this.bodies.set(state[2 + 2 * i], state[3 + 2 * i]);
  }
  advance(inputs: readonly ArenaInputValue[], frame: number): void {
    const flawed = frame >= this.flawFrom;
    for (const [id, x] of this.bodies) {
      let nx = x + dmath.sin(frame * 0.01 + id) * 0.5 + inputs[0].dx * 0.25;
      if (flawed && this.flaw === 'random') nx += Math.random() * 1e-9;
      if (flawed && this.flaw === 'hidden') nx += this.hidden;
      this.bodies.set(id, nx);
      // Floating-point sums depend on their order: iterate in an order the state does not fix and
      // the result depends on history.
      this.energy = this.energy * 0.999 + nx * nx;
    }
    if (flawed && this.flaw === 'order' && frame === this.flawFrom) this.bodies.set(1, 0.3); // inserted last, id smallest
    if (flawed && this.flaw === 'hidden') this.hidden += 1e-6; // never saved nor loaded
  }
  checksum(state: Float64Array): number {
    return stateChecksum(new Uint8Array(state.buffer, state.byteOffset, state.byteLength));
  }
}

describe('syncTest', () => {
  it('passes a deterministic game, rolling back every frame', () => {
    const r = syncTest({ createGame: () => new ArenaGame(2), inputs, frames: 600, checkDistance: 7 });
    assert.deepEqual(r, { framesChecked: 600, rollbacks: 594, mismatch: null });
    assert.equal(syncTest({ createGame: () => new Bodies('none'), inputs, frames: 300 }).mismatch, null);
  });

  it('finds Math.random at the first frame it is used', () => {
    const r = syncTest({ createGame: () => new Bodies('random', 40), inputs, frames: 300 });
    assert.equal(r.mismatch?.frame, 40);
    assert.equal(r.mismatch?.phase, 'rollback');
    assert.notEqual(r.mismatch?.expected, r.mismatch?.actual);
    // Without rollbacks, the second run finds it too.
    const rerun = syncTest({
      createGame: () => new Bodies('random', 40),
      inputs,
      frames: 300,
      checkDistance: 0,
    });
    assert.deepEqual([rerun.mismatch?.frame, rerun.mismatch?.phase], [40, 'rerun']);
  });

  it('compares the two runs side by side: a mismatch is found without running every frame first', () => {
    let advanced = 0;
    const createGame = () => {
      const game = new Bodies('random', 40);
      const advance = game.advance.bind(game);
      game.advance = (i, f) => {
        advanced++;
        advance(i, f);
      };
      return game;
    };
    const r = syncTest({ createGame, inputs, frames: 1_000_000, checkDistance: 0 });
    assert.deepEqual([r.mismatch?.frame, r.mismatch?.phase], [40, 'rerun']);
    assert.ok(advanced <= 2 * 41, `${advanced} frames run`);
  });

  it('finds an iteration order that a load changes (a Map rebuilt sorted)', () => {
    const r = syncTest({ createGame: () => new Bodies('order', 100), inputs, frames: 300, checkDistance: 3 });
    assert.equal(r.mismatch?.phase, 'rollback');
    // Inserted at 100; the first rollback that loads a state holding it re-runs frame 101 in id order.
    assert.equal(r.mismatch?.frame, 101);
    // Two plain runs agree: only a rollback reveals it.
    assert.equal(
      syncTest({ createGame: () => new Bodies('order', 100), inputs, frames: 300, checkDistance: 0 })
        .mismatch,
      null,
    );
  });

  it('finds state that save and load miss', () => {
    const r = syncTest({ createGame: () => new Bodies('hidden', 50), inputs, frames: 300 });
    assert.deepEqual([r.mismatch?.frame, r.mismatch?.phase], [50, 'rollback']);
  });

  it('refuses bad options', () => {
    const base = { createGame: () => new ArenaGame(2), inputs };
    assert.throws(() => syncTest({ ...base, frames: 0 }), RangeError);
    assert.throws(() => syncTest({ ...base, frames: 1.5 }), RangeError);
    assert.throws(() => syncTest({ ...base, frames: 10, checkDistance: -1 }), RangeError);
    assert.throws(() => syncTest({ ...base, frames: 10, checkDistance: 61 }), RangeError);
  });
});
