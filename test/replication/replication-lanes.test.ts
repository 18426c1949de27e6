import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { sameBytes } from '../../scripts/bytes.js';
import { valueArb } from '../../scripts/fuzz-core.js';
import { compileLayout } from '../../src/replication/layout.js';
import { MAX_SCALAR_LANES } from '../../src/replication/plan.js';
import { compile } from '../../src/schema/codec.js';
import { SchemaValueError } from '../../src/schema/interpret.js';
import { t } from '../../src/schema/schema.js';
import { EveryKind } from '../support/every-kind.js';
import { testSeed } from '../support/seed.js';

/** Layout compilation and quantization: lanes hold exactly what the schema codec sends. */
const SEED = testSeed('replication lanes');

const Cube = t.object({
  id: t.uint16(),
  position: t.vector3(t.float(-32, 32, 1 / 512)),
  orientation: t.smallestThree(9),
  rest: t.bool(),
});

describe('replication lanes: layout', () => {
  it('flattens a cube into five lanes with paths, widths and delta flags', () => {
    const layout = compileLayout(Cube);
    assert.deepEqual(
      layout.lanes.map((l) => [l.index, l.path, l.bits, l.max, l.delta]),
      [
        [0, '.id', 16, 0xffff, true],
        [1, '.position[0]', 16, 32768, true],
        [2, '.position[1]', 16, 32768, true],
        [3, '.position[2]', 16, 32768, true],
        [4, '.orientation', 29, 2 ** 29 - 1, false],
        [5, '.rest', 1, 1, false],
      ],
    );
    assert.equal(layout.blobs.length, 0);
  });

  it('gives every kind its lanes: wide leaves split in words, variable subtrees as blobs', () => {
    const layout = compileLayout(EveryKind);
    const byPath = new Map(layout.lanes.map((l) => [l.path, l]));
    assert.deepEqual([...byPath.keys()].slice(0, 6), ['.flag', '.small', '.wide', '.byte', '.bits', '.near']);
    assert.equal(byPath.has('.constant'), false, 'a zero-width int has no lane');
    assert.equal(byPath.has('.only'), false, 'a one-value enum has no lane');
    assert.deepEqual(
      ['.small', '.wide', '.bits', '.near', '.quantized', '.velocity[2]'].map((p) => byPath.get(p)?.delta),
      [false, true, true, true, true, true],
      'numeric lanes of 8 bits or more are delta-capable',
    );
    for (const p of [
      '.flag',
      '.kind',
      '.single',
      '.raw[3]',
      '.turn',
      '.far#0',
      '.far#1',
      '.big#1',
      '.double#0',
    ]) {
      assert.equal(byPath.get(p)?.delta, false, p);
    }
    assert.deepEqual(
      ['.far#0', '.far#1', '.big#0', '.big#1', '.fine#0', '.fine#1'].map((p) => byPath.get(p)?.bits),
      [32, 10, 32, 32, 32, 6],
    );
    assert.equal(byPath.get('.kind')?.max, 2);
    assert.equal(byPath.get('.quantized')?.max, 20000);
    assert.deepEqual(
      ['.pair[1].a', '.pair[1].b', '.nested.hp', '.nested.mixed.n'].map((p) => byPath.get(p)?.bits),
      [8, 1, 7, 8],
    );
    assert.deepEqual(
      layout.blobs.map((b) => [b.index, b.path, b.maxBytes]),
      [
        [0, '.nested.mixed.name', 14],
        [1, '.name', 22],
        [2, '.payload', 11],
        [3, '.items', 6],
        [4, '.maybe', 2],
        [5, '.words', 9],
      ],
    );
  });

  it('refuses a schema that is not an object, and too many lanes', () => {
    assert.throws(() => compileLayout(t.uint8() as never), /needs a t\.object schema.*got int/);
    assert.throws(() => compileLayout(t.array(t.uint8(), 3) as never), /got array/);
    assert.throws(
      () => compileLayout(t.object({ grid: t.tuple(t.uint8(), MAX_SCALAR_LANES + 1) })),
      /more than 256 scalar lanes \(at \.grid\[256\]\)/,
    );
    assert.equal(compileLayout(t.object({ grid: t.tuple(t.uint8(), MAX_SCALAR_LANES) })).lanes.length, 256);
    assert.throws(
      () => compileLayout(t.object({ log: t.array(t.string(65535), 0xffffffff) })),
      /\.log can take more than 2\^32 - 1 bytes/,
    );
  });
});

describe('replication lanes: quantize', () => {
  it('holds the codec bits: value - min for ints, the compressed integer for floats', () => {
    const layout = compileLayout(Cube);
    const state = layout.createState();
    layout.quantize({ id: 7, position: [-32, 0, 32], orientation: [0, 0, 0, 1], rest: true }, state);
    assert.deepEqual([...state.lanes.slice(0, 4)], [7, 0, 16384, 32768]);
    assert.equal(state.lanes[5], 1);
    // For an all-fixed schema the lanes, concatenated, are the codec's encoding.
    const codec = compile(Cube);
    const value = {
      id: 9,
      position: [1.5, -2.25, 3] as [number, number, number],
      orientation: [0.5, 0.5, 0.5, 0.5] as [number, number, number, number],
      rest: false,
    };
    layout.quantize(value, state);
    let bits = 0n;
    let at = 0n;
    for (const lane of layout.lanes) {
      bits |= BigInt(state.lanes[lane.index]) << at;
      at += BigInt(lane.bits);
    }
    const encoded = codec.encode(value);
    let expected = 0n;
    for (let i = encoded.length - 1; i >= 0; i--) expected = (expected << 8n) | BigInt(encoded[i]);
    assert.equal(bits, expected);
  });

  it('refuses a bad value naming its path and leaves the state as it was', () => {
    const layout = compileLayout(EveryKind);
    const codec = compile(EveryKind);
    const good = fc.sample(valueArb(EveryKind), { seed: SEED, numRuns: 1 })[0] as never;
    const state = layout.createState();
    layout.quantize(good, state);
    const lanes = state.lanes.slice();
    const blobs = [...state.blobs];
    const cases: [string, (v: Record<string, unknown>) => void, RegExp][] = [
      [
        '.velocity[1]',
        (v) => ((v.velocity as number[])[1] = 'x' as never),
        /^\.velocity\[1\]: expected a number/,
      ],
      ['.small', (v) => (v.small = 4), /^\.small: .*outside \[-3, 3\]/],
      ['.kind', (v) => (v.kind = 'fly'), /^\.kind: /],
      ['.turn', (v) => (v.turn = [0, 0, 0, 2]), /^\.turn: .*length/],
      [
        '.pair[1].b',
        (v) => ((v.pair as unknown[])[1] = { a: 1, b: 1 }),
        /^\.pair\[1\]\.b: expected a boolean/,
      ],
      [
        '.nested.mixed.name',
        (v) => ((v.nested as { mixed: { name: string } }).mixed.name = 'x'.repeat(13)),
        /^\.nested\.mixed\.name: /,
      ],
      ['.constant', (v) => (v.constant = 8), /^\.constant: /],
      ['.position', (v) => (v.velocity = [1, 2]), /^\.velocity: expected an array of exactly 3 items/],
    ];
    for (const [path, spoil, message] of cases) {
      const bad = structuredClone(good) as Record<string, unknown>;
      spoil(bad);
      assert.throws(
        () => layout.quantize(bad as never, state),
        (e: unknown) => e instanceof SchemaValueError && message.test(e.message),
        path,
      );
      // The schema codec refuses the same value.
      assert.throws(() => codec.encode(bad as never), SchemaValueError, path);
      assert.deepEqual(state.lanes, lanes, `${path}: lanes untouched`);
      assert.deepEqual(state.blobs, blobs, `${path}: blobs untouched`);
    }
    assert.throws(
      () => layout.quantize(good, { lanes: new Uint32Array(3), blobs: [] }),
      /expected a state of/,
    );
  });

  it('dequantizes to what the codec decodes, and re-quantizing is a fixed point (property)', () => {
    const layout = compileLayout(EveryKind);
    const codec = compile(EveryKind);
    const state = layout.createState();
    const again = layout.createState();
    const reused = layout.dequantize(stateOf(layout, EveryKind));
    fc.assert(
      fc.property(valueArb(EveryKind), (value) => {
        layout.quantize(value as never, state);
        const expected = codec.decode(codec.encode(value as never));
        assert.ok(expected.ok);
        const fresh = layout.dequantize(state);
        assert.deepEqual(fresh, expected.value);
        // In place: the same object comes back, filled with the same value.
        const filled = layout.dequantize(state, reused);
        assert.equal(filled, reused);
        assert.deepEqual(filled, expected.value);
        // Re-quantizing is a fixed point wherever the codec's own re-encoding is one (smallest
        // three is not, at a near tie of its two largest components).
        const once = codec.encode(value as never).slice();
        layout.quantize(fresh, again);
        if (sameBytes(codec.encode(fresh), once)) {
          assert.deepEqual(again.lanes, state.lanes);
          for (let i = 0; i < state.blobs.length; i++) assert.deepEqual(again.blobs[i], state.blobs[i]);
        }
        // Unchanged blobs keep their array: saved states share them.
        const before = [...again.blobs];
        layout.quantize(fresh, again);
        for (let i = 0; i < before.length; i++) assert.equal(again.blobs[i], before[i]);
      }),
      { seed: SEED, numRuns: 300 },
    );
  });
});

/** A state holding a valid value (a zero state's empty blobs need not decode). */
function stateOf<T>(layout: ReturnType<typeof compileLayout<T>>, schema: typeof EveryKind) {
  const state = layout.createState();
  layout.quantize(fc.sample(valueArb(schema), { seed: SEED, numRuns: 1 })[0] as never, state);
  return state;
}
