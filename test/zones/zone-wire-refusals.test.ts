/**
 * Hostile bytes written by hand are refused by the zone wire's readers (docs/zones-wire.md,
 * "Reading") with a reason naming the message, the field's path and the cause, never a throw.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defineGame } from '../../src/game/define-game.js';
import { prng } from '../../src/random/prng.js';
import { t } from '../../src/schema/schema.js';
import { WriteStream } from '../../src/serialize/write-stream.js';
import { zoneCodecs } from '../../src/zones/zone-wire.js';
import {
  MAX_FEED_ENTITIES,
  MAX_PENDING_INPUTS,
  ZONE_MESSAGE_KINDS,
  ZONE_WIRE_VERSION,
} from '../../src/zones/zone-wire-fields.js';
import { testSeed } from '../support/seed.js';
import { randomEntityRecord, randomFeedBatch, randomSnapshot, wireGame } from '../support/zone-wire-game.js';

const SEED = testSeed('zone wire refusals');
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
