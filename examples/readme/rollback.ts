/**
 * The README's rollback example, verbatim between the region markers; what it leaves to the
 * reader is declared around it so that tsc checks it (test/project/readme-examples.test.ts).
 */
import type { PeerLinks } from 'ghostwire/p2p';

declare const links: PeerLinks; // LocalPeerLinks on a LAN or under the simulator; the secure links across the internet
declare const now: number;
declare const recorded: { dx: number; jump: boolean }[][]; // a match's inputs, by frame then player
declare function readPad(): { dx: number; jump: boolean };
declare function draw(state: Float64Array): void;

// #region readme
import { DeterministicRandom, dmath, type RollbackGame, RollbackSession, stateChecksum, syncTest } from 'ghostwire/p2p';
import { t } from 'ghostwire';

const Pad = t.object({ dx: t.int(-1, 1), jump: t.bool() });               // one frame's input
type PadValue = { dx: number; jump: boolean };

/** Two players on a wobbly floor: the whole state in one array (the PRNG's too), so save/load copy it. */
class Duel implements RollbackGame<PadValue, Float64Array> {
  readonly state = new Float64Array([0, 0, 100, 0, 42]);                  // x0 y0 x1 y1 rng
  private readonly rng = new DeterministicRandom(42);
  save(_frame: number, reuse?: Float64Array) {
    const copy = reuse ?? new Float64Array(5);
    copy.set(this.state);
    return copy;
  }
  load(saved: Float64Array) {
    this.state.set(saved);
  }
  advance(inputs: readonly PadValue[], frame: number) {
    const s = this.state;
    this.rng.state = s[4];
    inputs.forEach((pad, p) => {
      s[2 * p] += pad.dx * 2 + dmath.sin(frame / 30 + p);                 // dmath, not Math: same bits everywhere
      s[2 * p + 1] = pad.jump ? 8 + this.rng.nextInt(4) : Math.max(0, s[2 * p + 1] - 1);
    });
    s[4] = this.rng.state;
  }
  checksum(saved: Float64Array) {
    return stateChecksum(new Uint8Array(saved.buffer, saved.byteOffset, saved.byteLength));
  }
}

// Before shipping: run your game twice and roll back 8 frames after every frame, comparing checksums.
const check = syncTest({ createGame: () => new Duel(), inputs: (f) => recorded[f], frames: recorded.length, checkDistance: 8 });
if (check.mismatch) throw new Error(`non-deterministic at frame ${check.mismatch.frame} (${check.mismatch.phase})`);

const game = new Duel();
const session = new RollbackSession({ links, input: Pad, initialInput: { dx: 0, jump: false }, game }); // inputDelay 2, maxPrediction 8
// every 1/60 s:
session.addLocalInput(readPad());
const result = session.advanceFrame();    // 'advanced' (after any rollback) | 'waiting' | 'stalled' | 'synchronizing'
session.update(now);                      // receive, then send this frame's input to every peer
for (let e = session.pollEvent(); e !== null; e = session.pollEvent())
  if (e.kind === 'desync') console.warn(`desync at frame ${e.frame} with peer ${e.peer}: ${e.local} vs ${e.remote}`);
  else if (e.kind === 'stalled') console.warn(`waiting for peers ${e.waitingFor}`);
if (result === 'advanced') draw(game.state);
const { rollbacks, maxRollbackDepth, framesResimulated } = session.stats;
// #endregion
void [rollbacks, maxRollbackDepth, framesResimulated];
