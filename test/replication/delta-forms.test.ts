/**
 * DeltaForms (the shared deltas' one-pass encoder) writes bit for bit what encodeDelta writes
 * for the full and for the repeat form, and the changed lanes' mask, for plain, delta, wide
 * (absolute past 32 bits), rotation and blob lanes, for layouts past the flags-only lane count
 * and past the lanes a mask holds.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { prng, randomInt } from '../../src/random/prng.js';
import { DeltaForms } from '../../src/replication/delta-forms.js';
import { encodeDelta } from '../../src/replication/entity-delta.js';
import type { EntityLayout } from '../../src/replication/entity-layout.js';
import { defineEntity } from '../../src/replication/index.js';
import type { LaneState } from '../../src/replication/lane-state.js';
import { type Schema, t } from '../../src/schema/schema.js';
import { WriteStream } from '../../src/serialize/write-stream.js';
import { testSeed } from '../support/seed.js';

const SEED = testSeed('delta forms tests');

const layoutOf = <T>(name: string, schema: Schema<T>): EntityLayout<unknown> =>
  defineEntity(name, schema).layout as EntityLayout<unknown>;

const layouts: Record<string, EntityLayout<unknown>> = {
  w4: layoutOf(
    'w4',
    t.object({
      x: t.float(0, 2000, 1 / 64),
      y: t.float(0, 2000, 1 / 64),
      heading: t.float(0, 2 * Math.PI, 0.01),
      kind: t.int(0, 3),
    }),
  ),
  mixed: layoutOf(
    'mixed',
    t.object({
      q: t.smallestThree(),
      on: t.bool(),
      big: t.uint32(),
      e: t.enum(['a', 'b', 'c']),
      f: t.float(-1, 1, 0.001),
      name: t.string(8),
    }),
  ),
  wide: layoutOf(
    'wide',
    t.object(Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`v${i}`, t.uint8()]))),
  ),
  // Past the 31 lanes a mask holds, with blobs.
  many: layoutOf(
    'many',
    t.object({
      v: t.tuple(t.float(-50, 50, 0.01), 34),
      tag: t.string(4),
      list: t.array(t.uint8(), 3),
    }),
  ),
};

/** The words as a WriteStream holds them. */
function wordsWritten(words: Uint32Array, bits: number): [number, number[]] {
  return written((ws) => {
    let left = bits;
    for (let i = 0; left > 0; i++, left -= 32) ws.bits(words[i], Math.min(32, left));
  });
}

function written(write: (ws: WriteStream) => void): [number, number[]] {
  const ws = new WriteStream(2048);
  write(ws);
  return [ws.bitsProcessed, Array.from(ws.finish())];
}

/** A lane value near `base` (small or large steps) or anywhere in [0, max]. */
function near(next: () => number, base: number, max: number): number {
  const r = next();
  if (r < 0.25) return base;
  if (r < 0.5) return randomInt(next, max + 1);
  const step = 1 + randomInt(next, r < 0.8 ? 30 : 600);
  const v = next() < 0.5 ? base - step : base + step;
  return v < 0 || v > max ? base : v;
}

describe('DeltaForms', () => {
  it('covers rotation, wide and many-lane layouts', () => {
    assert.ok(layouts.mixed.lanes.some((lane) => lane.rotation > 0));
    assert.ok(layouts.mixed.lanes.some((lane) => lane.bits === 32));
    assert.ok(layouts.wide.lanes.length > 8);
    assert.ok(layouts.many.lanes.length > 31 && layouts.many.blobs.length === 2);
  });
  for (const [name, layout] of Object.entries(layouts)) {
    it(`writes what encodeDelta writes for both forms (${name})`, () => {
      const next = prng(SEED);
      const forms = new DeltaForms(layout);
      const base: LaneState = layout.createState();
      const state: LaneState = layout.createState();
      let compared = 0;
      for (let round = 0; round < 400; round++) {
        for (let i = 0; i < layout.lanes.length; i++) {
          const max = layout.lanes[i].max;
          base.lanes[i] = randomInt(next, Math.min(max, 2 ** 31 - 1) + 1);
          state.lanes[i] = near(next, base.lanes[i], max);
        }
        for (let i = 0; i < layout.blobs.length; i++) {
          base.blobs[i] = Uint8Array.from({ length: randomInt(next, 3) }, () => randomInt(next, 256));
          state.blobs[i] = next() < 0.5 ? base.blobs[i] : Uint8Array.of(randomInt(next, 256));
        }
        // Now and then against the zero state, as an absolute delta.
        const against = next() < 0.1 ? layout.zero : base;
        forms.encode(state, against);
        const got = [wordsWritten(forms.full, forms.fullBits), wordsWritten(forms.repeat, forms.repeatBits)];
        let mask = 0;
        for (let i = 0; i < Math.min(31, layout.lanes.length); i++)
          if (state.lanes[i] !== against.lanes[i]) mask |= 1 << i;
        assert.equal(forms.mask, mask, `round ${round} mask`);
        assert.deepEqual(
          got[0],
          written((ws) => encodeDelta(ws, layout, state, against, false)),
          `round ${round} full`,
        );
        assert.deepEqual(
          got[1],
          written((ws) => encodeDelta(ws, layout, state, against, true)),
          `round ${round} repeat`,
        );
        compared++;
      }
      assert.equal(compared, 400);
    });
  }
});
