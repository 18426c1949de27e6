/**
 * A small game for the zone wire tests, and seeded generators of valid zone messages for it: every
 * value they make is one the codecs must carry exactly (states on their schema's grid, ticks and
 * ids anywhere in their ranges, view ticks of every form, unicode JSON data).
 */
import { defineGame } from '../../src/game/define-game.js';
import { randomInt } from '../../src/random/prng.js';
import { compile } from '../../src/schema/codec.js';
import { t } from '../../src/schema/schema.js';
import type {
  EntityRecord,
  FeedBatch,
  GatewayBatch,
  PlayerRecord,
  ZoneInput,
  ZoneSnapshotRecord,
} from '../../src/zones/zone-messages.js';
import { MAX_JSON_BYTES, MAX_PENDING_INPUTS } from '../../src/zones/zone-wire-fields.js';

/** Three entity types, events and messages, so a type index of 3 (2 bits) is past each list. */
export const wireGame = defineGame({
  name: 'zone-wire-test',
  entities: {
    orb: { state: t.object({ x: t.float32(), y: t.float32(), glow: t.int(0, 200) }) },
    crate: { state: t.object({ x: t.float(-100, 100, 1 / 64), label: t.string(16) }) },
    beacon: { state: t.object({ on: t.bool() }) },
  },
  player: 'orb',
  input: t.object({ dx: t.int(-1, 1), dy: t.int(-1, 1), fire: t.bool() }),
  step: (s) => s,
  events: { boom: t.object({ r: t.int(1, 8) }), note: t.object({ text: t.string(32) }) },
  messages: {
    chat: t.object({ text: t.string(64) }),
    ready: t.object({}),
    ping: t.object({ n: t.uint16() }),
  },
});

const crateCodec = compile(wireGame.entityTypes.crate.schema);

type Next = () => number;

const WORDS = ['', 'a', 'héllo', '日本', '🎯 ok', 'x"y\\z'];
const pick = <T>(next: Next, list: readonly T[]): T => list[randomInt(next, list.length)];
const uint32 = (next: Next): number =>
  pick(next, [0, 1, 0xffff_ffff, randomInt(next, 2 ** 32), randomInt(next, 100)]);

export function randomState(next: Next, typeIndex: number): unknown {
  if (typeIndex === 0)
    return {
      x: Math.fround((next() - 0.5) * 1e4),
      y: Math.fround((next() - 0.5) * 10),
      glow: randomInt(next, 201),
    };
  if (typeIndex === 1) {
    // A compressed float round-trips to its grid value: start from that.
    const crate = { x: (randomInt(next, 12801) - 6400) / 64, label: pick(next, WORDS) };
    const decoded = crateCodec.decode(crateCodec.encode(crate));
    if (!decoded.ok) throw new Error(decoded.error);
    return decoded.value;
  }
  return { on: next() < 0.5 };
}

export function randomInput(next: Next): unknown {
  return { dx: randomInt(next, 3) - 1, dy: randomInt(next, 3) - 1, fire: next() < 0.3 };
}

/** A view tick in each of its forms: none, a 1/256-tick offset, any other finite value. */
export function randomViewTick(next: Next, tick: number): number {
  const form = randomInt(next, 3);
  if (form === 0) return Number.NaN;
  if (form === 1) return tick - randomInt(next, 0x10000) / 256;
  return pick(next, [tick + 0.1, -3.5, tick - 300.123, 1e300]);
}

export function randomJson(next: Next): string {
  const form = randomInt(next, 4);
  if (form === 0) return '{}';
  if (form === 1)
    return JSON.stringify({ name: pick(next, WORDS), hp: randomInt(next, 100), tags: ['a', 'ü'] });
  if (form === 2) return JSON.stringify({ deep: { list: [1, 2, { k: null }] }, s: '\u0000\ud800' });
  return maxJson(pick(next, ['a', 'é', '日', '😀']));
}

/** JSON text of exactly MAX_JSON_BYTES UTF-8 bytes made of `char` (1 to 4 bytes) and padding. */
export function maxJson(char: string): string {
  const width = new TextEncoder().encode(char).length;
  const room = MAX_JSON_BYTES - '{"s":""}'.length;
  const body = char.repeat(Math.floor(room / width)) + 'p'.repeat(room % width);
  return `{"s":"${body}"}`;
}

function randomTick(next: Next): number {
  return pick(next, [0, 5, 0xffff_ffff - 5, randomInt(next, 2 ** 32 - 300) + 150]);
}

export function randomGatewayBatch(next: Next): GatewayBatch {
  const tick = randomTick(next);
  const ids = (n: number) => Array.from({ length: n }, () => uint32(next));
  const inputs: ZoneInput[] = Array.from({ length: randomInt(next, 6) }, () => {
    const near =
      next() < 0.7 ? Math.min(0xffff_ffff, Math.max(0, tick + randomInt(next, 256) - 128)) : uint32(next);
    return {
      playerId: uint32(next),
      tick: near,
      viewTick: randomViewTick(next, near),
      input: randomInput(next),
    };
  });
  const messages = Array.from({ length: randomInt(next, 4) }, () => {
    const typeIndex = randomInt(next, 3);
    const value =
      typeIndex === 0 ? { text: pick(next, WORDS) } : typeIndex === 1 ? {} : { n: randomInt(next, 65536) };
    return { playerId: uint32(next), typeIndex, value };
  });
  return {
    gateway: uint32(next),
    tick,
    joins: ids(randomInt(next, 3)),
    leaves: ids(randomInt(next, 3)),
    inputs,
    messages,
  };
}

/** A world id of a zone below 256: runs of consecutive ids, small gaps and jumps. */
function worldIds(next: Next, n: number): number[] {
  const out: number[] = [];
  let id = randomInt(next, 2 ** 32);
  for (let i = 0; i < n; i++) {
    const step = randomInt(next, 4);
    id = step === 0 ? randomInt(next, 2 ** 32) : Math.min(0xffff_ffff, id + pick(next, [1, 1, 2, 33, 34]));
    out.push(id);
  }
  return out;
}

export function randomFeedBatch(next: Next, entities = randomInt(next, 20)): FeedBatch {
  return {
    zone: randomInt(next, 256),
    epoch: uint32(next),
    tick: randomTick(next),
    keyframe: next() < 0.5,
    entities: worldIds(next, entities).map((worldId) => {
      const typeIndex = randomInt(next, 3);
      return { worldId, typeIndex, state: randomState(next, typeIndex) };
    }),
    removed: worldIds(next, randomInt(next, 4)),
    owners: Array.from({ length: randomInt(next, 4) }, () => ({
      playerId: uint32(next),
      worldId: next() < 0.3 ? -1 : worldIds(next, 1)[0],
    })),
    events: Array.from({ length: randomInt(next, 4) }, () => {
      const typeIndex = randomInt(next, 3);
      const value =
        typeIndex === 0
          ? { id: randomInt(next, 1025) - 1 }
          : typeIndex === 1
            ? { r: 1 + randomInt(next, 8) }
            : { text: pick(next, WORDS) };
      return { to: next() < 0.5 ? -1 : uint32(next), typeIndex, reliable: next() < 0.5, value };
    }),
  };
}

export function randomPlayerRecord(next: Next, inputs = randomInt(next, 5)): PlayerRecord {
  const playerId = uint32(next);
  let tick = randomInt(next, 2 ** 31);
  return {
    playerId,
    data: randomJson(next),
    inputs: Array.from({ length: Math.min(inputs, MAX_PENDING_INPUTS) }, () => {
      tick += next() < 0.8 ? 1 : 1 + randomInt(next, 1000);
      return { playerId, tick, viewTick: randomViewTick(next, tick), input: randomInput(next) };
    }),
  };
}

export function randomEntityRecord(next: Next): EntityRecord {
  const typeIndex = randomInt(next, 3);
  return {
    worldId: worldIds(next, 1)[0],
    hseq: uint32(next),
    typeIndex,
    state: randomState(next, typeIndex),
    data: randomJson(next),
    sinceHandoffTicks: pick(next, [0, 30, 0xffff]),
    player: next() < 0.5 ? null : randomPlayerRecord(next),
  };
}

export function randomSnapshot(next: Next): ZoneSnapshotRecord {
  return {
    zone: randomInt(next, 256),
    tick: randomTick(next),
    nextWorldId: pick(next, [0, 1 << 24, randomInt(next, 1 << 24)]),
    gameData: randomJson(next),
    entities: Array.from({ length: randomInt(next, 5) }, () => randomEntityRecord(next)),
    players: Array.from({ length: randomInt(next, 3) }, () => randomPlayerRecord(next)),
  };
}
