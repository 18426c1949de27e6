import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { measureDelta, PreviousChanges, readDelta, writeDelta } from '../../src/replication/entity-delta.js';
import type { LaneState } from '../../src/replication/lane-state.js';
import { DELTA_BITS, DELTA_LOW } from '../../src/replication/lane-value.js';
import { compileLayout } from '../../src/replication/layout.js';
import { t } from '../../src/schema/schema.js';
import { ReadStream } from '../../src/serialize/read-stream.js';
import { WriteStream } from '../../src/serialize/write-stream.js';

/** The entity delta codec's rotation lanes and its runs of deltas (the repeat prefix). */

const Cube = t.object({
  position: t.vector3(t.float(-32, 32, 1 / 512)),
  orientation: t.smallestThree(9),
  rest: t.bool(),
});
const cube = compileLayout(Cube);
const ws = new WriteStream(4096);
const rs = new ReadStream();
/** The delta classes, and the prefix of an absolute value (as many ones as classes). */
const ABSOLUTE: [number, number] = [2 ** DELTA_LOW.length - 1, DELTA_LOW.length];

function encode(state: LaneState, base: LaneState | null) {
  ws.reset();
  writeDelta(ws, cube, state, base);
  const bits = ws.bitsProcessed;
  return { bits, bytes: ws.finish().slice() };
}

function decode(bytes: Uint8Array, base: LaneState | null) {
  const out = cube.createState();
  rs.reset(bytes);
  const ok = readDelta(rs, cube, base, out) && rs.end();
  return { ok, out, error: rs.error };
}

function assertSameState(a: LaneState, b: LaneState): void {
  assert.deepEqual(a.lanes, b.lanes);
  assert.equal(a.blobs.length, b.blobs.length);
}

describe('replication delta: rotation lanes', () => {
  const turned = (angle: number, axis: 0 | 1 | 2 = 2) => {
    const q: [number, number, number, number] = [0, 0, 0, Math.cos(angle / 2)];
    q[axis] = Math.sin(angle / 2);
    const s = cube.createState();
    cube.quantize({ position: [1, 2, 0.5], orientation: q, rest: false }, s);
    return s;
  };
  const ORIENTATION = 3;
  const lane = cube.lanes[ORIENTATION];

  it('sends a small turn per component, and a new largest component whole', () => {
    assert.equal(lane.rotation, 9);
    const base = turned(0.3);
    const small = turned(0.32);
    // Flags 5; the rotation: 1, then per component a bit and, for the one that moved, its delta.
    assert.ok(measureDelta(cube, small, base) < 5 + 29, `${measureDelta(cube, small, base)} bits`);
    const flipped = turned(3.0); // w no longer the largest: the whole lane, after its 0 bit
    assert.notEqual(flipped.lanes[ORIENTATION] & 3, base.lanes[ORIENTATION] & 3);
    assert.equal(measureDelta(cube, flipped, base), 5 + 1 + 29);
    for (const s of [small, flipped, turned(0.9, 0)]) {
      const { bits, bytes } = encode(s, base);
      assert.equal(bits, measureDelta(cube, s, base));
      const read = decode(bytes, base);
      assert.ok(read.ok, read.error ?? '');
      assertSameState(read.out, s);
    }
  });

  it('refuses a component sent unchanged or moved out of its range', () => {
    const base = turned(0.3);
    const c0 = (base.lanes[ORIENTATION] >>> 2) & 511;
    assert.ok(c0 + DELTA_LOW.at(-1)! + 2 ** DELTA_BITS.at(-1)! - 1 > 511);
    const cases: [string, (w: WriteStream) => void, RegExp][] = [
      [
        'unchanged',
        (w) => {
          w.bits(...ABSOLUTE);
          w.bits(c0, 9);
        },
        /component 0 sent unchanged/,
      ],
      [
        'out of range',
        (w) => {
          // The last class at its largest, upward from about the middle of [0, 511].
          const c = DELTA_LOW.length - 1;
          w.bits(2 ** c - 1, c + 1);
          w.bits((2 ** DELTA_BITS[c] - 1) << 1, 1 + DELTA_BITS[c]);
        },
        /delta leaves the lane's range \[0, 511\]/,
      ],
    ];
    for (const [name, component, reason] of cases) {
      ws.reset();
      ws.bits(0b1000, 4); // flags of the three position lanes (0), then the orientation's (1)
      ws.bits(1, 1); // the component form
      ws.bits(1, 1); // component 0 changed
      component(ws);
      ws.bits(0, 2); // components 1, 2 unchanged
      ws.bits(0, 1); // rest unchanged
      rs.reset(ws.finish().slice());
      assert.equal(readDelta(rs, cube, base, cube.createState()), false, name);
      assert.match(rs.error ?? '', reason, name);
    }
  });
});

describe('replication delta: runs with the repeat bit', () => {
  const moved = (x: number, y: number, turn: number) => {
    const s = cube.createState();
    cube.quantize(
      { position: [x, y, 0.5], orientation: [0, 0, Math.sin(turn), Math.cos(turn)], rest: false },
      s,
    );
    return s;
  };
  const base = moved(0, 0, 0);

  it('costs 1 bit instead of the flags when the same lanes change as in the delta before', () => {
    const a = moved(0.01, 0.02, 0);
    const b = moved(-0.01, 0.03, 0);
    const c = moved(0.01, 0.02, 0.2);
    const writer = new PreviousChanges();
    const reader = new PreviousChanges();
    ws.reset();
    const sizes: number[] = [];
    for (const s of [a, b, c]) {
      const expected = measureDelta(cube, s, base, writer);
      const before = ws.bitsProcessed;
      writeDelta(ws, cube, s, base, writer);
      sizes.push(ws.bitsProcessed - before);
      assert.equal(ws.bitsProcessed - before, expected, 'measure is exact');
    }
    // a: the flags (5) alone; b: the repeat bit in place of the flags; c: the bit, then flags.
    const values = (s: LaneState) => measureDelta(cube, s, base) - 5;
    assert.deepEqual(sizes, [5 + values(a), 1 + values(b), 1 + 5 + values(c)]);
    rs.reset(ws.finish().slice());
    for (const s of [a, b, c]) {
      const out = cube.createState();
      assert.ok(readDelta(rs, cube, base, out, reader), rs.error ?? '');
      assertSameState(out, s);
    }
  });

  it('names the set before the newest in 2 bits (01), and neither in 2 (00) once two are held', () => {
    const a = moved(0.01, 0.02, 0); // x, y
    const c = moved(0.01, 0.02, 0.2); // x, y, orientation
    const z = moved(0, 0, 0.3); // orientation alone
    const writer = new PreviousChanges();
    ws.reset();
    const sizes: number[] = [];
    for (const s of [a, c, a, z]) {
      const expected = measureDelta(cube, s, base, writer);
      const before = ws.bitsProcessed;
      writeDelta(ws, cube, s, base, writer);
      assert.equal(ws.bitsProcessed - before, expected, 'measure is exact');
      sizes.push(expected);
    }
    const values = (s: LaneState) => measureDelta(cube, s, base) - 5;
    assert.deepEqual(sizes, [5 + values(a), 1 + 5 + values(c), 2 + values(a), 2 + 5 + values(z)]);
    rs.reset(ws.finish().slice());
    const reader = new PreviousChanges();
    for (const s of [a, c, a, z]) {
      const out = cube.createState();
      assert.ok(readDelta(rs, cube, base, out, reader), rs.error ?? '');
      assertSameState(out, s);
    }
  });

  it('fails loudly on misuse: a lane bound past 256, a layout wider than the bound', () => {
    assert.throws(() => new PreviousChanges(257), RangeError);
    const narrow = new PreviousChanges(4);
    ws.reset();
    assert.throws(() => writeDelta(ws, cube, moved(0.01, 0, 0), base, narrow), /more than 4/);
  });

  it('has no repeat bit after a delta of another layout, nor after a reset', () => {
    const other = compileLayout(t.object({ hp: t.int(0, 100) }));
    const previous = new PreviousChanges();
    const a = moved(0.01, 0.02, 0);
    ws.reset();
    writeDelta(ws, cube, a, base, previous);
    const turned = moved(0.01, 0.02, 0.2);
    assert.equal(measureDelta(cube, turned, base, previous), 1 + measureDelta(cube, turned, base));
    const hp = other.createState();
    hp.lanes[0] = 7;
    assert.equal(measureDelta(other, hp, null, previous), measureDelta(other, hp, null), 'another layout');
    previous.reset();
    assert.equal(
      measureDelta(cube, turned, base, previous),
      measureDelta(cube, turned, base),
      'after a reset',
    );
  });

  it('refuses a repeat whose lane comes unchanged (a class-0 delta of 0 cannot be written)', () => {
    const previous = new PreviousChanges();
    const a = moved(0.01, 0.02, 0);
    ws.reset();
    writeDelta(ws, cube, a, base, previous);
    // Repeat: x, y changed; x absolute (1111) equal to the baseline's x.
    ws.bits(1, 1);
    ws.bits(...ABSOLUTE);
    ws.bits(base.lanes[0], 16);
    ws.bits(0, 8);
    rs.reset(ws.finish().slice());
    const reader = new PreviousChanges();
    assert.ok(readDelta(rs, cube, base, cube.createState(), reader));
    assert.equal(readDelta(rs, cube, base, cube.createState(), reader), false);
    assert.match(rs.error ?? '', /\.position\[0\]: lane sent unchanged/);
  });
});
