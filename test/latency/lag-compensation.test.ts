import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Soldier, SoldierType } from '../../bench/support/soldier.js';
import {
  compileInterpolator,
  GhostSampler,
  LagCompensation,
  type LagCompensationOptions,
} from '../../src/latency/index.js';
import { prng } from '../../src/random/prng.js';
import { EntityHistory, ServerWorld } from '../../src/replication/index.js';
import { testSeed } from '../support/seed.js';

const seed = testSeed('lag-compensation');

const layout = SoldierType.layout;
const lerp = compileInterpolator(Soldier, { teleportField: 'teleported' });

/** The soldier's sphere, boxed (orientation-free, so any blend stays inside the two boxes). */
function bounds(s: Soldier, out: Float64Array): void {
  for (let a = 0; a < 3; a++) {
    out[a] = s.position[a] - s.radius;
    out[a + 3] = s.position[a] + s.radius;
  }
}

function lag(options: Partial<LagCompensationOptions<Soldier>> = {}): LagCompensation<Soldier> {
  return new LagCompensation({ interpolator: lerp, bounds, tickRate: 60, capacity: 64, layout, ...options });
}

function soldier(x: number, y = 0, teleported = false): Soldier {
  return { position: [x, y, 0], facing: [0, 0, 0, 1], radius: 1, hp: 100, teleported };
}

/** Everything: a box of infinite extent. */
const ALL = [
  Number.NEGATIVE_INFINITY,
  Number.NEGATIVE_INFINITY,
  Number.NEGATIVE_INFINITY,
  Number.POSITIVE_INFINITY,
  Number.POSITIVE_INFINITY,
  Number.POSITIVE_INFINITY,
];

/** The states each rewind test saw, copied. */
function collect(lc: LagCompensation<Soldier>, client: number, tick: number, fraction: number, volume = ALL) {
  const seen = new Map<number, Soldier>();
  const outcome = lc.rewind(client, tick, fraction, volume, (id, s) => seen.set(id, structuredClone(s)));
  return { seen, outcome: { ...outcome } };
}

function quantized(value: Soldier) {
  const state = layout.createState();
  layout.quantize(value, state);
  return state;
}

function unitQuaternion(random: () => number): [number, number, number, number] {
  const q = [random() - 0.5, random() - 0.5, random() - 0.5, random() - 0.5];
  const n = Math.hypot(...q);
  return q.map((c) => c / n) as [number, number, number, number];
}

describe('LagCompensation', () => {
  it('rewinds to exactly what a GhostSampler shows from the same states', () => {
    const random = prng(seed);
    const lc = lag();
    const histories: EntityHistory[] = [];
    const values: Soldier[] = [];
    for (let id = 0; id < 4; id++) {
      histories.push(new EntityHistory(layout as never, 64));
      values.push(soldier(random() * 100));
    }
    for (let tick = 1; tick <= 50; tick++) {
      for (let id = 0; id < 4; id++) {
        // Some ticks leave an entity out (unchanged); some teleport it; rotations and ints change.
        if (random() < 0.3) continue;
        const v = values[id];
        v.position = [v.position[0] + random() * 4 - 2, v.position[1] + random() * 4 - 2, random()];
        v.facing = unitQuaternion(random);
        v.hp = Math.floor(random() * 101);
        if (random() < 0.05) v.teleported = !v.teleported;
        lc.record(tick, id, v);
        layout.quantize(v, histories[id].slotFor(tick));
      }
    }
    let compared = 0;
    for (let n = 0; n < 300; n++) {
      const view = 1 + random() * 48;
      const tick = Math.floor(view);
      const { seen, outcome } = collect(lc, 0, tick, view - tick);
      assert.equal(outcome.claim, 'ok');
      for (let id = 0; id < 4; id++) {
        const history = histories[id];
        if (history.oldestTick > view || history.latestTick < view) {
          // Before its first state: not rewound; after its last: held (a state holds until the next).
          assert.equal(seen.has(id), history.latestTick < view);
          continue;
        }
        const sampler = new GhostSampler(lerp);
        assert.deepEqual(seen.get(id), sampler.sample(history, view), `entity ${id} at ${view}`);
        compared++;
      }
    }
    assert.ok(compared > 900, `${compared} comparisons`);
  });

  it('rewinds changes recorded alone exactly as states recorded every tick', () => {
    const random = prng(seed ^ 0x5eed);
    const every = lag();
    const changes = lag();
    const values: (Soldier | null)[] = [null, null, null, null, null];
    for (let tick = 1; tick <= 50; tick++) {
      for (let id = 0; id < values.length; id++) {
        let v = values[id];
        if (v === null) {
          // Entities appear at different ticks; then most ticks leave each one unchanged.
          if (random() < 0.2) values[id] = v = soldier(random() * 100);
          if (v !== null) changes.recordChange(tick, id, v);
        } else if (random() < 0.3) {
          v.position = [v.position[0] + random() * 4 - 2, v.position[1], random()];
          v.hp = Math.floor(random() * 101);
          if (random() < 0.1) v.teleported = !v.teleported;
          changes.recordChange(tick, id, v);
        }
        if (v !== null) every.record(tick, id, v);
      }
      changes.advance(tick);
    }
    assert.equal(changes.presentTick, every.presentTick);
    for (let n = 0; n < 400; n++) {
      const view = 1 + random() * 49.5;
      const tick = Math.floor(view);
      const a = collect(every, 0, tick, view - tick);
      const b = collect(changes, 0, tick, view - tick);
      assert.deepEqual(b.seen, a.seen, `at ${view}`);
      assert.equal(b.outcome.claim, a.outcome.claim);
    }
    // Holding, then blending over the tick before the change only.
    const lc = lag();
    lc.recordChange(1, 0, soldier(0));
    lc.recordChange(5, 0, soldier(8));
    assert.deepEqual(collect(lc, 0, 3, 0.5).seen.get(0)?.position, [0, 0, 0]);
    assert.deepEqual(collect(lc, 0, 4, 0.25).seen.get(0)?.position, [2, 0, 0]);
    lc.advance(9);
    assert.equal(lc.presentTick, 9);
    assert.deepEqual(collect(lc, 0, 8, 0.5).seen.get(0)?.position, [8, 0, 0]);
    assert.throws(() => lc.advance(-1), RangeError);
    assert.throws(() => lc.recordChange(4, 0, soldier(1)), RangeError, 'before entity 0');
  });

  it('recordFrom every tick keeps one state of an entity at rest and rewinds exactly as record', () => {
    const random = prng(seed ^ 0xf00d);
    const world = new ServerWorld({ types: [SoldierType], capacity: 8 });
    const fromWorld = lag({ historySeconds: 0.5 });
    const every = lag({ historySeconds: 0.5 });
    const resting = world.create(SoldierType, soldier(3));
    const moving = world.create(SoldierType, soldier(10));
    for (let tick = 1; tick <= 120; tick++) {
      if (random() < 0.4) world.set(moving, soldier(10 + random() * 20, random() * 4));
      world.tick();
      for (const entity of [resting, moving]) {
        fromWorld.recordFrom(world, entity);
        every.record(world.serverTick, entity.id, world.get(entity));
      }
    }
    assert.equal(fromWorld.presentTick, every.presentTick);
    for (let n = 0; n < 300; n++) {
      const view = 80 + random() * 41;
      const tick = Math.floor(view);
      const x = random() * 30;
      const volume = [x, -1, -1, x + 4, 6, 1];
      for (const v of [ALL, volume]) {
        const a = collect(every, 0, tick, view - tick, v);
        const b = collect(fromWorld, 0, tick, view - tick, v);
        assert.deepEqual(b.seen, a.seen, `at ${view}`);
        assert.deepEqual(b.outcome, a.outcome, `at ${view}`);
      }
    }
    // The ring grows only while its oldest state is still claimable: never past historyTicks + 1.
    // `stride` numbers per state in an entity's ring (its tick, box, change flag and state).
    const ring = (lc: LagCompensation<Soldier>, id: number) => {
      const inner = (lc as unknown as { rings: { rings: Float64Array[]; stride: number } }).rings;
      return inner.rings[id].length / inner.stride;
    };
    assert.ok(ring(fromWorld, resting.id) <= 4, `${ring(fromWorld, resting.id)} states at rest`);
    assert.equal(ring(every, resting.id), every.historyTicks + 1);
    assert.ok(ring(fromWorld, moving.id) <= fromWorld.historyTicks + 1);
  });

  it('holds the values clients decode (quantized), from a value or from the world', () => {
    const lc = lag();
    lc.record(1, 5, { ...soldier(1.234567), radius: 0.51 });
    const world = new ServerWorld({ types: [SoldierType], capacity: 4 });
    const entity = world.create(SoldierType, soldier(7.891011));
    assert.throws(() => lc.recordFrom(world, entity), RangeError, 'not ticked yet');
    world.tick();
    lc.recordFrom(world, entity);
    const { seen } = collect(lc, 0, 1, 0);
    assert.notEqual(seen.get(5)?.position[0], 1.234567, 'rounded to the step');
    assert.deepEqual(seen.get(5), layout.dequantize(quantized({ ...soldier(1.234567), radius: 0.51 })));
    assert.deepEqual(seen.get(entity.id), world.get(entity));
  });

  it('skips entities whose swept box misses the volume, without calling the test', () => {
    const lc = lag();
    // Entity 0 moves from x=0 to x=10 between ticks 1 and 2; entity 1 stays at x=100.
    lc.record(1, 0, soldier(0));
    lc.record(2, 0, soldier(10));
    lc.record(1, 1, soldier(100));
    lc.record(2, 1, soldier(100));
    const box = (x0: number, x1: number) => [x0, -1, -1, x1, 1, 1];
    // Between the two states: x=5 at fraction 0.5, inside [4, 6].
    let r = collect(lc, 0, 1, 0.5, box(4, 6));
    assert.deepEqual([...r.seen.keys()], [0]);
    assert.deepEqual(r.seen.get(0)?.position, [5, 0, 0]);
    assert.deepEqual([r.outcome.entities, r.outcome.skipped], [1, 1]);
    // Far from both: nothing tested.
    r = collect(lc, 0, 1, 0.5, box(40, 50));
    assert.equal(r.seen.size, 0);
    assert.equal(r.outcome.skipped, 2);
    // The swept box is conservative: [-1, 11] is tested though the blend (x=1) is outside [8, 9].
    r = collect(lc, 0, 1, 0.1, box(8, 9));
    assert.deepEqual([...r.seen.keys()], [0]);
    assert.deepEqual(lc.stats(0), {
      rewinds: 3,
      tooOld: 0,
      tooNew: 0,
      refused: 0,
      entitiesTested: 2,
      entitiesSkipped: 4,
    });
  });

  it('snaps across a teleport exactly as the client does', () => {
    const lc = lag();
    lc.record(1, 0, soldier(0));
    lc.record(2, 0, soldier(100, 0, true));
    assert.deepEqual(collect(lc, 0, 1, 0.9).seen.get(0)?.position, [0, 0, 0]);
    assert.deepEqual(collect(lc, 0, 2, 0).seen.get(0)?.position, [100, 0, 0]);
  });

  it('keeps a bounded history: old ticks are dropped and claims beyond them clamped', () => {
    const lc = lag({ historySeconds: 0.5, tickRate: 20 });
    assert.equal(lc.historyTicks, 10);
    for (let tick = 1; tick <= 100; tick++) lc.record(tick, 0, soldier(tick));
    assert.equal(lc.presentTick, 100);
    assert.equal(lc.oldestTick, 90);
    assert.deepEqual(collect(lc, 0, 90, 0).seen.get(0)?.position, [90, 0, 0]);
    // Tick 89 is gone: the claim is too old and, by default, tested at the present.
    const old = collect(lc, 0, 89, 0.5);
    assert.equal(old.outcome.claim, 'too-old');
    assert.equal(old.outcome.tick, 100);
    assert.deepEqual(old.seen.get(0)?.position, [100, 0, 0]);
  });

  it('handles claims beyond the clamp as the game chose, counting them per client', () => {
    const present = lag();
    const oldest = lag({ beyondClamp: 'oldest' });
    const refuse = lag({ beyondClamp: 'refuse' });
    for (const lc of [present, oldest, refuse])
      for (let tick = 1; tick <= 200; tick++) lc.record(tick, 0, soldier(tick));
    // The clamp: 60 ticks (one second) before tick 200.
    assert.deepEqual(collect(present, 3, 100, 0).seen.get(0)?.position, [200, 0, 0]);
    assert.deepEqual(collect(oldest, 3, 100, 0).seen.get(0)?.position, [140, 0, 0]);
    const refused = collect(refuse, 3, 100, 0);
    assert.equal(refused.seen.size, 0);
    assert.deepEqual(refused.outcome, {
      claim: 'too-old',
      tested: false,
      tick: Number.NaN,
      entities: 0,
      skipped: 0,
    });
    // Newer than the present: tested at the present unless refused.
    assert.deepEqual(collect(oldest, 3, 200, 0.5).seen.get(0)?.position, [200, 0, 0]);
    assert.equal(collect(refuse, 3, 250, 0).outcome.claim, 'too-new');
    assert.equal(collect(refuse, 3, 199, 0.25).outcome.claim, 'ok');
    assert.deepEqual(refuse.stats(3), {
      rewinds: 3,
      tooOld: 1,
      tooNew: 1,
      refused: 2,
      entitiesTested: 1,
      entitiesSkipped: 0,
    });
    assert.equal(refuse.stats(2).rewinds, 0, 'counted per client');
    refuse.resetStats(3);
    assert.equal(refuse.stats(3).rewinds, 0);
  });

  it('forgets removed entities and does not rewind an entity before it was recorded', () => {
    const lc = lag();
    lc.record(5, 0, soldier(0));
    lc.record(10, 1, soldier(1));
    assert.deepEqual([...collect(lc, 0, 7, 0).seen.keys()], [0]);
    lc.remove(0);
    assert.equal(lc.size, 1);
    assert.deepEqual([...collect(lc, 0, 10, 0).seen.keys()], [1]);
    lc.record(11, 0, soldier(50));
    assert.deepEqual(collect(lc, 0, 11, 0).seen.get(0)?.position, [50, 0, 0]);
    assert.equal(collect(lc, 0, 10, 0).seen.has(0), false, 'the old life is gone');
  });

  it('throws for the caller misuse, never for a remote claim', () => {
    const lc = lag({ maxClients: 4 });
    const empty = collect(lc, 0, 5, 0);
    assert.equal(empty.outcome.tested, false, 'nothing recorded yet');
    lc.record(3, 0, soldier(0));
    const noop = () => {};
    for (const [client, tick, fraction, volume] of [
      [4, 1, 0, ALL],
      [-1, 1, 0, ALL],
      [0.5, 1, 0, ALL],
      [0, Number.NaN, 0, ALL],
      [0, Number.POSITIVE_INFINITY, 0, ALL],
      [0, 1, Number.NaN, ALL],
      [0, 1, 1.5, ALL],
      [0, 1, -0.1, ALL],
      [0, 1, 0, [0, 0, 0, 1, 1]],
      [0, 1, 0, [0, 0, 0, 1, Number.NaN, 1]],
      [0, 1, 0, [2, 0, 0, 1, 1, 1]],
    ] as const)
      assert.throws(() => lc.rewind(client, tick, fraction, volume, noop), RangeError);
    assert.throws(() => lc.record(2, 0, soldier(0)), RangeError, 'time going back');
    assert.throws(() => lc.record(4.5, 0, soldier(0)), RangeError);
    assert.throws(() => lc.record(4, 64, soldier(0)), RangeError);
    assert.throws(() => lc.record(4, 0, { ...soldier(0), hp: 101 }), RangeError);
    const bad = lag({ bounds: (_s, out) => out.fill(Number.NaN) });
    assert.throws(() => bad.record(1, 0, soldier(0)), RangeError);
    assert.equal(bad.size, 0, 'a refused record changes nothing');
    assert.throws(() => lc.stats(4), RangeError);
    assert.throws(() => lag({ historySeconds: 0 }), RangeError);
    assert.throws(() => lag({ beyondClamp: 'later' as never }), RangeError);
    // Remote claims far away are outcomes, not throws.
    assert.equal(lc.rewind(0, -1e9, 0, ALL, noop).claim, 'too-old');
    assert.equal(lc.rewind(0, 1e9, 0, ALL, noop).claim, 'too-new');
  });
});
