/**
 * SharedDeltas, the server's per-tick cache of encoded entity deltas: what it measures and copies
 * is bit for bit what writeDelta writes, for every baseline the history holds, with more
 * baselines per entity than it keeps, after the pass that encodes ahead, for states longer than
 * a word or far longer (a long string), and for layouts of few lanes (held in the entry), past
 * the flags-only lane count and past the lanes a mask holds.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { prng, randomInt } from '../../src/random/prng.js';
import { PreviousChanges, writeDelta } from '../../src/replication/entity-delta.js';
import { defineEntity, ServerWorld } from '../../src/replication/index.js';
import { SharedDeltas } from '../../src/replication/shared-deltas.js';
import { t } from '../../src/schema/schema.js';
import { WriteStream } from '../../src/serialize/write-stream.js';
import { testSeed } from '../support/seed.js';

const SEED = testSeed('shared deltas tests');

const Thing = defineEntity(
  'thing',
  t.object({ x: t.float(-100, 100, 1 / 64), hp: t.int(0, 1000), name: t.string(2000) }),
);
type ThingValue = { x: number; hp: number; name: string };
/** Past the flags-only lane count (8): the list form, entries in the pool. */
const Wide = defineEntity('wide', t.object({ v: t.tuple(t.int(0, 300), 12) }));
/** Past the 31 lanes a mask holds: the repeat form matched against the states. */
const Many = defineEntity('many', t.object({ v: t.tuple(t.uint8(), 33), on: t.bool() }));

function bytesOf(write: (ws: WriteStream) => void): { bytes: number[]; bits: number } {
  const ws = new WriteStream(8192);
  write(ws);
  const bits = ws.bitsProcessed;
  return { bytes: Array.from(ws.finish()), bits };
}

describe('SharedDeltas', () => {
  it('measures and writes exactly what writeDelta writes, against every baseline and none', () => {
    const next = prng(SEED);
    const world = new ServerWorld({ types: [Thing, Wide, Many], capacity: 8, historyLength: 8 });
    const deltas = new SharedDeltas(world);
    const value = (): ThingValue => ({
      x: Math.round((next() * 200 - 100) * 64) / 64,
      hp: randomInt(next, 1001),
      // Now and then longer than the cache's first scratch buffer (256 bytes).
      name: 'n'.repeat(next() < 0.2 ? 300 + randomInt(next, 1500) : randomInt(next, 20)),
    });
    const lanes = (n: number, max: number, old: number[] | null) =>
      Array.from({ length: n }, (_, i) =>
        old !== null && next() < 0.6
          ? old[i]
          : Math.min(max, Math.max(0, (old?.[i] ?? 0) + randomInt(next, 41) - 20)),
      );
    const things = Array.from({ length: 3 }, () => world.create(Thing, value()));
    const wide = world.create(Wide, { v: lanes(12, 300, null) });
    const many = world.create(Many, { v: lanes(33, 255, null), on: false });
    const entities = [...things, wide, many];
    world.tick();
    for (let round = 0; round < 60; round++) {
      for (const e of things) if (next() < 0.7) world.set(e, value());
      if (next() < 0.7) world.set(wide, { v: lanes(12, 300, world.get(wide).v) });
      if (next() < 0.7) world.set(many, { v: lanes(33, 255, world.get(many).v), on: next() < 0.5 });
      // The pass that encodes ahead: on alternate ticks, by the world during its tick (as the
      // world's recorder, as a ReplicationServer sets it) every fourth, by prepare every second.
      world.recorder = round % 4 === 1 ? deltas : undefined;
      const tick = world.tick();
      if (round % 2 === 0) deltas.prepare();
      for (const e of entities) {
        const history = world.histories[e.id]!;
        // Every tick back to the oldest held (more than the ways kept per entity), and absolute,
        // in a random order, each asked twice (the second from the cache).
        const bases = [-1];
        for (let b = tick - 1; b >= world.oldestTicks[e.id] && b >= 0; b--) bases.push(b);
        for (let i = 0; i < bases.length * 2; i++) {
          const base = bases[randomInt(next, bases.length)];
          const expected = bytesOf((ws) =>
            writeDelta(ws, history.layout, history.latest!, base < 0 ? null : history.at(base)),
          );
          assert.equal(deltas.measure(e.id, base), expected.bits, `round ${round}: bits against ${base}`);
          const got = bytesOf((ws) => deltas.write(ws, e.id, base));
          assert.deepEqual(got, expected, `round ${round}: entity ${e.id} against ${base}`);
        }
      }
      // A run of updates as a section writes them: each after the one before, with the repeat
      // prefix and, when the changed lanes repeat, the repeat form.
      const reference = new PreviousChanges();
      const shared = new PreviousChanges();
      for (let k = 0; k < 12; k++) {
        const e = entities[randomInt(next, entities.length)];
        const history = world.histories[e.id]!;
        const base = next() < 0.2 ? -1 : Math.max(world.oldestTicks[e.id], tick - 1 - randomInt(next, 3));
        const expected = bytesOf((ws) =>
          writeDelta(ws, history.layout, history.latest!, base < 0 ? null : history.at(base), reference),
        );
        const got = bytesOf((ws) => deltas.write(ws, e.id, base, shared));
        assert.deepEqual(got, expected, `round ${round}: run write ${k}, entity ${e.id} against ${base}`);
      }
    }
  });
});
