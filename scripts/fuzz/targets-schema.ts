import fc from 'fast-check';
import { type GameState, generateW1 } from '../../bench/w1/data.js';
import { GameStateSchema, gameStateCodec, gameStateInterpreted } from '../../bench/w1/schema.js';
import { serializeGameState } from '../../bench/w1/stream.js';
import { prng, randomInt } from '../../src/random/prng.js';
import { type Codec, compile } from '../../src/schema/codec.js';
import { t } from '../../src/schema/schema.js';
import { ReadStream } from '../../src/serialize/read-stream.js';
import { diffExact } from './compare.js';
import { assertCorpusAccepted, type CorpusEntry, runCodecPair, type Target, verdict } from './target.js';
import { valueArb } from './values.js';

/** W1 (ids, compressed vectors, flags; up to 1000 entities): the hand-written reader and both codecs. */
export function w1Target(seed: number): Target<null> {
  const rng = prng(seed);
  const corpus: CorpusEntry<null>[] = [];
  const add = (state: GameState) => {
    const bytes = gameStateCodec.encode(state).slice();
    // Big packets are costly to read: picked less often, so the run covers more inputs.
    corpus.push({ bytes, context: null, weight: 1 / (1 + bytes.length / 2048) });
  };
  for (const count of [0, 1, 1, 2, 3, 4, 5, 6, 8, 10, 13, 16, 20, 25, 32, 48, 64, 100, 160, 250, 400, 1000]) {
    add(generateW1(count, (randomInt(rng, 0xfffffffe) + 1) >>> 0));
  }
  // Edge values: extremes of every range.
  for (const value of fc.sample(valueArb(GameStateSchema, 12), { seed, numRuns: 16 }))
    add(value as GameState);

  const rs = new ReadStream();
  const streamState: GameState = { entities: [] };
  const targets = { compiled: { entities: [] } as unknown, interpreted: { entities: [] } as unknown };
  const target: Target<null> = {
    name: 'w1',
    description: 'W1 game state: hand-written stream reader, compiled codec, interpreted codec',
    readers: ['w1-stream', 'w1-compiled', 'w1-interpreted'],
    corpus,
    run(input, _context, iteration, r) {
      const streamReason = r.read(0, () => {
        rs.reset(input);
        serializeGameState(rs, streamState);
        return rs.ok && rs.end() ? null : (rs.error ?? 'rejected');
      });
      r.outcome(0, streamReason === null, streamReason);
      const c = runCodecPair(
        GameStateSchema,
        gameStateCodec as Codec<unknown>,
        gameStateInterpreted as Codec<unknown>,
        targets,
        input,
        iteration,
        r,
        1,
        true,
      );
      r.check('hand-written reader accepts like the codecs', () =>
        (streamReason === null) === c.ok
          ? null
          : `stream ${streamReason ?? 'accepted'}, codecs ${verdict(c)}`,
      );
      if (streamReason === null && c.ok) {
        r.check('hand-written reader reads the codecs’ value', () =>
          diffExact(GameStateSchema, streamState, c.value),
        );
      }
    },
  };
  assertCorpusAccepted(target);
  // The corpus check leaves the stream state holding a value; start from empty like the codecs.
  streamState.entities.length = 0;
  return target;
}

const Item = t.object({
  kind: t.enum(['sword', 'shield', 'potion', 42, 'scroll']),
  count: t.int(-5, 250),
  tags: t.array(t.string(12), 3),
  blob: t.optional(t.bytes(20)),
});

/** Every schema kind, several widths of each, nested (the second fuzzed schema). */
export const KindsSchema = t.object({
  alive: t.bool(),
  id: t.uint32(),
  level: t.int(7, 7),
  offset: t.int(-1_000_000, 3_000_000),
  serial: t.int64(-(1n << 40n), 1n << 50n),
  tiny: t.int64(-3n, 3n),
  wide: t.int64(-(1n << 63n), (1n << 63n) - 1n),
  big: t.uint64(),
  ratio: t.float64(),
  speed: t.float32(),
  heading: t.float(-180, 180, 0.1),
  name: t.string(40),
  note: t.optional(t.string(300)),
  payload: t.bytes(64),
  rotation: t.quaternion(),
  facing: t.smallestThree(),
  coarse: t.smallestThree(2),
  fine: t.smallestThree(16),
  position: t.vector3(t.float(-100, 100, 0.05)),
  grid: t.array(t.array(t.int(0, 9), 5), 4),
  matrix: t.tuple(t.tuple(t.bool(), 3), 6),
  items: t.array(Item, 6),
  mode: t.enum(['a', 'b', 'c', 'd']),
  single: t.enum(['only']),
  target: t.entity(),
  extra: t.optional(t.object({ x: t.float(0, 1, 0.001), seen: t.array(t.uint16(), 4), 'odd key': t.bool() })),
});

export function kindsTarget(seed: number): Target<null> {
  const compiled = compile(KindsSchema) as Codec<unknown>;
  const interpreted = compile(KindsSchema, { codegen: false }) as Codec<unknown>;
  const corpus: CorpusEntry<null>[] = fc
    .sample(valueArb(KindsSchema, 6), { seed, numRuns: 64 })
    .map((value) => ({ bytes: compiled.encode(value).slice(), context: null }));
  const targets = { compiled: undefined as unknown, interpreted: undefined as unknown };
  const target: Target<null> = {
    name: 'kinds',
    description: 'every schema kind: compiled codec and its interpreted twin',
    readers: ['kinds-compiled', 'kinds-interpreted'],
    corpus,
    run(input, _context, iteration, r) {
      runCodecPair(KindsSchema, compiled, interpreted, targets, input, iteration, r, 0, false);
    },
  };
  assertCorpusAccepted(target);
  return target;
}
