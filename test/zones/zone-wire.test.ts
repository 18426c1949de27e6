/**
 * The zone messages' wire format (docs/zones-wire.md): every message round-trips exactly, and
 * writing a value out of range throws at the call naming the field (hostile bytes:
 * zone-wire-refusals.test.ts; mutations: zone-wire-fuzz.test.ts).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defineGame } from '../../src/game/define-game.js';
import { prng } from '../../src/random/prng.js';
import { t } from '../../src/schema/schema.js';
import type {
  EntityRecord,
  FeedBatch,
  GatewayBatch,
  ZoneSnapshotRecord,
} from '../../src/zones/zone-messages.js';
import { zoneCodecs } from '../../src/zones/zone-wire.js';
import { MAX_FEED_ENTITIES, MAX_JSON_BYTES, MAX_PENDING_INPUTS } from '../../src/zones/zone-wire-fields.js';
import { testSeed } from '../support/seed.js';
import {
  maxJson,
  randomEntityRecord,
  randomFeedBatch,
  randomGatewayBatch,
  randomPlayerRecord,
  randomSnapshot,
  wireGame,
} from '../support/zone-wire-game.js';

const SEED = testSeed('zone wire');
const codecs = zoneCodecs(wireGame);

function roundTrip<T>(
  encode: (v: T) => Uint8Array,
  decode: (b: Uint8Array) => unknown,
  value: T,
): Uint8Array {
  const bytes = encode(value).slice();
  const decoded = decode(bytes) as { ok: boolean; value?: T; reason?: string };
  assert.ok(decoded.ok, decoded.reason);
  assert.deepEqual(decoded.value, value);
  return bytes;
}

describe('zone wire: round trips', () => {
  it('random messages of every kind come back equal (seeded)', () => {
    const next = prng(SEED);
    for (let i = 0; i < 300; i++) {
      roundTrip(
        (v) => codecs.encodeGatewayBatch(v),
        (b) => codecs.decodeGatewayBatch(b),
        randomGatewayBatch(next),
      );
      roundTrip(
        (v) => codecs.encodeFeedBatch(v),
        (b) => codecs.decodeFeedBatch(b),
        randomFeedBatch(next),
      );
      roundTrip(
        (v) => codecs.encodeEntityRecord(v),
        (b) => codecs.decodeEntityRecord(b),
        randomEntityRecord(next),
      );
      roundTrip(
        (v) => codecs.encodeZoneSnapshot(v),
        (b) => codecs.decodeZoneSnapshot(b),
        randomSnapshot(next),
      );
    }
  });

  it('empty lists, NaN and exact view ticks, unicode JSON, ids and ticks at their edges', () => {
    const empty: GatewayBatch = { gateway: 0, tick: 0, joins: [], leaves: [], inputs: [], messages: [] };
    const bytes = roundTrip(
      (v) => codecs.encodeGatewayBatch(v),
      (b) => codecs.decodeGatewayBatch(b),
      empty,
    );
    assert.ok(bytes.length <= 21, `an empty gateway batch is ${bytes.length} bytes`);
    const feed: FeedBatch = {
      zone: 255,
      epoch: 0xffff_ffff,
      tick: 0xffff_ffff,
      keyframe: true,
      entities: [],
      removed: [],
      owners: [],
      events: [],
    };
    roundTrip(
      (v) => codecs.encodeFeedBatch(v),
      (b) => codecs.decodeFeedBatch(b),
      feed,
    );
    const input = { dx: 1, dy: -1, fire: true };
    const views = [Number.NaN, 7 - 1 / 256, 7 - 0xffff / 256, 7.3, -2, 1e300, 8];
    roundTrip(
      (v) => codecs.encodeGatewayBatch(v),
      (b) => codecs.decodeGatewayBatch(b),
      {
        ...empty,
        tick: 0xffff_ffff,
        joins: [0, 0xffff_ffff],
        leaves: [7],
        inputs: views.map((viewTick, i) => ({ playerId: i, tick: i === 0 ? 0 : 7, viewTick, input })),
        messages: [{ playerId: 0xffff_ffff, typeIndex: 0, value: { text: 'ünï 🎯' } }],
      },
    );
    const record: EntityRecord = {
      worldId: 0xffff_ffff,
      hseq: 0xffff_ffff,
      typeIndex: 0,
      state: { x: Math.fround(1.1), y: -0.5, glow: 200 },
      data: JSON.stringify({ name: 'Zoë 日本 😀', nul: '\u0000', lone: '\ud800' }),
      sinceHandoffTicks: 0xffff,
      player: { playerId: 3, data: '{}', inputs: [] },
    };
    roundTrip(
      (v) => codecs.encodeEntityRecord(v),
      (b) => codecs.decodeEntityRecord(b),
      record,
    );
    const snapshot: ZoneSnapshotRecord = {
      zone: 0,
      tick: 0,
      nextWorldId: 0,
      gameData: '{}',
      entities: [],
      players: [],
    };
    roundTrip(
      (v) => codecs.encodeZoneSnapshot(v),
      (b) => codecs.decodeZoneSnapshot(b),
      snapshot,
    );
  });

  it('fields at their size limits: max JSON in every UTF-8 width, MAX_PENDING_INPUTS, MAX_FEED_ENTITIES', () => {
    const next = prng((SEED ^ 1) >>> 0);
    for (const char of ['a', 'é', '日', '😀']) {
      const data = maxJson(char);
      assert.equal(new TextEncoder().encode(data).length, MAX_JSON_BYTES);
      const player = { ...randomPlayerRecord(next, MAX_PENDING_INPUTS), data };
      assert.equal(player.inputs.length, MAX_PENDING_INPUTS);
      const record = { ...randomEntityRecord(next), data, player };
      roundTrip(
        (v) => codecs.encodeEntityRecord(v),
        (b) => codecs.decodeEntityRecord(b),
        record,
      );
    }
    const feed = randomFeedBatch(next, 0);
    feed.entities = Array.from({ length: MAX_FEED_ENTITIES }, (_, i) => ({
      worldId: i,
      typeIndex: 2,
      state: { on: i % 3 === 0 },
    }));
    const bytes = roundTrip(
      (v) => codecs.encodeFeedBatch(v),
      (b) => codecs.decodeFeedBatch(b),
      feed,
    );
    // Consecutive world ids cost 1 bit, the type 2, the state 1: 4 bits an entity.
    assert.ok(bytes.length < (MAX_FEED_ENTITIES * 4) / 8 + 200, `${bytes.length} bytes`);
    feed.entities.push({ worldId: 1, typeIndex: 2, state: { on: true } });
    assert.throws(() => codecs.encodeFeedBatch(feed), /entities: 65537 items, the limit is 65536/);
  });

  it('a big snapshot grows its buffer; an encode is a view reused by the next encode of the same kind only', () => {
    const next = prng((SEED ^ 2) >>> 0);
    const snapshot = randomSnapshot(next);
    snapshot.entities = Array.from({ length: 200 }, () => ({
      ...randomEntityRecord(next),
      data: maxJson('é'),
    }));
    const bytes = roundTrip(
      (v) => codecs.encodeZoneSnapshot(v),
      (b) => codecs.decodeZoneSnapshot(b),
      snapshot,
    );
    assert.ok(bytes.length > 200 * MAX_JSON_BYTES);
    const feed = randomFeedBatch(next, 50);
    const first = codecs.encodeFeedBatch(feed);
    const copy = first.slice();
    codecs.encodeEntityRecord(randomEntityRecord(next));
    codecs.encodeGatewayBatch(randomGatewayBatch(next));
    assert.deepEqual(first, copy, 'other kinds write to their own buffers');
    const second = codecs.encodeFeedBatch(randomFeedBatch(next, 50));
    assert.equal(second.buffer, first.buffer, 'the feed buffer is reused');
  });
});

describe('zone wire: writing a value out of range throws at the call, naming the field', () => {
  const next = prng((SEED ^ 4) >>> 0);
  const batch = (): GatewayBatch => ({
    gateway: 1,
    tick: 100,
    joins: [],
    leaves: [],
    inputs: [],
    messages: [],
  });
  const input = { playerId: 1, tick: 100, viewTick: Number.NaN, input: { dx: 0, dy: 0, fire: false } };

  it('gateway batches', () => {
    assert.throws(
      () => codecs.encodeGatewayBatch({ ...batch(), tick: -1 }),
      /encode gateway batch: tick: -1 is not an integer/,
    );
    assert.throws(() => codecs.encodeGatewayBatch({ ...batch(), gateway: 1.5 }), RangeError);
    assert.throws(
      () => codecs.encodeGatewayBatch({ ...batch(), joins: [2 ** 32] }),
      /joins\[0\]: 4294967296/,
    );
    assert.throws(() => codecs.encodeGatewayBatch({ ...batch(), leaves: [0, -3] }), /leaves\[1\]/);
    assert.throws(
      () => codecs.encodeGatewayBatch({ ...batch(), inputs: [{ ...input, tick: Number.NaN }] }),
      /inputs\[0\]\.tick: NaN/,
    );
    assert.throws(
      () => codecs.encodeGatewayBatch({ ...batch(), inputs: [{ ...input, playerId: -1 }] }),
      /inputs\[0\]\.playerId/,
    );
    assert.throws(
      () =>
        codecs.encodeGatewayBatch({
          ...batch(),
          inputs: [input, { ...input, viewTick: Number.POSITIVE_INFINITY }],
        }),
      /inputs\[1\]\.viewTick: Infinity is not finite/,
    );
    assert.throws(
      () =>
        codecs.encodeGatewayBatch({
          ...batch(),
          inputs: [{ ...input, input: { dx: 2, dy: 0, fire: false } }],
        }),
      /dx/,
    );
    assert.throws(
      () => codecs.encodeGatewayBatch({ ...batch(), messages: [{ playerId: 1, typeIndex: 3, value: {} }] }),
      /messages\[0\]\.typeIndex: type index 3/,
    );
    assert.throws(
      () => codecs.encodeGatewayBatch({ ...batch(), inputs: undefined as unknown as [] }),
      /inputs: must be an array/,
    );
    assert.throws(() => codecs.encodeGatewayBatch(null as unknown as GatewayBatch), TypeError);
  });

  it('feed batches', () => {
    const feed = (): FeedBatch => randomFeedBatch(next, 2);
    assert.throws(
      () => codecs.encodeFeedBatch({ ...feed(), zone: 256 }),
      /zone: 256 is not an integer in 0\.\.255/,
    );
    assert.throws(
      () => zoneCodecs(wireGame, { zoneLimit: 4 }).encodeFeedBatch({ ...feed(), zone: 4 }),
      /zone: 4/,
    );
    const f = feed();
    f.entities[1].worldId = -7;
    assert.throws(() => codecs.encodeFeedBatch(f), /entities\[1\]\.worldId: world id -7 is not a uint32/);
    const g = feed();
    g.entities[0].typeIndex = 3;
    assert.throws(() => codecs.encodeFeedBatch(g), /entities\[0\]\.typeIndex: type index 3/);
    const h = feed();
    h.entities[0] = { worldId: 1, typeIndex: 0, state: { x: 1, y: 2, glow: 999 } };
    assert.throws(() => codecs.encodeFeedBatch(h), /glow/);
    assert.throws(() => codecs.encodeFeedBatch({ ...feed(), removed: [1.5] }), /removed\[0\]: world id 1\.5/);
    assert.throws(
      () => codecs.encodeFeedBatch({ ...feed(), owners: [{ playerId: 1, worldId: -2 }] }),
      /owners\[0\]\.worldId/,
    );
    assert.throws(
      () =>
        codecs.encodeFeedBatch({
          ...feed(),
          events: [{ to: -2, typeIndex: 1, reliable: true, value: { r: 1 } }],
        }),
      /events\[0\]\.to/,
    );
    assert.throws(
      () =>
        codecs.encodeFeedBatch({
          ...feed(),
          events: [{ to: -1, typeIndex: 1, reliable: 1 as unknown as boolean, value: { r: 1 } }],
        }),
      /events\[0\]\.reliable/,
    );
    assert.throws(() => codecs.encodeFeedBatch({ ...feed(), epoch: 2 ** 32 }), /epoch/);
  });

  it('entity records and snapshots', () => {
    const record = (): EntityRecord => ({ ...randomEntityRecord(next), player: null });
    assert.throws(
      () => codecs.encodeEntityRecord({ ...record(), data: '[1]' }),
      /data: "\[1\]" is JSON but not an object/,
    );
    assert.throws(() => codecs.encodeEntityRecord({ ...record(), data: 'nope' }), /data: .* is not JSON/);
    assert.throws(
      () => codecs.encodeEntityRecord({ ...record(), data: `{"s":"${'x'.repeat(MAX_JSON_BYTES)}"}` }),
      /data: .*exceed the declared maximum of 4096/,
    );
    assert.throws(
      () => codecs.encodeEntityRecord({ ...record(), sinceHandoffTicks: 70_000 }),
      /sinceHandoffTicks: 70000/,
    );
    assert.throws(() => codecs.encodeEntityRecord({ ...record(), hseq: -1 }), /hseq/);
    const player = randomPlayerRecord(next, MAX_PENDING_INPUTS);
    player.inputs.push({ ...player.inputs[0], tick: player.inputs[MAX_PENDING_INPUTS - 1].tick + 1 });
    assert.throws(
      () => codecs.encodeEntityRecord({ ...record(), player }),
      /player\.inputs: 65 items, the limit is 64/,
    );
    const two = randomPlayerRecord(next, 2);
    two.inputs[1].tick = two.inputs[0].tick;
    assert.throws(
      () => codecs.encodeEntityRecord({ ...record(), player: two }),
      /player\.inputs\[1\]\.tick: .* does not follow/,
    );
    const other = randomPlayerRecord(next, 1);
    other.inputs[0].playerId = other.playerId + 1;
    assert.throws(
      () => codecs.encodeEntityRecord({ ...record(), player: other }),
      /player\.inputs\[0\]\.playerId/,
    );
    const snapshot = randomSnapshot(next);
    assert.throws(
      () => codecs.encodeZoneSnapshot({ ...snapshot, nextWorldId: (1 << 24) + 1 }),
      /nextWorldId/,
    );
    assert.throws(
      () => codecs.encodeZoneSnapshot({ ...snapshot, entities: [record(), { ...record(), data: '7' }] }),
      /encode zone snapshot: entities\[1\]\.data/,
    );
    assert.throws(
      () => codecs.encodeZoneSnapshot({ ...snapshot, players: [{ ...randomPlayerRecord(next), data: '' }] }),
      /players\[0\]\.data/,
    );
  });

  it('a game without messages refuses every message; a codec needs a defined game', () => {
    const silent = zoneCodecs(
      defineGame({
        name: 'silent2',
        entities: { a: { state: t.object({ v: t.bool() }) } },
        input: t.object({}),
        step: (s) => s,
      }),
    );
    assert.throws(
      () =>
        silent.encodeGatewayBatch({
          gateway: 0,
          tick: 0,
          joins: [],
          leaves: [],
          inputs: [],
          messages: [{ playerId: 0, typeIndex: 0, value: {} }],
        }),
      /messages\[0\]\.typeIndex: type index 0 is not an integer in 0\.\.-1/,
    );
    assert.throws(() => zoneCodecs({} as never), /zoneCodecs: game must be what defineGame returned/);
    assert.throws(() => zoneCodecs(wireGame, { zoneLimit: 0 }), RangeError);
  });
});
