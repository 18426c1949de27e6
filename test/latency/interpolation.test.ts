import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { t } from '../../src/index.js';
import { compileInterpolator, GhostSampler, interpolationDelayTicks } from '../../src/latency/index.js';
import { prng } from '../../src/random/prng.js';
import { compileLayout } from '../../src/replication/entity-layout.js';
import { EntityHistory } from '../../src/replication/index.js';
import { testSeed } from '../support/seed.js';

const seed = testSeed('interpolation');

const Mob = t.object({
  position: t.vector3(t.float(-512, 512, 0.01)),
  speed: t.float32(),
  rotation: t.smallestThree(),
  facing: t.quaternion(),
  hp: t.int(0, 100),
  alive: t.bool(),
  mood: t.enum(['calm', 'angry']),
  name: t.string(16),
  path: t.array(t.float32(), 4),
  gear: t.object({ level: t.uint8(), weight: t.float32() }),
  teleported: t.bool(),
});
type Mob = typeof Mob extends import('../../src/index.js').Schema<infer T> ? T : never;
type Quat = [number, number, number, number];

function unitQuaternion(random: () => number): Quat {
  const q: Quat = [random() * 2 - 1, random() * 2 - 1, random() * 2 - 1, random() * 2 - 1];
  const n = Math.hypot(...q);
  return q.map((c) => c / n) as Quat;
}

function mob(random: () => number): Mob {
  // Now and then -0, which the blend must give back exactly at an end and in a snapped lane.
  const f = () => (random() < 1 / 8 ? -0 : Math.round((random() * 200 - 100) * 100) / 100);
  return {
    position: [f(), f(), f()],
    speed: f(),
    rotation: unitQuaternion(random),
    facing: unitQuaternion(random),
    hp: Math.floor(random() * 101),
    alive: random() < 0.5,
    mood: random() < 0.5 ? 'calm' : 'angry',
    name: random() < 0.5 ? 'orc' : 'goblin',
    path: Array.from({ length: 1 + Math.floor(random() * 3) }, f),
    gear: { level: Math.floor(random() * 256), weight: f() },
    teleported: false,
  };
}

const between = (v: number, a: number, b: number) => v >= Math.min(a, b) - 1e-9 && v <= Math.max(a, b) + 1e-9;
const dot = (a: ArrayLike<number>, b: ArrayLike<number>) =>
  a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
/** The angle between two rotations (q and −q are the same rotation). */
const angle = (a: ArrayLike<number>, b: ArrayLike<number>) => 2 * Math.acos(Math.min(1, Math.abs(dot(a, b))));

describe('compileInterpolator', () => {
  const lerp = compileInterpolator(Mob);

  it('keeps floats between the two states, rotations unit and on the shortest arc, snaps the rest', () => {
    const random = prng(seed);
    const out = {} as Mob;
    for (let n = 0; n < 500; n++) {
      const a = mob(random);
      const b = mob(random);
      const f = random();
      lerp.interpolate(a, b, f, out);
      for (let i = 0; i < 3; i++) assert.ok(between(out.position[i], a.position[i], b.position[i]));
      assert.ok(between(out.speed, a.speed, b.speed));
      assert.ok(between(out.gear.weight, a.gear.weight, b.gear.weight));
      for (const key of ['rotation', 'facing'] as const) {
        assert.ok(Math.abs(Math.hypot(...out[key]) - 1) < 1e-9, `${key} is unit`);
        // On the shorter arc from a to b: the two parts add up to the whole.
        const whole = angle(a[key], b[key]);
        assert.ok(Math.abs(angle(a[key], out[key]) + angle(out[key], b[key]) - whole) < 1e-6);
        assert.ok(whole <= Math.PI + 1e-9);
      }
      const older = f < 1 ? a : b;
      assert.equal(out.hp, older.hp);
      assert.equal(out.alive, older.alive);
      assert.equal(out.mood, older.mood);
      assert.equal(out.name, older.name);
      assert.equal(out.gear.level, older.gear.level);
      if (a.path.length === b.path.length)
        for (let i = 0; i < a.path.length; i++) assert.ok(between(out.path[i], a.path[i], b.path[i]));
      // A snapped lane is its sample exactly (deepStrictEqual tells -0 from 0).
      else assert.deepEqual(out.path, f < 1 ? a.path : b.path, 'a snapped array is the older, exactly');
      assert.notEqual(out.path, a.path, 'a snapped array is copied, not shared');
    }
  });

  // The rule: a blend at fraction 0 is the older state and at 1 the newer, every number the very
  // same (-0 included), generated code and closures alike; a user drawing does not care about -0,
  // but a state blended at its own tick, or a snapped lane, must be the sample it shows.
  it('gives the older at 0 and the newer at 1 exactly, -0 included, discrete kinds and snapped lanes too', () => {
    const random = prng(seed + 1);
    const closures = compileInterpolator(Mob, { codegen: false });
    for (let n = 0; n < 300; n++) {
      const a = mob(random);
      const b = random() < 0.5 ? { ...mob(random), path: a.path.map((x) => x + 1) } : mob(random);
      for (const blend of [lerp, closures]) {
        assert.deepEqual(blend.interpolate(a, b, 0, {} as Mob), a);
        assert.deepEqual(blend.interpolate(a, b, 1, {} as Mob), b);
      }
    }
  });

  it('a snapped lane is its sample exactly: an array of -0 blended at 0 stays -0', () => {
    const a = { ...mob(prng(seed + 7)), path: [1, -0] } as Mob;
    const b = { ...a, path: [2, 3, 4] } as Mob;
    for (const blend of [lerp, compileInterpolator(Mob, { codegen: false })]) {
      const out = blend.interpolate(a, b, 0.25, {} as Mob);
      assert.ok(Object.is(out.path[1], -0), `${blend.compiled ? 'generated' : 'closures'}: ${out.path[1]}`);
      assert.ok(Object.is(blend.interpolate(a, b, 0, {} as Mob).path[1], -0));
    }
  });

  it('extrapolates floats linearly past 1, clamped to a quantized range; rotations hold', () => {
    const a = { ...mob(prng(seed + 2)), position: [0, 500, 0], speed: 1 } as Mob;
    const b = { ...a, position: [10, 510, 0], speed: 2 } as Mob;
    const out = lerp.interpolate(a, b, 1.5, {} as Mob);
    assert.deepEqual(out.position, [15, 512, 0]);
    assert.equal(out.speed, 2.5);
    assert.deepEqual(out.rotation, b.rotation);
  });

  it('reuses the output object and its nested parts', () => {
    const random = prng(seed + 3);
    const out = {} as Mob;
    const a = mob(random);
    lerp.interpolate(a, a, 0.5, out);
    const { position, gear, rotation } = out;
    lerp.interpolate(mob(random), mob(random), 0.5, out);
    assert.equal(out.position, position);
    assert.equal(out.gear, gear);
    assert.equal(out.rotation, rotation);
  });

  it('snaps the whole value across a teleport flag change', () => {
    const teleporting = compileInterpolator(Mob, { teleportField: 'teleported' });
    const a = mob(prng(seed + 4));
    const b = { ...a, position: [100, 100, 100], teleported: true } as Mob;
    assert.deepEqual(teleporting.interpolate(a, b, 0.5, {} as Mob).position, a.position);
    assert.deepEqual(teleporting.interpolate(a, b, 1, {} as Mob).position, b.position);
    const c = { ...b, position: [110, 100, 100] } as Mob;
    assert.deepEqual(teleporting.interpolate(b, c, 0.5, {} as Mob).position, [105, 100, 100]);
    assert.throws(() => compileInterpolator(Mob, { teleportField: 'hp' }), RangeError);
  });

  it('refuses a bad fraction and a non-object schema', () => {
    const a = mob(prng(seed + 5));
    for (const f of [Number.NaN, -0.1, Number.POSITIVE_INFINITY])
      assert.throws(() => lerp.interpolate(a, a, f, {} as Mob), RangeError);
    assert.throws(() => compileInterpolator(t.float32() as never), RangeError);
  });
});

describe('GhostSampler', () => {
  const Dot = t.object({ x: t.float32(), hp: t.int(0, 100) });
  type Dot = { x: number; hp: number };
  const layout = compileLayout(Dot);
  const lerp = compileInterpolator(Dot);
  function push(history: EntityHistory, tick: number, value: Dot): void {
    layout.quantize(value, history.slotFor(tick));
  }

  it('interpolates between the states around the render tick, never back in time, bounded when starved', () => {
    const random = prng(seed + 6);
    const history = new EntityHistory(layout as never, 8);
    const sampler = new GhostSampler(lerp, { maxExtrapolationTicks: 2 });
    const received: { tick: number; x: number }[] = [];
    let x = 0;
    const modes = new Set<string>();
    let shown = Number.NEGATIVE_INFINITY;
    for (let tick = 1; tick < 400; tick++) {
      // About 60% of the states arrive (loss, a sending rate below the tick rate), none during an
      // outage of 20 ticks (starving the buffer).
      if (random() < 0.6 && !(tick >= 200 && tick < 220)) {
        x = Math.fround(x + (random() * 20 - 10));
        push(history, tick, { x, hp: tick % 101 });
        received.push({ tick, x });
      }
      // Four ticks behind, wobbling: sometimes asking for the past.
      const value = sampler.sample(history, tick - 4 + (random() * 1.6 - 0.8));
      if (value === null) continue;
      const t = sampler.shownTick;
      assert.ok(t >= shown, `never back in time: ${t} after ${shown}`);
      shown = t;
      modes.add(sampler.mode);
      const last = received.length - 1;
      if (sampler.mode === 'interpolated') {
        const i = received.findIndex((r) => r.tick > t);
        const a = received[i < 0 ? last : i - 1];
        const b = received[i < 0 ? last : i];
        assert.ok(between(value.x, a.x, b.x), `x ${value.x} between ${a.x} and ${b.x}`);
        assert.equal(value.hp, a.tick % 101, 'ints snap to the older');
      } else if (last >= 1 && (sampler.mode === 'extrapolated' || sampler.mode === 'held')) {
        const [a, b] = received.slice(-2);
        assert.ok(t <= b.tick + 2);
        const bound = Math.abs(b.x - a.x) * (2 / (b.tick - a.tick)) + 1e-9;
        assert.ok(Math.abs(value.x - b.x) <= bound, 'extrapolation bounded');
      }
    }
    assert.deepEqual([...modes].sort(), ['extrapolated', 'held', 'interpolated', 'oldest']);
    assert.ok(sampler.starved > 0 && sampler.held > 0, `starved ${sampler.starved}, held ${sampler.held}`);
  });

  it('holds at the bound past the newest state, and shows the oldest before the history', () => {
    const history = new EntityHistory(layout as never, 4);
    const sampler = new GhostSampler(lerp);
    assert.equal(sampler.sample(history, 5), null);
    push(history, 10, { x: 0, hp: 1 });
    assert.deepEqual(sampler.sample(history, 5), { x: 0, hp: 1 });
    assert.equal(sampler.mode, 'oldest');
    push(history, 12, { x: 4, hp: 2 });
    assert.deepEqual(sampler.sample(history, 11), { x: 2, hp: 1 });
    assert.deepEqual(sampler.sample(history, 13), { x: 6, hp: 2 });
    assert.equal(sampler.mode, 'extrapolated');
    assert.deepEqual(sampler.sample(history, 20), { x: 8, hp: 2 });
    assert.equal(sampler.mode, 'held');
    assert.equal(sampler.shownTick, 14);
    // Asking for the past again shows tick 20's value, not an older one.
    assert.deepEqual(sampler.sample(history, 11), { x: 8, hp: 2 });
    sampler.reset();
    assert.deepEqual(sampler.sample(history, 11), { x: 2, hp: 1 });
    assert.throws(() => sampler.sample(history, Number.NaN), RangeError);
    const other = new EntityHistory(compileLayout(t.object({ y: t.float32() })) as never, 2);
    assert.throws(() => sampler.sample(other, 1), TypeError);
  });

  it('shows a ghost where it stopped once snapshots past the render tick brought no change; extrapolates only while they are late', () => {
    const history = new EntityHistory(layout as never, 4);
    const sampler = new GhostSampler(lerp);
    push(history, 10, { x: 0, hp: 1 });
    push(history, 12, { x: 4, hp: 2 });
    // Snapshots up to tick 13 only: 13 is within them (it rests), 13.5 is not (late: extrapolated).
    assert.deepEqual(sampler.sample(history, 13, 13), { x: 4, hp: 2 });
    assert.equal(sampler.mode, 'resting');
    assert.equal(sampler.shownTick, 13);
    assert.deepEqual(sampler.sample(history, 13.5, 13), { x: 7, hp: 2 });
    assert.equal(sampler.mode, 'extrapolated');
    // The snapshot of tick 20 came without a change: where it stopped, at the render tick.
    assert.deepEqual(sampler.sample(history, 16, 20), { x: 4, hp: 2 });
    assert.equal(sampler.mode, 'resting');
    assert.equal(sampler.shownTick, 16, 'never back in time');
    assert.equal(sampler.starved, 1, 'resting is not starving');
    // It moves again: interpolated between the state it rested in and the new one, as before.
    push(history, 18, { x: 6, hp: 3 });
    const moving = sampler.sample(history, 17, 20)!;
    assert.ok(Math.abs(moving.x - (4 + (2 * 5) / 6)) < 1e-9, `x ${moving.x}`);
    assert.equal(sampler.mode, 'interpolated');
    assert.throws(() => sampler.sample(history, 18, Number.NaN), RangeError);
  });

  it('computes the Fiedler delay', () => {
    assert.equal(interpolationDelayTicks(3), 9);
    assert.equal(interpolationDelayTicks(2, 2.5), 5);
    assert.throws(() => interpolationDelayTicks(0), RangeError);
  });
});
