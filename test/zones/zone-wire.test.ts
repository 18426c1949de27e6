/**
 * The zone messages' wire format (docs/zones-wire.md): every message round-trips exactly, hostile
 * bytes are refused with a reason naming the field, and writing a value out of range throws at the
 * call naming the field.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defineGame } from '../../src/game/define-game.js';
import { prng } from '../../src/random/prng.js';
import { t } from '../../src/schema/schema.js';
import { WriteStream } from '../../src/serialize/write-stream.js';
import type {
  EntityRecord,
  FeedBatch,
  GatewayBatch,
  ZoneSnapshotRecord,
} from '../../src/zones/zone-messages.js';
import { zoneCodecs } from '../../src/zones/zone-wire.js';
import {
  MAX_FEED_ENTITIES,
  MAX_JSON_BYTES,
  MAX_PENDING_INPUTS,
  ZONE_MESSAGE_KINDS,
  ZONE_WIRE_VERSION,
} from '../../src/zones/zone-wire-fields.js';
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
const TAG = Number(wireGame.protocolId & 0xffff_ffffn);
const {
  gatewayBatch: GATEWAY,
  feedBatch: FEED,
  entityRecord: ENTITY,
  zoneSnapshot: SNAPSHOT,
} = ZONE_MESSAGE_KINDS;

/** A message written by hand: the header, then `body`. */
function craft(
  kind: number,
  body: (ws: WriteStream) => void,
  version = ZONE_WIRE_VERSION,
  tag = TAG,
): Uint8Array {
  const ws = new WriteStream(1 << 16);
  ws.bits(kind, 8);
  ws.bits(version, 8);
  ws.uint32(tag);
  body(ws);
  return ws.finish().slice();
}

/** A feed batch's head: zone 0, epoch 1, tick 10, not a keyframe. */
function feedHead(ws: WriteStream, zone = 0): void {
  ws.uint8(zone);
  ws.uint32(1);
  ws.uint32(10);
  ws.bool(false);
}
const feedCount = (ws: WriteStream, n: number) => ws.int(n, 0, MAX_FEED_ENTITIES);
/** A gateway batch's head up to its input count: gateway 1, `tick`, no joins or leaves. */
function gatewayHead(ws: WriteStream, tick: number, inputs: number): void {
  ws.uint32(1);
  ws.uint32(tick);
  ws.int(0, 0, 4096);
  ws.int(0, 0, 4096);
  ws.int(inputs, 0, 16384);
}
/** JSON text bytes as writeJson frames them. */
function rawJson(ws: WriteStream, bytes: Uint8Array, length = bytes.length): void {
  ws.bits(length, 13);
  ws.align();
  for (const b of bytes) ws.uint8(b);
}
/** An entity record's head up to its data: world id 5, hseq 1, a beacon that is on. */
function entityHead(ws: WriteStream): void {
  ws.uint32(5);
  ws.uint32(1);
  ws.bits(2, 2);
  ws.bool(true);
}

function refused(result: { ok: boolean; reason?: string }, pattern: RegExp): void {
  assert.equal(result.ok, false, 'refused');
  assert.match((result as { reason: string }).reason, pattern);
}

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

describe('zone wire: hostile bytes are refused with a reason', () => {
  it('a message of another kind, version or game, truncated, with trailing bytes, or not bytes', () => {
    const feed = codecs.encodeFeedBatch(randomFeedBatch(prng(SEED), 3)).slice();
    refused(
      codecs.decodeGatewayBatch(feed),
      /gateway batch: header: message kind 2 \(feed batch\) where a gateway batch \(1\) was expected/,
    );
    refused(codecs.decodeFeedBatch(new Uint8Array(0)), /0 bytes is shorter than the 2-byte header/);
    refused(codecs.decodeFeedBatch(new Uint8Array([FEED])), /shorter than the 2-byte header/);
    refused(codecs.decodeFeedBatch(new Uint8Array([9, 1, 0, 0, 0, 0])), /message kind 9 \(unknown\)/);
    refused(codecs.decodeFeedBatch(new Uint8Array([0, 1, 0, 0, 0, 0])), /message kind 0 \(unknown\)/);
    refused(codecs.decodeFeedBatch(craft(FEED, feedHead, 2)), /format version 2, this reader knows 1 only/);
    refused(
      codecs.decodeFeedBatch(craft(FEED, feedHead, ZONE_WIRE_VERSION, (TAG ^ 1) >>> 0)),
      /another game or game version/,
    );
    const other = zoneCodecs(
      defineGame({
        name: 'other',
        entities: { a: { state: t.object({ v: t.bool() }) } },
        input: t.object({}),
        step: (s) => s,
      }),
    );
    refused(other.decodeFeedBatch(feed), /game tag/);
    refused(
      codecs.decodeFeedBatch(feed.subarray(0, feed.length - 1)),
      /feed batch: .*(past the end|needs at least \d+ bits)/,
    );
    refused(codecs.decodeFeedBatch(Uint8Array.from([...feed, 0])), /trailing data/);
    refused(codecs.decodeFeedBatch('bytes' as unknown as Uint8Array), /not a Uint8Array/);
    refused(codecs.decodeFeedBatch(null as unknown as Uint8Array), /not a Uint8Array/);
  });

  it('counts past their limit or past what the bytes left could hold', () => {
    const over = craft(FEED, (ws) => {
      feedHead(ws);
      ws.bits(100_000, 17);
    });
    refused(codecs.decodeFeedBatch(over), /feed batch: entities: count 100000 is over the limit 65536/);
    const long = craft(FEED, (ws) => {
      feedHead(ws);
      feedCount(ws, 60_000);
    });
    refused(codecs.decodeFeedBatch(long), /entities: count 60000 needs at least \d+ bits, \d+ are left/);
    const inputs = craft(ENTITY, (ws) => {
      entityHead(ws);
      rawJson(ws, new TextEncoder().encode('{}'));
      ws.uint16(0);
      ws.bool(true);
      ws.uint32(3);
      rawJson(ws, new TextEncoder().encode('{}'));
      ws.bits(MAX_PENDING_INPUTS + 1, 7);
    });
    refused(
      codecs.decodeEntityRecord(inputs),
      /entity record: player\.inputs: count 65 is over the limit 64/,
    );
  });

  it('type indexes past their lists, and states, inputs, events and messages outside their schemas', () => {
    const pastType = craft(FEED, (ws) => {
      feedHead(ws);
      feedCount(ws, 1);
      ws.bits(1, 1);
      ws.bits(3, 2);
    });
    refused(
      codecs.decodeFeedBatch(pastType),
      /entities\[0\]\.typeIndex: type index 3 is past the 3 entity types/,
    );
    const badState = craft(FEED, (ws) => {
      feedHead(ws);
      feedCount(ws, 1);
      ws.bits(1, 1);
      ws.bits(0, 2);
      ws.float32(1);
      ws.float32(2);
      ws.uint8(255);
    });
    refused(codecs.decodeFeedBatch(badState), /entities\[0\]\.state: .*glow.*out of range/);
    const pastEvent = craft(FEED, (ws) => {
      feedHead(ws);
      feedCount(ws, 0);
      feedCount(ws, 0);
      feedCount(ws, 0);
      ws.int(1, 0, 4096);
      ws.bool(false);
      ws.bits(3, 2);
    });
    refused(
      codecs.decodeFeedBatch(pastEvent),
      /events\[0\]\.typeIndex: type index 3 is past the 3 event types/,
    );
    const badInput = craft(GATEWAY, (ws) => {
      gatewayHead(ws, 100, 1);
      ws.uint32(9);
      ws.bool(true);
      ws.int(0, -128, 127);
      ws.bool(false);
      ws.bits(3, 2);
    });
    refused(codecs.decodeGatewayBatch(badInput), /inputs\[0\]\.input: .*dx.*out of range/);
    const pastMessage = craft(GATEWAY, (ws) => {
      gatewayHead(ws, 100, 0);
      ws.int(1, 0, 4096);
      ws.uint32(9);
      ws.bits(3, 2);
    });
    refused(
      codecs.decodeGatewayBatch(pastMessage),
      /messages\[0\]\.typeIndex: type index 3 is past the 3 message types/,
    );
    const silent = zoneCodecs(
      defineGame({
        name: 'silent',
        entities: { a: { state: t.object({ v: t.bool() }) } },
        input: t.object({}),
        step: (s) => s,
      }),
    );
    const noTypes = craft(
      GATEWAY,
      (ws) => {
        gatewayHead(ws, 100, 0);
        ws.int(1, 0, 4096);
        ws.uint32(9);
      },
      ZONE_WIRE_VERSION,
      Number(silent.game.protocolId & 0xffff_ffffn),
    );
    refused(silent.decodeGatewayBatch(noTypes), /type index 0 is past the 0 message types/);
  });

  it('JSON data that is not an object, not UTF-8 or too long', () => {
    const record = (text: Uint8Array, length?: number) =>
      codecs.decodeEntityRecord(
        craft(ENTITY, (ws) => {
          entityHead(ws);
          rawJson(ws, text, length);
          ws.uint16(0);
          ws.bool(false);
        }),
      );
    const utf8 = (s: string) => new TextEncoder().encode(s);
    refused(record(utf8('[1]')), /entity record: data: JSON text is JSON but not an object/);
    refused(record(utf8('null')), /not an object/);
    refused(record(utf8('"text"')), /not an object/);
    refused(record(utf8('{"a":')), /data: JSON text is not JSON/);
    refused(record(utf8('')), /is not JSON/);
    refused(record(new Uint8Array([0x7b, 0xff, 0x7d])), /data: JSON text is not UTF-8/);
    refused(record(utf8('{}'), 5000), /data: JSON text of 5000 bytes is longer than the limit 4096/);
    assert.equal(record(utf8('{"ok":[1,"ü"]}')).ok, true);
  });

  it('world ids and zones a zone below the limit could not have, ids that overflow, ticks outside uint32', () => {
    const four = zoneCodecs(wireGame, { zoneLimit: 4 });
    const fromZone9 = craft(FEED, (ws) => {
      feedHead(ws);
      feedCount(ws, 1);
      ws.bits(0, 2);
      ws.uint32((9 << 24) | 5);
    });
    refused(
      four.decodeFeedBatch(fromZone9),
      /entities\[0\]\.worldId: world id \d+ is from zone 9, not below 4/,
    );
    assert.equal(codecs.decodeFeedBatch(fromZone9).ok, false, 'the entity has no type or state after it');
    refused(four.decodeFeedBatch(craft(FEED, (ws) => feedHead(ws, 9))), /zone: zone 9 is not below 4/);
    const overflow = craft(FEED, (ws) => {
      feedHead(ws);
      feedCount(ws, 0);
      feedCount(ws, 2);
      ws.bits(0, 2);
      ws.uint32(0xffff_ffff);
      ws.bits(1, 1);
    });
    refused(codecs.decodeFeedBatch(overflow), /removed\[1\]: world id 4294967296 is not a uint32/);
    const negative = craft(GATEWAY, (ws) => {
      gatewayHead(ws, 3, 1);
      ws.uint32(9);
      ws.bool(true);
      ws.int(-5, -128, 127);
    });
    refused(codecs.decodeGatewayBatch(negative), /inputs\[0\]\.tick: tick -2 is outside 0\.\.4294967295/);
    const past = craft(GATEWAY, (ws) => {
      gatewayHead(ws, 0xffff_ffff, 1);
      ws.uint32(9);
      ws.bool(true);
      ws.int(1, -128, 127);
    });
    refused(codecs.decodeGatewayBatch(past), /tick 4294967296 is outside/);
    const next = craft(SNAPSHOT, (ws) => {
      ws.uint8(0);
      ws.uint32(0);
      ws.bits((1 << 24) + 1, 25);
    });
    refused(codecs.decodeZoneSnapshot(next), /nextWorldId: 16777217 is past 16777216/);
  });

  it('a view tick that is NaN or infinite in full form; pending inputs out of order', () => {
    for (const bad of [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY]) {
      const bytes = craft(GATEWAY, (ws) => {
        gatewayHead(ws, 3, 1);
        ws.uint32(9);
        ws.bool(true);
        ws.int(0, -128, 127);
        ws.bool(true);
        ws.bool(true);
        ws.float64(bad);
      });
      refused(codecs.decodeGatewayBatch(bytes), /inputs\[0\]\.viewTick: view tick .* is not finite/);
    }
    const unordered = craft(ENTITY, (ws) => {
      entityHead(ws);
      rawJson(ws, new TextEncoder().encode('{}'));
      ws.uint16(0);
      ws.bool(true);
      ws.uint32(3);
      rawJson(ws, new TextEncoder().encode('{}'));
      ws.bits(2, 7);
      ws.uint32(50);
      ws.bool(false);
      ws.bits(0b0101, 4);
      ws.bool(false);
      ws.bool(true);
      ws.int(0, -128, 127);
    });
    refused(codecs.decodeEntityRecord(unordered), /player\.inputs\[1\]\.tick: tick 50 does not follow 50/);
  });

  it('a snapshot names the entity a refusal is in', () => {
    const next = prng((SEED ^ 3) >>> 0);
    const snapshot = randomSnapshot(next);
    snapshot.players = [];
    snapshot.entities = [
      randomEntityRecord(next),
      {
        ...randomEntityRecord(next),
        typeIndex: 2,
        state: { on: true },
        data: '{"a":1}',
        sinceHandoffTicks: 0,
        player: null,
      },
    ];
    const bytes = codecs.encodeZoneSnapshot(snapshot).slice();
    const at = bytes.length - 1;
    // Corrupt the second entity's data: find its "a" and make the JSON invalid.
    const i = bytes.lastIndexOf(0x61, at);
    bytes[i] = 0x22;
    refused(codecs.decodeZoneSnapshot(bytes), /zone snapshot: entities\[1\]\.data: JSON text is not JSON/);
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
