/**
 * ZoneInboxReader after a takeover: the entries a dead process read and never acked come again,
 * but one whose entity that process applied and handed on since (the store's owner table has moved
 * past it) must not enter again, or the entity would be in two zones. With a dwell shorter than
 * the snapshot interval (dwellSeconds 0 is allowed), an entity can arrive and leave between two
 * snapshots, and the zone's process can die right then.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EmbeddedZoneStore } from '../../src/zones/embedded-zone-store.js';
import { ZoneInboxReader } from '../../src/zones/zone-inbox-reader.js';
import { commitOf, worldIdOf } from '../support/zone-store-contract-shared.js';

const TTL_MS = 60_000;

async function world() {
  const store = new EmbeddedZoneStore({ nowMs: () => 0 });
  const a = (await store.acquireLease(0, 'a', TTL_MS))!.epoch;
  const b = (await store.acquireLease(1, 'b', TTL_MS))!.epoch;
  const worldId = worldIdOf(0, 7);
  // Zone 0 hands the entity to zone 1, whose process reads the entry and applies it.
  assert.equal(
    await store.commitHandoff(commitOf({ worldId, from: 0, fromEpoch: a, to: 1, hseq: 1, tick: 10 })),
    'ok',
  );
  const reader = new ZoneInboxReader(store, 1, b, 0);
  assert.equal(await reader.fetch(), 'ok');
  assert.deepEqual(
    reader.due(10).map((e) => e.hseq),
    [1],
  );
  /** Zone 1's process dies before a snapshot acks the entry; another takes the zone over. */
  const takeOver = async () => {
    const lease = await store.acquireLease(1, 'b2', TTL_MS, true);
    return new ZoneInboxReader(store, 1, lease!.epoch, 0);
  };
  return { store, worldId, b, takeOver };
}

describe('ZoneInboxReader', () => {
  it('gives a process that takes a zone over the entries read and never acked', async () => {
    const { takeOver } = await world();
    const reader = await takeOver();
    assert.equal(await reader.fetch(), 'ok');
    assert.deepEqual(
      reader.due(100).map((e) => e.hseq),
      [1],
    );
  });

  it('does not give it one whose entity the zone handed on since', async () => {
    const { store, worldId, b, takeOver } = await world();
    assert.equal(
      await store.commitHandoff(commitOf({ worldId, from: 1, fromEpoch: b, to: 0, hseq: 2, tick: 12 })),
      'ok',
    );
    const reader = await takeOver();
    assert.equal(await reader.fetch(), 'ok');
    assert.deepEqual(reader.due(100), [], 'the entity is zone 0’s now');
    assert.equal(reader.ackCursor(), 1, 'the entry is acked by the next snapshot');
  });
});
