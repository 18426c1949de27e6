/**
 * Seeded mutation fuzzing of the zone wire (docs/zones-wire.md, "Reading"): valid messages of each
 * kind with bits flipped, bytes changed, inserted or cut, tails replaced by random bytes, and wholly
 * random bytes behind a valid header. Whatever the bytes, a decode never throws, a refusal has a
 * reason, and what it accepts re-encodes and reads back equal (it is a value the writer takes).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { prng, randomBytes, randomInt } from '../../src/random/prng.js';
import { zoneCodecs } from '../../src/zones/zone-wire.js';
import { testSeed } from '../support/seed.js';
import {
  randomEntityRecord,
  randomFeedBatch,
  randomGatewayBatch,
  randomSnapshot,
  wireGame,
} from '../support/zone-wire-game.js';

const SEED = testSeed('zone wire fuzz');
const ITERATIONS = 6000;
/** The header (kind, version, game tag) is this long: mutations past it reach the bodies. */
const HEADER_BYTES = 6;

type Next = () => number;
type Result = { ok: true; value: unknown } | { ok: false; reason: string };

interface Kind {
  name: string;
  make(next: Next): unknown;
  encode(value: unknown): Uint8Array;
  decode(bytes: Uint8Array): Result;
}

const codecs = zoneCodecs(wireGame);
const KINDS: Kind[] = [
  {
    name: 'gateway',
    make: randomGatewayBatch,
    encode: (v) => codecs.encodeGatewayBatch(v as never),
    decode: (b) => codecs.decodeGatewayBatch(b),
  },
  {
    name: 'feed',
    make: (next) => randomFeedBatch(next),
    encode: (v) => codecs.encodeFeedBatch(v as never),
    decode: (b) => codecs.decodeFeedBatch(b),
  },
  {
    name: 'entity',
    make: randomEntityRecord,
    encode: (v) => codecs.encodeEntityRecord(v as never),
    decode: (b) => codecs.decodeEntityRecord(b),
  },
  {
    name: 'snapshot',
    make: randomSnapshot,
    encode: (v) => codecs.encodeZoneSnapshot(v as never),
    decode: (b) => codecs.decodeZoneSnapshot(b),
  },
];

/** One random change of a valid message. */
function mutate(next: Next, bytes: Uint8Array): Uint8Array {
  const out = bytes.slice();
  const at = (from = 0) => from + randomInt(next, Math.max(1, out.length - from));
  switch (randomInt(next, 7)) {
    case 0: // a few flipped bits, mostly past the header
      for (let n = 1 + randomInt(next, 4); n > 0; n--) {
        const i = at(next() < 0.9 ? HEADER_BYTES : 0);
        if (i < out.length) out[i] ^= 1 << randomInt(next, 8);
      }
      return out;
    case 1: // one byte set to anything
      if (out.length > 0) out[at(HEADER_BYTES)] = randomInt(next, 256);
      return out;
    case 2: // truncated
      return out.subarray(0, randomInt(next, out.length + 1));
    case 3: // random bytes appended
      return Uint8Array.from([...out, ...randomBytes(next, 1 + randomInt(next, 8))]);
    case 4: {
      // a range cut out or random bytes put in
      const i = at(HEADER_BYTES);
      const cut = randomInt(next, 6);
      const put = next() < 0.5 ? randomBytes(next, 1 + randomInt(next, 6)) : new Uint8Array(0);
      return Uint8Array.from([...out.subarray(0, i), ...put, ...out.subarray(i + cut)]);
    }
    case 5: // the tail after a random point replaced by random bytes
      return Uint8Array.from([
        ...out.subarray(0, at(HEADER_BYTES)),
        ...randomBytes(next, randomInt(next, 64)),
      ]);
    default: // random bytes behind the real header
      return Uint8Array.from([...out.subarray(0, HEADER_BYTES), ...randomBytes(next, randomInt(next, 200))]);
  }
}

describe(`zone wire fuzz (seed ${SEED})`, () => {
  it('mutated and truncated messages never throw; refusals have a reason; acceptances re-encode and read back equal', () => {
    const next = prng(SEED);
    const stats = KINDS.map(() => ({ accepted: 0, refused: 0 }));
    const reasons = new Set<string>();
    for (let i = 0; i < ITERATIONS; i++) {
      const k = randomInt(next, KINDS.length);
      const kind = KINDS[k];
      const bytes = mutate(next, kind.encode(kind.make(next)).slice());
      // Mostly the matching reader; sometimes another kind's, which must refuse by the header.
      const reader = next() < 0.9 ? kind : KINDS[randomInt(next, KINDS.length)];
      const replay = `iteration ${i}, ${kind.name} read as ${reader.name}, seed ${SEED} (GW_SEED=${SEED})`;
      let result: Result;
      try {
        result = reader.decode(bytes);
      } catch (error) {
        assert.fail(`decode threw at ${replay}: ${(error as Error).stack}`);
      }
      const stat = stats[KINDS.indexOf(reader)];
      if (!result.ok) {
        assert.ok(typeof result.reason === 'string' && result.reason.length > 0, `no reason at ${replay}`);
        reasons.add(result.reason.replace(/ at bit \d+$/, '').replace(/\d+/g, 'N'));
        stat.refused++;
        continue;
      }
      stat.accepted++;
      let again: Uint8Array;
      try {
        again = reader.encode(result.value).slice();
      } catch (error) {
        assert.fail(`an accepted value failed to re-encode at ${replay}: ${(error as Error).message}`);
      }
      const reread = reader.decode(again);
      assert.ok(reread.ok, `re-encoded bytes refused at ${replay}: ${reread.ok ? '' : reread.reason}`);
      assert.deepEqual(reread.value, result.value, `re-encoded value differs at ${replay}`);
    }
    for (const [k, stat] of stats.entries()) {
      assert.ok(stat.refused > 50, `${KINDS[k].name}: mutations refused (${stat.refused})`);
      assert.ok(
        stat.accepted > 10,
        `${KINDS[k].name}: some mutations parse and were checked (${stat.accepted})`,
      );
    }
    assert.ok(reasons.size > 30, `refusals have varied reasons (${reasons.size})`);
  });

  it('random bytes of any length, with and without a valid header, never throw', () => {
    const next = prng((SEED ^ 7) >>> 0);
    const header = KINDS.map((kind) => kind.encode(kind.make(next)).slice(0, HEADER_BYTES));
    for (let i = 0; i < 3000; i++) {
      const k = randomInt(next, KINDS.length);
      const body = randomBytes(next, randomInt(next, 300));
      const bytes = next() < 0.7 ? Uint8Array.from([...header[k], ...body]) : body;
      const result = KINDS[k].decode(bytes);
      if (result.ok) assert.doesNotThrow(() => KINDS[k].encode(result.value));
      else assert.ok(result.reason.length > 0);
    }
  });
});
