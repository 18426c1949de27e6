import type { RollbackGame } from './rollback-options.js';

export interface SyncTestOptions<I, S> {
  /** A fresh game in its starting state; called twice (the two runs must start equal). */
  createGame(): RollbackGame<I, S>;
  /** Every player's input at `frame` (the same answer each call: record them, or derive from a seed). */
  inputs(frame: number): readonly I[];
  /** Frames to run. */
  frames: number;
  /**
   * Frames rolled back and run again after every frame of the first run, as a rollback session
   * would (GGPO's synctest check distance; default 2, at most 60; 0 compares the two runs only).
   */
  checkDistance?: number;
}

/** Where the game first behaved differently on the same inputs. */
export interface SyncTestMismatch {
  /** The first frame after which the state's checksum differed. */
  frame: number;
  /**
   * 'rerun': a second game from the start got another state (something outside the inputs and
   * the state: Math.random, the clock, a global); 'rollback': loading a saved state and running
   * the frame again gave another (state that save/load misses, or order that load changes).
   */
  phase: 'rerun' | 'rollback';
  /** The checksum of the first run, and of the rerun or the rolled-back run. */
  expected: number;
  actual: number;
}

export interface SyncTestResult {
  /** Frames whose checksums were compared before the first mismatch (all of them when none). */
  framesChecked: number;
  rollbacks: number;
  mismatch: SyncTestMismatch | null;
}

/**
 * Runs a game twice, side by side, through the same inputs; in the first run it rolls back `checkDistance`
 * frames after every frame and runs them again, comparing the state's checksum after every
 * frame; reports the first frame where they differ. A game that passes is deterministic in the
 * ways a rollback or lockstep session needs (on this engine: use dmath for what engines compute
 * differently). Pure: no network, no clock.
 */
export function syncTest<I, S>(options: SyncTestOptions<I, S>): SyncTestResult {
  const { frames } = options;
  const distance = options.checkDistance ?? 2;
  if (!Number.isInteger(frames) || frames < 1 || frames > 100_000_000)
    throw new RangeError(`syncTest: frames must be an integer in [1, 10^8], got ${frames}`);
  if (!Number.isInteger(distance) || distance < 0 || distance > 60)
    throw new RangeError(`syncTest: checkDistance must be an integer in [0, 60], got ${distance}`);
  const ring = distance + 1;
  // The first run's checksums of the frames a rollback can reach: the two runs go side by side,
  // so memory stays constant whatever `frames` is.
  const sums = new Uint32Array(ring);
  const saved: (S | undefined)[] = new Array(ring).fill(undefined);
  let scratch: S | undefined;
  let rollbacks = 0;

  const game = options.createGame();
  const again = options.createGame();
  const checksumAfter = (g: RollbackGame<I, S>, frame: number): number => {
    scratch = g.save(frame + 1, scratch);
    return g.checksum(scratch) >>> 0;
  };
  for (let f = 0; f < frames; f++) {
    saved[f % ring] = game.save(f, saved[f % ring]);
    game.advance(options.inputs(f), f);
    const first = checksumAfter(game, f);
    sums[f % ring] = first;
    if (distance > 0 && f + 1 >= distance) {
      // Roll back to the start of frame f + 1 - distance and run to here again.
      const from = f + 1 - distance;
      game.load(saved[from % ring] as S, from);
      rollbacks++;
      for (let g = from; g <= f; g++) {
        saved[g % ring] = game.save(g, saved[g % ring]);
        game.advance(options.inputs(g), g);
        const sum = checksumAfter(game, g);
        if (sum !== sums[g % ring])
          return {
            framesChecked: g,
            rollbacks,
            mismatch: { frame: g, phase: 'rollback', expected: sums[g % ring], actual: sum },
          };
      }
    }
    // The second game runs the frame straight, never rolled back.
    again.advance(options.inputs(f), f);
    const sum = checksumAfter(again, f);
    if (sum !== first)
      return {
        framesChecked: f,
        rollbacks,
        mismatch: { frame: f, phase: 'rerun', expected: first, actual: sum },
      };
  }
  return { framesChecked: frames, rollbacks, mismatch: null };
}
