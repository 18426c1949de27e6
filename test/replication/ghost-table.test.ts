/**
 * GhostTable, the server's per-client id -> slot table: lookups after growth, removal and slot
 * reuse, colliding ids (same home bucket, runs that wrap past the end of the buckets), and a
 * random sequence checked against a Map.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { prng, randomInt } from '../../src/random/prng.js';
import { GhostTable } from '../../src/replication/ghost-table.js';
import { testSeed } from '../support/seed.js';

const SEED = testSeed('ghost table tests');

/** The home bucket of an id among `buckets` (the table's hash). */
const home = (id: number, buckets: number) =>
  Math.floor(((Math.imul(id, 0x9e3779b1) >>> 0) * buckets) / 2 ** 32);

/** `count` ids below `capacity` whose home bucket is `bucket` among `buckets`. */
function colliding(count: number, buckets: number, bucket: number, capacity: number): number[] {
  const ids: number[] = [];
  for (let id = 0; id < capacity && ids.length < count; id++) if (home(id, buckets) === bucket) ids.push(id);
  assert.equal(ids.length, count, 'enough colliding ids');
  return ids;
}

describe('GhostTable', () => {
  it('starts small and grows by half up to the capacity, keeping every ghost and its columns', () => {
    const table = new GhostTable(1000);
    assert.equal(table.slotCapacity, 8);
    const slots = new Map<number, number>();
    for (let i = 0; i < 300; i++) {
      const id = i * 3;
      const slot = table.insert(id);
      table.epoch[slot] = id + 1;
      table.setBaselineTick(slot, id * 3);
      slots.set(id, slot);
    }
    assert.equal(table.size, 300);
    // 8, 12, 18, 27, 41, 62, 93, 140, 210, 315
    assert.equal(table.slotCapacity, 315);
    for (const [id, slot] of slots) {
      assert.equal(table.find(id), slot, `id ${id} keeps its slot through growth`);
      assert.equal(table.epoch[slot], id + 1);
      assert.equal(table.baselineTick(slot), id * 3);
    }
    assert.equal(table.find(1), -1);
    // Growth stops at the capacity.
    const small = new GhostTable(10);
    for (let id = 0; id < 10; id++) small.insert(id);
    assert.equal(small.slotCapacity, 10);
    assert.throws(() => small.insert(10), RangeError);
  });

  it('frees a removed slot for the next insert, which starts with zeroed columns and no baseline', () => {
    const table = new GhostTable(100);
    const a = table.insert(5);
    const b = table.insert(6);
    table.epoch[a] = 9;
    table.flags[a] = 3;
    table.sends[a] = 4;
    table.setBaselineTick(a, 77);
    table.remove(a);
    assert.equal(table.epoch[a], 0, "a free slot's epoch is 0 (no ack matches it)");
    assert.equal(table.find(5), -1);
    assert.equal(table.find(6), b);
    assert.equal(table.size, 1);
    const c = table.insert(42);
    assert.equal(c, a, 'the freed slot is reused');
    assert.equal(table.epoch[c], 0);
    assert.equal(table.flags[c], 0);
    assert.equal(table.sends[c], 0);
    assert.equal(table.baselineTick(c), -1);
    assert.throws(() => table.remove(table.slotCapacity - 1), RangeError, 'a free slot');
    assert.throws(() => table.insert(6), RangeError, 'a duplicate id');
    assert.throws(() => table.insert(100), RangeError, 'an id past the capacity');
    assert.throws(() => table.insert(-1), RangeError);
  });

  it('finds colliding ids after any of them is removed, also when their run wraps past the last bucket', () => {
    // 8 slots, 16 buckets until the ninth insert.
    for (const bucket of [3, 15]) {
      const ids = colliding(6, 16, bucket, 10_000);
      for (let removed = 0; removed < ids.length; removed++) {
        const table = new GhostTable(10_000);
        const other = colliding(1, 16, (bucket + 1) & 15, 10_000)[0];
        for (const id of ids) table.insert(id);
        table.insert(other); // homed right after the run: it must move back into holes too
        table.remove(table.find(ids[removed]));
        for (const id of ids)
          assert.equal(table.find(id) >= 0, id !== ids[removed], `bucket ${bucket}: id ${id}`);
        assert.ok(table.find(other) >= 0);
        table.insert(ids[removed]);
        for (const id of ids) assert.ok(table.find(id) >= 0);
      }
    }
  });

  it('agrees with a Map through random inserts and removals (16- and 32-bit buckets)', () => {
    const next = prng(SEED);
    for (let round = 0; round < 20; round++) {
      const capacity = round === 0 ? 65536 : 1 + randomInt(next, 3000);
      const table = new GhostTable(capacity);
      const model = new Map<number, number>(); // id -> the value stored in its epoch column
      for (let op = 0; op < 4000; op++) {
        const id = randomInt(next, capacity);
        const slot = table.find(id);
        assert.equal(slot >= 0, model.has(id), `round ${round} op ${op}: find(${id})`);
        if (slot >= 0) {
          assert.equal(table.epoch[slot], model.get(id));
          if (next() < 0.6) {
            table.remove(slot);
            model.delete(id);
          }
        } else if (next() < 0.7) {
          const value = randomInt(next, 1 << 30);
          const inserted = table.insert(id); // first: an insert may replace the columns
          table.epoch[inserted] = value;
          model.set(id, value);
        }
      }
      assert.equal(table.size, model.size);
      for (const [id, value] of model) assert.equal(table.epoch[table.find(id)], value);
    }
  });
});
