/**
 * The rollback session's cost (issue 13): a rollback of 7 frames plus the new frame, every frame,
 * against the same game calls made directly (load, then save + advance per frame), so the
 * difference is what the session adds per frame run again; with an empty game (the session
 * alone) and the tests' small arena game. Then dmath against Math.* per call.
 */

import type { PeerLinkEvent, PeerLinks } from '../../src/lockstep/links/peer-links.js';
import { dmath } from '../../src/lockstep/math/dmath.js';
import type { PeerPacket } from '../../src/lockstep/rollback/rollback-channel.js';
import type { RollbackGame } from '../../src/lockstep/rollback/rollback-options.js';
import { RollbackSession, rollbackChannelHost } from '../../src/lockstep/rollback/rollback-session.js';
import { compile } from '../../src/schema/codec.js';
import { ArenaGame, ArenaInput, type ArenaInputValue, IDLE } from '../../test/support/rollback-game.js';
import { check, measure, type SuiteContext, type Task } from '../harness.js';

const DEPTH = 7;
const FRAMES_PER_ITERATION = DEPTH + 1;

/** Links that deliver nothing: the bench feeds the remote inputs to the session directly. */
class SilentLinks implements PeerLinks {
  readonly self = 0;
  readonly maxPeers = 2;
  readonly maxPayloadBytes = 1200;
  private announced = false;
  send(): void {}
  receive(): number {
    return 0;
  }
  pollEvent(): PeerLinkEvent | null {
    if (this.announced) return null;
    this.announced = true;
    return { kind: 'connected', peer: 1 };
  }
  connectedPeers(): readonly number[] {
    return [1];
  }
  update(): void {}
  close(): void {}
}

/** A game that does nothing: what remains is the session's own work. */
class EmptyGame implements RollbackGame<ArenaInputValue, Int32Array> {
  private readonly state = new Int32Array(1);
  save(_frame: number, reuse: Int32Array | undefined): Int32Array {
    return reuse ?? this.state;
  }
  load(): void {}
  advance(): void {}
  checksum(): number {
    return 0;
  }
}

/** A session whose remote peer's input changes every frame, arriving DEPTH frames late. */
function rollingSession(game: RollbackGame<ArenaInputValue, Int32Array>, depth: number) {
  const session = new RollbackSession({
    links: new SilentLinks(),
    input: ArenaInput,
    initialInput: IDLE,
    game,
  });
  session.update(0);
  const codec = compile(ArenaInput);
  const encodings = [
    codec.encode({ dx: 1, dy: 0, fire: false }).slice(),
    codec.encode({ dx: -1, dy: 0, fire: false }).slice(),
  ];
  const packet: PeerPacket = {
    frame: 0,
    advantage: 0,
    inputFirst: 0,
    inputCount: 1,
    inputs: [new Uint8Array(16)],
    inputLengths: new Int32Array(1),
    checksumCount: 0,
    checksumFrames: new Float64Array(3),
    checksums: new Uint32Array(3),
    departureCount: 0,
    departurePeers: new Int32Array(1),
    departureFrames: new Float64Array(1),
  };
  const frame = () => {
    session.addLocalInput(IDLE);
    return session.advanceFrame();
  };
  while (session.frame < depth + 2) frame(); // predicting up to `depth` frames
  let parity = 0;
  const host = rollbackChannelHost(session);
  return {
    session,
    /** One iteration: a mispredicted input `depth` frames back arrives, then the next frame runs. */
    step(): void {
      parity ^= 1;
      const bytes = encodings[parity];
      packet.inputs[0].set(bytes);
      packet.inputLengths[0] = bytes.length;
      packet.frame = session.frame; // level with us: no frame-advantage waits
      host.received(1, packet);
      frame();
    },
  };
}

function rollbackTasks(name: string, make: () => RollbackGame<ArenaInputValue, Int32Array>): Task[] {
  const scene = rollingSession(make(), DEPTH);
  const shallow = rollingSession(make(), 1);
  const game = make();
  const saved: Int32Array[] = [];
  const inputs = [IDLE, { dx: 1, dy: 0, fire: false }];
  for (let i = 0; i < FRAMES_PER_ITERATION; i++) saved.push(game.save(i, undefined));
  let frameNo = 0;
  return [
    {
      name: `${name}: game calls alone`,
      units: FRAMES_PER_ITERATION,
      run(n) {
        for (let i = 0; i < n; i++) {
          game.load(saved[0], frameNo);
          for (let f = 0; f < FRAMES_PER_ITERATION; f++) {
            saved[f] = game.save(frameNo + f, saved[f]);
            game.advance(inputs, frameNo + f);
          }
          frameNo++;
        }
        return n;
      },
    },
    {
      name: `${name}: RollbackSession`,
      units: FRAMES_PER_ITERATION,
      run(n) {
        const before = scene.session.stats().framesResimulated;
        for (let i = 0; i < n; i++) scene.step();
        return scene.session.stats().framesResimulated - before;
      },
      verify(n, result) {
        check(
          result === n * DEPTH,
          `rollback bench: ${result} frames resimulated in ${n} iterations, not ${n * DEPTH}`,
        );
      },
    },
    {
      name: `${name}: RollbackSession, 1-frame rollbacks`,
      units: 2,
      run(n) {
        const before = shallow.session.stats().framesResimulated;
        for (let i = 0; i < n; i++) shallow.step();
        return shallow.session.stats().framesResimulated - before;
      },
      verify(n, result) {
        check(result === n, `rollback bench: ${result} frames resimulated in ${n} 1-frame rollbacks`);
      },
    },
  ];
}

const CALLS = 1024;

function mathTasks(name: keyof typeof dmath & keyof Math, args: () => number[]): Task[] {
  const a = new Float64Array(CALLS);
  const b = new Float64Array(CALLS);
  for (let i = 0; i < CALLS; i++) [a[i], b[i] = 0] = args();
  const mathFn = Math[name] as (x: number, y: number) => number;
  const dmathFn = dmath[name] as (x: number, y: number) => number;
  const sum = (fn: (x: number, y: number) => number) => {
    let s = 0;
    for (let i = 0; i < CALLS; i++) s += fn(a[i], b[i]);
    return s;
  };
  const expected = sum(dmathFn);
  return [
    {
      name: `Math.${name}`,
      units: CALLS,
      run: (n) => {
        let s = 0;
        for (let i = 0; i < n; i++) s = sum(mathFn);
        return s;
      },
    },
    {
      name: `dmath.${name}`,
      units: CALLS,
      run: (n) => {
        let s = 0;
        for (let i = 0; i < n; i++) s = sum(dmathFn);
        return s;
      },
      verify: (_n, result) =>
        check(Object.is(result, expected), `dmath.${name}: results changed between runs`),
    },
  ];
}

export function runRollback(ctx: SuiteContext): void {
  for (const [name, make] of [
    ['empty game', () => new EmptyGame()],
    ['arena game (2 players)', () => new ArenaGame(2)],
  ] as const) {
    const results = measure(rollbackTasks(name, make), ctx.options);
    const alone = results[0].median;
    const session = results[1].median;
    // Per frame rolled back: the 7-frame rollback's time less the 1-frame one's, over the 6 more frames.
    const marginal = (session * FRAMES_PER_ITERATION - results[2].median * 2) / (DEPTH - 1);
    ctx.table({
      title: `Rollback of ${DEPTH} frames + the new frame, every frame: ${name} (per frame run)`,
      unit: 'frame',
      baseline: results[0].name,
      results,
      notes: [
        `each frame rolled back costs ${marginal.toFixed(0)} ns with the game (the ${DEPTH}- and 1-frame rollbacks' difference per frame)`,
        `the session adds ${(session - alone).toFixed(0)} ns per frame run beyond the game's calls (median vs median; the new frame's input encoding and the packet included)`,
      ],
    });
    ctx.record(`rollback ${name} ns per rolled-back frame`, marginal);
    ctx.record(`rollback ${name} overhead ns/frame`, session - alone);
  }
  let seed = 0x9e3779b9;
  const random = () => {
    seed ^= seed << 13;
    seed ^= seed >>> 17;
    seed ^= seed << 5;
    return (seed >>> 0) / 2 ** 32;
  };
  const cases: [keyof typeof dmath & keyof Math, () => number[]][] = [
    ['sin', () => [(random() * 2 - 1) * 100]],
    ['cos', () => [(random() * 2 - 1) * 100]],
    ['atan2', () => [random() * 2 - 1, random() * 2 - 1]],
    ['exp', () => [(random() * 2 - 1) * 50]],
    ['log', () => [random() * 1000]],
    ['pow', () => [random() * 10, (random() * 2 - 1) * 10]],
  ];
  for (const [name, args] of cases) {
    const results = measure(mathTasks(name, args), ctx.options);
    ctx.table({ title: `dmath.${name} vs Math.${name}`, unit: 'call', baseline: `Math.${name}`, results });
  }
}
