import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { valueArb } from '../../scripts/fuzz-core.js';
import { measureDelta, readDelta, writeDelta } from '../../src/replication/entity-delta.js';
import type { LaneState } from '../../src/replication/lane-state.js';
import { DELTA_BITS, DELTA_LOW } from '../../src/replication/lane-value.js';
import { compileLayout } from '../../src/replication/layout.js';
import { pastRange } from '../../src/replication/plan.js';
import { t } from '../../src/schema/schema.js';
import { ReadStream } from '../../src/serialize/read-stream.js';
import { WriteStream } from '../../src/serialize/write-stream.js';
import { EveryKind } from '../support/every-kind.js';
import { testSeed } from '../support/seed.js';

/** The entity delta codec: round trips, exact measures, and hostile input refused with a reason. */
const SEED = testSeed('replication delta');

const Cube = t.object({
  position: t.vector3(t.float(-32, 32, 1 / 512)),
  orientation: t.smallestThree(9),
  rest: t.bool(),
});

/** The delta classes, and the prefix of an absolute value (as many ones as classes). */
const CLASSES = DELTA_LOW.length;
const ABSOLUTE: [number, number] = [2 ** CLASSES - 1, CLASSES];

const everyKind = compileLayout(EveryKind);
const cube = compileLayout(Cube);
const ws = new WriteStream(4096);
const rs = new ReadStream();

function encode<T>(layout: ReturnType<typeof compileLayout<T>>, state: LaneState, base: LaneState | null) {
  ws.reset();
  writeDelta(ws, layout, state, base);
  const bits = ws.bitsProcessed;
  return { bits, bytes: ws.finish().slice() };
}

function decode<T>(layout: ReturnType<typeof compileLayout<T>>, bytes: Uint8Array, base: LaneState | null) {
  const out = layout.createState();
  rs.reset(bytes);
  const ok = readDelta(rs, layout, base, out) && rs.end();
  return { ok, out, error: rs.error };
}

function assertSameState(a: LaneState, b: LaneState): void {
  assert.deepEqual(a.lanes, b.lanes);
  assert.equal(a.blobs.length, b.blobs.length);
  for (let i = 0; i < a.blobs.length; i++) assert.deepEqual(a.blobs[i], b.blobs[i]);
}

/** A baseline and a state derived from it: random lanes moved by small or large steps, or replaced. */
const pairArb = fc
  .tuple(
    valueArb(EveryKind),
    valueArb(EveryKind),
    fc.array(
      fc.tuple(
        fc.nat(everyKind.lanes.length - 1),
        fc.oneof(
          fc.integer({ min: -8, max: 8 }),
          fc.integer({ min: -700, max: 700 }),
          fc.integer({ min: -(2 ** 32), max: 2 ** 32 }),
          fc.constant(Number.NaN), // take the lane from the other value
        ),
      ),
      { maxLength: 12 },
    ),
    fc.array(fc.boolean(), { minLength: everyKind.blobs.length, maxLength: everyKind.blobs.length }),
  )
  .map(([a, b, moves, takeBlob]) => {
    const base = everyKind.createState();
    const other = everyKind.createState();
    everyKind.quantize(a as never, base);
    everyKind.quantize(b as never, other);
    const state = everyKind.createState();
    everyKind.copyState(base, state);
    for (const [i, step] of moves) {
      const max = everyKind.lanes[i].max;
      state.lanes[i] = Number.isNaN(step)
        ? other.lanes[i]
        : Math.min(max, Math.max(0, state.lanes[i] + step));
    }
    // Lanes moved one by one can take a split int64 past its range: keep such a pair as it was.
    for (const range of everyKind.wordRanges) {
      if (pastRange(range, state.lanes)) {
        state.lanes[range.low] = base.lanes[range.low];
        state.lanes[range.low + 1] = base.lanes[range.low + 1];
      }
    }
    takeBlob.forEach((take, i) => {
      if (take) state.blobs[i] = other.blobs[i];
    });
    return { base, state };
  });

describe('replication delta', () => {
  it('round trips random states against random baselines and against nothing; measure is exact (property)', () => {
    fc.assert(
      fc.property(pairArb, ({ base, state }) => {
        for (const baseline of [base, null]) {
          const { bits, bytes } = encode(everyKind, state, baseline);
          assert.equal(measureDelta(everyKind, state, baseline), bits);
          const read = decode(everyKind, bytes, baseline);
          assert.ok(read.ok, read.error ?? '');
          assertSameState(read.out, state);
        }
        // Every byte-truncation is refused (each cuts at least one bit the reader needs).
        const { bytes } = encode(everyKind, state, base);
        for (let n = 0; n < bytes.length; n++) {
          const read = decode(everyKind, bytes.subarray(0, n), base);
          assert.equal(read.ok, false);
          assert.match(read.error ?? '', /at bit \d+/);
        }
      }),
      { seed: SEED, numRuns: 300 },
    );
  });

  it('sends an unchanged entity as its flags alone, and a fresh one against the zero state', () => {
    const state = cube.createState();
    cube.quantize({ position: [0, 0, 0], orientation: [0, 0, 0, 1], rest: false }, state);
    assert.equal(measureDelta(cube, state, state), 5);
    const zero = cube.createState();
    assert.equal(measureDelta(cube, zero, null), 5);
  });

  it('picks the cheapest class: each class boundary round trips at its size', () => {
    const base = cube.createState();
    base.lanes[0] = 20000;
    const state = cube.createState();
    cube.copyState(base, state);
    const flags = 5;
    DELTA_LOW.forEach((low, c) => {
      const high = low + 2 ** DELTA_BITS[c] - 1;
      for (const d of [low, -low, high, -high]) {
        state.lanes[0] = base.lanes[0] + d;
        assert.equal(measureDelta(cube, state, base), flags + 1 + c + 1 + DELTA_BITS[c], `d = ${d}`);
        const read = decode(cube, encode(cube, state, base).bytes, base);
        assert.ok(read.ok, read.error ?? '');
        assert.equal(read.out.lanes[0], state.lanes[0]);
      }
    });
    const last = DELTA_LOW.length - 1;
    state.lanes[0] = base.lanes[0] + DELTA_LOW[last] + 2 ** DELTA_BITS[last];
    assert.equal(measureDelta(cube, state, base), flags + CLASSES + 16, 'past the classes: absolute');
  });

  it('uses the list form when few of many lanes change', () => {
    const layout = compileLayout(t.object({ grid: t.tuple(t.uint16(), 40) }));
    const base = layout.createState();
    const state = layout.createState();
    state.lanes[7] = 3;
    state.lanes[30] = 60000;
    // tag + (2 + 1) indices of 6 bits + a class-0 delta (4) + an absolute (6 + 16)
    assert.equal(measureDelta(layout, state, base), 1 + 18 + 4 + CLASSES + 16);
    const read = decode(layout, encode(layout, state, base).bytes, base);
    assert.ok(read.ok, read.error ?? '');
    assertSameState(read.out, state);
    state.lanes.fill(9);
    assert.equal(
      measureDelta(layout, state, base),
      1 + 40 + 40 * 6,
      'flags form when most change (class-1 deltas of 9: 2 + 1 + 3 bits)',
    );
  });
});

describe('replication delta: hostile input', () => {
  /** Hand-made input: fields of given widths, least significant first. */
  function bitsOf(fields: [number, number][]): Uint8Array {
    ws.reset();
    for (const [value, width] of fields) ws.bits(value, width);
    return ws.finish().slice();
  }
  const layout = compileLayout(t.object({ a: t.float(0, 1, 0.001), b: t.uint8(), s: t.string(4) }));
  // a: maxInteger 1000 in 10 bits, delta-capable; b: 8 bits, delta-capable; s: blob of <= 6 bytes.

  it('refuses a lane above its max, a delta out of range, an unchanged lane', () => {
    const base = layout.createState();
    base.lanes[0] = 5;
    base.lanes[1] = 250;
    const cases: [string, [number, number][], RegExp][] = [
      [
        'absolute above max',
        [[1, 1], ABSOLUTE, [1001, 10], [0, 1], [0, 1]],
        /\.a: lane value above its max 1000/,
      ],
      [
        'delta below zero',
        [
          [1, 1],
          [0b01, 2], // class 1: |d| = 5 + offset
          [1 | (1 << 1), 4], // negative, 6: 5 - 6
          [0, 1],
          [0, 1],
        ],
        /\.a: delta leaves the lane's range/,
      ],
      [
        'delta above max',
        [
          [0, 1],
          [1, 1],
          [0b01, 2],
          [1 << 1, 4], // positive, 6: 250 + 6
          [0, 1],
        ],
        /\.b: delta leaves the lane's range \[0, 255\]/,
      ],
      ['unchanged', [[1, 1], ABSOLUTE, [5, 10], [0, 1], [0, 1]], /\.a: lane sent unchanged/],
    ];
    for (const [name, fields, reason] of cases) {
      rs.reset(bitsOf(fields));
      const out = layout.createState();
      assert.equal(readDelta(rs, layout, base, out), false, name);
      assert.match(rs.error ?? '', reason, name);
    }
  });

  it('refuses bad blobs: too long, past the end, not decodable, unchanged', () => {
    const base = layout.createState();
    const cases: [string, [number, number][], RegExp][] = [
      [
        'too long',
        [
          [0, 1],
          [0, 1],
          [1, 1],
          [7, 3],
        ],
        /\.s: blob longer than 6 bytes/,
      ],
      [
        'past the end',
        [
          [0, 1],
          [0, 1],
          [1, 1],
          [6, 3],
          [0, 8],
        ],
        /\.s: blob past the end/,
      ],
      [
        'bad utf-8',
        [
          [0, 1],
          [0, 1],
          [1, 1],
          [2, 3],
          [1, 8],
          [0xff, 8],
        ],
        /\.s: blob does not decode: .*UTF-8/,
      ],
      [
        'trailing bytes',
        [
          [0, 1],
          [0, 1],
          [1, 1],
          [3, 3],
          [1, 8],
          [0x61, 8],
          [0x62, 8],
        ],
        /\.s: blob does not decode: trailing/,
      ],
      [
        'unchanged',
        [
          [0, 1],
          [0, 1],
          [1, 1],
          [0, 3],
        ],
        /\.s: blob sent unchanged/,
      ],
    ];
    for (const [name, fields, reason] of cases) {
      rs.reset(bitsOf(fields));
      assert.equal(readDelta(rs, layout, base, layout.createState()), false, name);
      assert.match(rs.error ?? '', reason, name);
    }
  });

  it("refuses a blob kept as the zero state's empty placeholder, unless its codec reads it", () => {
    // Against nothing, "unchanged" keeps the zero state's empty blob, which t.string(4) never
    // writes: accepted, it left a state that does not dequantize.
    rs.reset(
      bitsOf([
        [0, 1],
        [0, 1],
        [0, 1],
      ]),
    );
    assert.equal(readDelta(rs, layout, null, layout.createState()), false);
    assert.match(rs.error ?? '', /\.s: blob missing against the zero state at bit 3/);
    // A field that can take no bits encodes as the empty blob: that one is a state.
    const none = compileLayout(t.object({ s: t.string(0), b: t.uint8() }));
    const state = none.createState();
    none.quantize({ s: '', b: 3 }, state);
    const read = decode(none, encode(none, state, null).bytes, null);
    assert.ok(read.ok, read.error ?? '');
    assert.deepEqual(none.dequantize(read.out), { s: '', b: 3 });
  });

  it('refuses the mutated delta GW_SEED=1983811534 found: two flips leave .maybe as the placeholder', () => {
    const state = everyKind.createState();
    state.lanes.set([
      1, 0, 381, 0, 381, 5, 1, 256, 1, 320, 1, 1, 1, 10000, 1, 1, 2147483648, 2147483648, 2147483648,
      268960768, 4261404670, 0, 200, 200, 200, 1, 1, 61, 0, 1, 125,
    ]);
    const blobs = [[2, 194, 128], [2, 194, 128], [7, 0, 0, 0, 0, 0, 0, 0], [0], [0], [0, 0]];
    blobs.forEach((b, i) => {
      state.blobs[i] = Uint8Array.from(b);
    });
    everyKind.dequantize(state); // the state is valid
    const { bytes } = encode(everyKind, state, null);
    for (const flip of [1023326935, 932511700]) bytes[(flip >>> 3) % bytes.length] ^= 1 << (flip & 7);
    const read = decode(everyKind, bytes, null);
    assert.equal(read.ok, false);
    assert.match(read.error ?? '', /\.maybe: blob missing against the zero state at bit \d+/);
  });

  it('refuses the two words of a split int64 past its range, each within its lane', () => {
    const wide = compileLayout(t.object({ big: t.int64(0n, 1n << 40n) }));
    assert.deepEqual(
      wide.lanes.map((l) => [l.path, l.bits, l.max]),
      [
        ['.big#0', 32, 0xffffffff],
        ['.big#1', 9, 511],
      ],
    );
    // The range's top, 2^40: low word 0 (unchanged from zero), high word 256.
    const top: [number, number][] = [
      [0, 1],
      [1, 1],
      [256, 9],
    ];
    rs.reset(bitsOf(top));
    assert.ok(readDelta(rs, wide, null, wide.createState()), rs.error ?? '');
    rs.reset(
      bitsOf([
        [1, 1],
        [1, 32],
        [1, 1],
        [256, 9],
      ]),
    );
    assert.equal(readDelta(rs, wide, null, wide.createState()), false);
    assert.match(rs.error ?? '', /\.big: int64 words past the range/);
    const bad = wide.createState();
    bad.lanes[0] = 1;
    bad.lanes[1] = 256;
    assert.throws(() => writeDelta(ws, wide, bad, null), /\.big is past its int64 range/);
  });

  it('refuses list indices out of order or past the lanes', () => {
    const grid = compileLayout(t.object({ grid: t.tuple(t.uint8(), 20) }));
    const base = grid.createState();
    const value = (v: number): [number, number][] => [ABSOLUTE, [v, 8]];
    const cases: [string, [number, number][], RegExp][] = [
      ['repeat', [[1, 1], [3, 5], ...value(1), [3, 5], ...value(2), [20, 5]], /not strictly increasing/],
      [
        'past',
        [
          [1, 1],
          [21, 5],
        ],
        /lane index 21 past the 20 lanes/,
      ],
    ];
    for (const [name, fields, reason] of cases) {
      rs.reset(bitsOf(fields));
      assert.equal(readDelta(rs, grid, base, grid.createState()), false, name);
      assert.match(rs.error ?? '', reason, name);
    }
  });

  it('never throws on random bytes, and reads no more than the input holds (property)', () => {
    const base = everyKind.createState();
    everyKind.quantize(fc.sample(valueArb(EveryKind), { seed: SEED, numRuns: 1 })[0] as never, base);
    const out = everyKind.createState();
    let refused = 0;
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 120 }), fc.boolean(), (bytes, against) => {
        rs.reset(bytes);
        const ok = readDelta(rs, everyKind, against ? base : null, out);
        assert.ok(rs.bitsProcessed <= bytes.length * 8);
        if (!ok) {
          refused++;
          assert.match(rs.error ?? '', /.+ at bit \d+/);
        }
      }),
      { seed: SEED, numRuns: 3000 },
    );
    assert.ok(refused > 0);
  });

  it('accepts a mutated delta only as a valid state: it dequantizes and re-encodes (property)', () => {
    let accepted = 0;
    let refused = 0;
    fc.assert(
      fc.property(
        pairArb,
        fc.array(fc.nat(), { minLength: 1, maxLength: 4 }),
        fc.boolean(),
        ({ base, state }, flips, against) => {
          const baseline = against ? base : null;
          const { bytes } = encode(everyKind, state, baseline);
          for (const flip of flips)
            if (bytes.length > 0) bytes[(flip >>> 3) % bytes.length] ^= 1 << (flip & 7);
          const read = decode(everyKind, bytes, baseline);
          if (!read.ok) {
            refused++;
            assert.match(read.error ?? '', /.+ at bit \d+/);
            return;
          }
          accepted++;
          // What a reader accepts is always a state a writer could hold.
          everyKind.dequantize(read.out);
          const again = encode(everyKind, read.out, baseline);
          assert.equal(measureDelta(everyKind, read.out, baseline), again.bits);
        },
      ),
      { seed: SEED, numRuns: 1000 },
    );
    assert.ok(accepted > 0 && refused > 0, `accepted ${accepted}, refused ${refused}`);
  });

  it('fails loudly on misuse: a state of another layout, out as the baseline, a lane above its max', () => {
    const base = layout.createState();
    assert.throws(
      () => measureDelta(layout, cube.createState(), null),
      /expected a state of 2 lanes and 1 blobs/,
    );
    assert.throws(() => readDelta(rs, layout, base, base), /out must not be the baseline/);
    const bad = layout.createState();
    bad.lanes[0] = 1001;
    assert.throws(() => writeDelta(ws, layout, bad, null), /lane \.a holds 1001 > max 1000/);
  });
});
