import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Soldier, SoldierType } from '../../bench/support/soldier.js';
import { t } from '../../src/index.js';
import {
  type BeyondClamp,
  compileInterpolator,
  type Interpolator,
  LagCompensation,
} from '../../src/latency/index.js';
import { prng } from '../../src/random/prng.js';
import { testSeed } from '../support/seed.js';

const seed = testSeed('lag-compensation-reference');

const layout = SoldierType.layout;
const lerp = compileInterpolator(Soldier, { teleportField: 'teleported' });
/** Without generated code the rings keep state objects; with it, numbers (lag-states.ts). */
const closures = compileInterpolator(Soldier, { teleportField: 'teleported', codegen: false });
const TICK_RATE = 60;
const HISTORY_SECONDS = 0.25;
const IDS = 12;

function bounds(s: Soldier, out: Float64Array): void {
  for (let a = 0; a < 3; a++) {
    out[a] = s.position[a] - s.radius;
    out[a + 3] = s.position[a] + s.radius;
  }
}

interface Held {
  tick: number;
  state: Soldier;
  box: Float64Array;
  change: boolean;
}

/**
 * The rewind rules written the plain way: every state kept (an array per entity, searched from
 * the end), the claim clamped, the state at or before it blended with the next (held until the
 * tick before a change). The real one keeps bounded rings; for every claim it must agree.
 */
class Reference {
  readonly held = new Map<number, Held[]>();
  present = -1;

  constructor(
    readonly historyTicks: number,
    readonly beyond: BeyondClamp,
    readonly interpolator: Interpolator<Soldier>,
  ) {}

  record(tick: number, id: number, value: Soldier, change: boolean): void {
    const lanes = layout.createState();
    layout.quantize(value, lanes);
    const state = layout.dequantize(lanes);
    const box = new Float64Array(6);
    bounds(state, box);
    let list = this.held.get(id);
    if (list === undefined) {
      list = [];
      this.held.set(id, list);
    }
    // A change flag is read only on the state after the one blended from: the first's never is.
    const entry = { tick, state, box, change };
    if (list.length > 0 && list[list.length - 1].tick === tick) list[list.length - 1] = entry;
    else list.push(entry);
    this.present = Math.max(this.present, tick);
  }

  rewind(tick: number, fraction: number, volume: number[]) {
    const seen = new Map<number, Soldier>();
    const claimed = tick + fraction;
    const oldest = this.present - this.historyTicks;
    let at = claimed;
    let claim = 'ok';
    if (claimed > this.present) {
      claim = 'too-new';
      at = this.present;
    } else if (claimed < oldest) {
      claim = 'too-old';
      at = this.beyond === 'oldest' ? oldest : this.present;
    }
    if (claim !== 'ok' && this.beyond === 'refuse') return { claim, seen, skipped: 0 };
    let skipped = 0;
    for (const [id, list] of this.held) {
      let n = list.length - 1;
      while (n >= 0 && list[n].tick > at) n--;
      if (n < 0) continue;
      const k = list[n];
      let j = n + 1 < list.length ? list[n + 1] : k;
      let t0 = k.tick;
      if (j !== k && j.change) {
        const held = j.tick - 1;
        if (at <= held) j = k;
        else if (held > t0) t0 = held;
      }
      let overlap = true;
      for (let a = 0; a < 3; a++) {
        const min = Math.min(k.box[a], j.box[a]);
        const max = Math.max(k.box[a + 3], j.box[a + 3]);
        if (min > volume[a + 3] || max < volume[a]) overlap = false;
      }
      if (!overlap) {
        skipped++;
        continue;
      }
      const f = j === k ? 0 : (at - t0) / (j.tick - t0);
      seen.set(id, structuredClone(this.interpolator.interpolate(k.state, j.state, f, undefined as never)));
    }
    return { claim, seen, skipped };
  }
}

function soldier(random: () => number): Soldier {
  return {
    position: [random() * 40, random() * 40, random() * 2],
    facing: [0, 0, 0, 1],
    radius: 0.5 + random(),
    hp: Math.floor(random() * 101),
    teleported: random() < 0.5,
  };
}

describe('LagCompensation against a plain reference', () => {
  for (const [beyond, interpolator] of [
    ['present', lerp],
    ['oldest', lerp],
    ['refuse', lerp],
    ['present', closures],
  ] as const) {
    const kept = interpolator.compiled ? 'numbers' : 'objects';
    it(`rewinds as the reference over random records, changes, removals and claims (${beyond}, ${kept})`, () => {
      const random = prng((seed ^ (beyond.length + (interpolator.compiled ? 0 : 16))) >>> 0);
      const lc = new LagCompensation({
        interpolator,
        bounds,
        tickRate: TICK_RATE,
        capacity: 16,
        historySeconds: HISTORY_SECONDS,
        beyondClamp: beyond,
        layout,
      });
      const reference = new Reference(lc.historyTicks, beyond, interpolator);
      const values: (Soldier | null)[] = new Array(IDS).fill(null);
      let compared = 0;
      for (let tick = 1; tick <= 240; tick++) {
        for (let id = 0; id < IDS; id++) {
          const roll = random();
          if (roll < 0.01) {
            lc.remove(id);
            reference.held.delete(id);
            values[id] = null;
            continue;
          }
          // Busy entities change most ticks, quiet ones seldom: rings both full and short.
          if (random() > (id < 4 ? 0.9 : 0.15)) continue;
          const v = values[id] ?? soldier(random);
          v.position = [v.position[0] + random() * 2 - 1, v.position[1] + random() * 2 - 1, random()];
          if (random() < 0.05) v.teleported = !v.teleported;
          values[id] = v;
          const change = random() < 0.7;
          // Now and then the same tick twice: the second replaces the first.
          const times = random() < 0.05 ? 2 : 1;
          for (let n = 0; n < times; n++) {
            if (change) lc.recordChange(tick, id, v);
            else lc.record(tick, id, v);
            reference.record(tick, id, v, change);
          }
        }
        lc.advance(tick);
        reference.present = Math.max(reference.present, tick);
        for (let n = 0; n < 6; n++) {
          const view = tick - random() * (lc.historyTicks + 6) + random() * 2;
          const base = Math.floor(view);
          const x = random() * 40;
          const y = random() * 40;
          const volume = random() < 0.2 ? [-1e9, -1e9, -1e9, 1e9, 1e9, 1e9] : [x, y, 0, x + 8, y + 8, 2];
          const seen = new Map<number, Soldier>();
          const outcome = lc.rewind(0, base, view - base, volume, (id, s) =>
            seen.set(id, structuredClone(s)),
          );
          const expected = reference.rewind(base, view - base, volume);
          const at = `tick ${tick}, view ${view}`;
          assert.equal(outcome.claim, expected.claim, at);
          assert.deepEqual(seen, expected.seen, at);
          assert.equal(outcome.entities, expected.seen.size, at);
          assert.equal(outcome.skipped, expected.skipped, at);
          compared += seen.size;
        }
      }
      assert.ok(compared > 1000, `${compared} states compared`);
    });
  }
});

describe('LagCompensation state storage', () => {
  it('refuses a state of the wrong shape (no layout to check it) and changes nothing', () => {
    const lc = new LagCompensation({ interpolator: lerp, bounds, tickRate: TICK_RATE, capacity: 4 });
    const good = soldier(prng(seed));
    lc.record(1, 0, good);
    for (const bad of [
      { ...good, hp: '5' },
      { ...good, teleported: 1 },
      { ...good, position: [1, 2, 3, 4] },
      { ...good, facing: null },
    ])
      assert.throws(() => lc.record(2, 0, bad as unknown as Soldier), TypeError);
    assert.equal(lc.presentTick, 1);
    const seen: Soldier[] = [];
    lc.rewind(0, 1, 0, [-1e9, -1e9, -1e9, 1e9, 1e9, 1e9], (_id, s) => seen.push(structuredClone(s)));
    assert.deepEqual(seen, [lerp.interpolate(good, good, 0, undefined as never)]);
  });

  it('keeps objects for a schema with a leaf that is not a number (a string), rewinding alike', () => {
    const Tagged = t.object({ x: t.float64(), tag: t.string(16) });
    type Tagged = { x: number; tag: string };
    const lc = new LagCompensation<Tagged>({
      interpolator: compileInterpolator(Tagged),
      bounds: (s, out) => {
        out[0] = out[3] = s.x;
        out[1] = out[2] = out[4] = out[5] = 0;
      },
      tickRate: TICK_RATE,
      capacity: 4,
    });
    lc.record(1, 2, { x: 0, tag: 'a' });
    lc.record(3, 2, { x: 8, tag: 'b' });
    const seen: Tagged[] = [];
    lc.rewind(0, 2, 0.5, [-1e9, -1e9, -1e9, 1e9, 1e9, 1e9], (_id, s) => seen.push({ ...s }));
    assert.deepEqual(seen, [{ x: 6, tag: 'a' }]);
  });
});
