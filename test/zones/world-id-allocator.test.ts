/**
 * World ids (memo B2): per-zone ranges `zone << 24 | n`, unique across zones, resumed from a
 * snapshot's `next` without repeats, refused when a range runs out, and checked with a reason
 * when read from the bus.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { prng, randomInt } from '../../src/random/prng.js';
import {
  creatorZone,
  WORLD_IDS_PER_ZONE,
  WorldIdAllocator,
  worldIdOf,
  worldIdProblem,
} from '../../src/zones/world-id-allocator.js';
import { testSeed } from '../support/seed.js';

const SEED = testSeed('world ids');

describe('world ids', () => {
  it('zones allocate unique uint32 ids that name their creator; a takeover resumes from the snapshot', () => {
    const next = prng(SEED);
    const zones = [0, 1, 2, 127, 128, 255];
    let allocators = zones.map((z) => new WorldIdAllocator(z));
    const seen = new Set<number>();
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < 3000; i++) {
        const a = allocators[randomInt(next, allocators.length)];
        const id = a.allocate();
        assert.ok(Number.isInteger(id) && id >= 0 && id <= 0xffff_ffff, `${id} is a uint32`);
        assert.equal(creatorZone(id), a.zone);
        assert.equal(worldIdProblem(id), null);
        assert.ok(!seen.has(id), `${id} given out twice`);
        seen.add(id);
      }
      // Every zone is taken over from a snapshot holding its allocator's next.
      allocators = allocators.map((a) => new WorldIdAllocator(a.zone, a.next));
    }
    assert.equal(worldIdOf(255, WORLD_IDS_PER_ZONE - 1), 0xffff_ffff);
    assert.equal(worldIdOf(1, 5), 0x0100_0005);
  });

  it('a zone that used its whole range is refused, not wrapped into ids it gave out', () => {
    const a = new WorldIdAllocator(3, WORLD_IDS_PER_ZONE - 2);
    assert.equal(a.remaining, 2);
    assert.equal(a.allocate(), worldIdOf(3, WORLD_IDS_PER_ZONE - 2));
    assert.equal(a.allocate(), worldIdOf(4, 0) - 1);
    assert.throws(() => a.allocate(), /zone 3 has used all/);
    assert.equal(a.next, WORLD_IDS_PER_ZONE, 'a refused call changes nothing');
  });

  it('ids read from the bus are checked with a reason, never a throw', () => {
    for (const bad of [-1, 2 ** 32, 1.5, Number.NaN, '7', null, undefined, 10n])
      assert.match(String(worldIdProblem(bad)), /not a uint32/);
    assert.match(String(worldIdProblem(worldIdOf(4, 9), 4)), /from zone 4, not below 4/);
    assert.equal(worldIdProblem(worldIdOf(3, 9), 4), null);
  });

  it('misuse throws at the call', () => {
    assert.throws(() => new WorldIdAllocator(256), RangeError);
    assert.throws(() => new WorldIdAllocator(-1), RangeError);
    assert.throws(() => new WorldIdAllocator(0, -1), RangeError);
    assert.throws(() => new WorldIdAllocator(0, WORLD_IDS_PER_ZONE + 1), RangeError);
    assert.throws(() => worldIdOf(0, WORLD_IDS_PER_ZONE), RangeError);
    assert.throws(() => worldIdOf(1.5, 0), RangeError);
  });
});
