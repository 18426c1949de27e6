import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  type Move,
  Player,
  predictor,
  simulate,
  spawn,
  TICK_RATE,
} from '../../bench/support/prediction-scene.js';
import { Predictor } from '../../src/latency/index.js';
import { compile } from '../../src/schema/index.js';

const codec = compile(Player);
const same = (a: Player, b: Player) => Buffer.from(codec.encode(a)).equals(Buffer.from(codec.encode(b)));
const walk: Move = { x: 1, z: 0, jump: false, yaw: 0 };
const back: Move = { x: -1, z: 1, jump: false, yaw: 1 };

describe('Predictor: ticks, history and misuse', () => {
  it('fills a gap with the previous input, as the input sender repeats it', () => {
    const p = predictor();
    p.predict(1, back);
    p.predict(4, walk);
    const q = predictor();
    for (const [c, m] of [
      [1, back],
      [2, back],
      [3, back],
      [4, walk],
    ] as const)
      q.predict(c, m);
    assert.ok(same(p.state, q.state));
    assert.equal(p.tick, 4);
    assert.equal(p.stats.predictions, 4);
  });

  it('copies inputs through their schema, so the caller may reuse one object', () => {
    const p = predictor();
    const input: Move = { ...walk };
    for (let c = 1; c <= 10; c++) {
      input.x = c % 2;
      p.predict(c, input);
    }
    const q = predictor();
    for (let c = 1; c <= 10; c++) q.predict(c, { ...walk, x: c % 2 });
    // A correction at tick 0 replays 1..10 from the inputs kept: the same as a fresh run.
    const server: Player = { ...spawn(), hp: 50 };
    assert.equal(p.reconcile(server, 0), true);
    q.reconcile(server, 0);
    assert.ok(same(p.state, q.state));
    assert.equal(p.state.hp, 50);
    assert.equal(p.stats.replayedTicks, 10);
  });

  it('replays the inputs still held when the acknowledged tick is older than the history', () => {
    const p = predictor({ historyTicks: 8 });
    for (let c = 1; c <= 20; c++) p.predict(c, walk);
    assert.equal(p.reconcile(spawn(), 3), true);
    assert.equal(p.stats.historyMisses, 1);
    assert.equal(p.stats.replayedTicks, 8);
    // The server's state stands at the oldest held tick (12): 8 walked ticks from the spawn.
    let s = spawn();
    for (let c = 13; c <= 20; c++) s = simulate(s, walk, c);
    assert.ok(Math.abs(p.state.position[0] - s.position[0]) < 0.05);
  });

  it('adopts a server state for a tick not predicted yet', () => {
    const p = predictor();
    p.predict(1, walk);
    assert.equal(p.reconcile(spawn(), 7), true);
    assert.equal(p.tick, 7);
    p.predict(8, walk);
    assert.equal(p.tick, 8);
  });

  it('reuses the shown object', () => {
    const p = predictor();
    p.predict(1, walk);
    const a = p.shown(0.5);
    p.predict(2, walk);
    assert.equal(p.shown(0.25), a);
  });

  it('throws RangeError at the call on misuse', () => {
    const fresh = new Predictor<Player, Move>({ schema: Player, simulate, tickRate: TICK_RATE });
    assert.throws(() => fresh.predict(1, walk), RangeError);
    assert.throws(() => fresh.shown(), RangeError);
    const p = predictor();
    p.predict(1, walk);
    for (const tick of [1, 0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 1 + 129])
      assert.throws(() => p.predict(tick, walk), RangeError, `predict(${tick})`);
    for (const tick of [-1, 0.5, Number.NaN]) assert.throws(() => p.reconcile(spawn(), tick), RangeError);
    for (const alpha of [-0.1, 1.1, Number.NaN]) assert.throws(() => p.shown(alpha), RangeError);
    assert.throws(() => p.reset(spawn(), -2), RangeError);
    const base = { schema: Player, simulate, tickRate: TICK_RATE };
    for (const bad of [
      { tickRate: 0 },
      { tickRate: Number.NaN },
      { historyTicks: 0 },
      { historyTicks: 2.5 },
      { smoothingSeconds: -1 },
      { smoothingSeconds: Number.POSITIVE_INFINITY },
      { snapDistance: 0 },
      { snapDistance: Number.NaN },
    ])
      assert.throws(() => new Predictor({ ...base, ...bad }), RangeError, JSON.stringify(bad));
    const lazy = new Predictor<Player, Move>({ ...base, simulate: (s) => s });
    lazy.reset(spawn(), 0);
    assert.throws(() => lazy.predict(1, walk), RangeError, 'simulate returning its input');
    assert.equal(p.tick, 1, 'nothing recorded by the refused calls');
  });
});
