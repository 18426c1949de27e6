/**
 * A small deterministic game for the rollback tests and bench: each player a point moved by its
 * input, bumping the others around with a shared DeterministicRandom when it fires. The whole
 * state is one Int32Array (saved by copy into a reused array), the PRNG's state included.
 */
import { DeterministicRandom } from '../../src/lockstep/math/deterministic-random.js';
import { stateChecksum } from '../../src/lockstep/math/state-checksum.js';
import type { RollbackGame } from '../../src/lockstep/rollback/rollback-options.js';
import { t } from '../../src/schema/schema.js';

export const ArenaInput = t.object({ dx: t.int(-1, 1), dy: t.int(-1, 1), fire: t.bool() });
export type ArenaInputValue = { dx: number; dy: number; fire: boolean };
export const IDLE: ArenaInputValue = { dx: 0, dy: 0, fire: false };

/** Per player x, y, score; then the PRNG state; then the frame count. */
const PER_PLAYER = 3;

export class ArenaGame implements RollbackGame<ArenaInputValue, Int32Array> {
  readonly state: Int32Array;
  private readonly rng = new DeterministicRandom(7);
  /** The checksum after each frame ran (overwritten when a rollback runs it again). */
  readonly after = new Map<number, number>();
  advances = 0;
  /** A deliberate non-determinism: this peer's game nudges player 0 at this frame. */
  corruptAt = -1;
  loads = 0;

  constructor(readonly players: number) {
    this.state = new Int32Array(players * PER_PLAYER + 2);
    for (let p = 0; p < players; p++) this.state[p * PER_PLAYER] = p * 1000;
    this.state[players * PER_PLAYER] = this.rng.state | 0;
  }

  save(_frame: number, reuse: Int32Array | undefined): Int32Array {
    const copy = reuse ?? new Int32Array(this.state.length);
    copy.set(this.state);
    return copy;
  }

  load(saved: Int32Array): void {
    this.loads++;
    this.state.set(saved);
  }

  advance(inputs: readonly ArenaInputValue[], frame: number): void {
    this.advances++;
    const s = this.state;
    const n = this.players;
    this.rng.state = s[n * PER_PLAYER] >>> 0;
    for (let p = 0; p < n; p++) {
      const input = inputs[p];
      s[p * PER_PLAYER] += input.dx * 7;
      s[p * PER_PLAYER + 1] += input.dy * 7;
      if (input.fire) {
        const target = this.rng.nextInt(n);
        s[target * PER_PLAYER] += this.rng.nextInt(21) - 10;
        s[p * PER_PLAYER + 2]++;
      }
    }
    if (frame === this.corruptAt) s[0]++;
    s[n * PER_PLAYER] = this.rng.state | 0;
    s[n * PER_PLAYER + 1] = (frame + 1) | 0;
    this.after.set(frame, this.checksum(s));
  }

  checksum(saved: Int32Array): number {
    return stateChecksum(new Uint8Array(saved.buffer, saved.byteOffset, saved.byteLength));
  }
}

/** A player's input at a frame: held for a few frames, then changed (so predictions miss). */
export function scriptedInput(seed: number, peer: number, frame: number): ArenaInputValue {
  const run = Math.floor(frame / 6);
  let h = Math.imul(seed ^ Math.imul(peer + 1, 0x85ebca6b) ^ Math.imul(run, 0xc2b2ae35), 0x27d4eb2f);
  h ^= h >>> 15;
  h = Math.imul(h, 0x2c1b3c6d);
  h ^= h >>> 12;
  return { dx: ((h & 3) % 3) - 1, dy: (((h >>> 2) & 3) % 3) - 1, fire: ((h >>> 4) & 7) === 0 };
}
