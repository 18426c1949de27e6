import { prng, randomInt } from '../../src/random/prng.js';
import type { Entity } from '../../src/replication/index.js';
import { defineEntity, defineEvent, ReplicationServer, ServerWorld } from '../../src/replication/index.js';
import { FOOTER_BYTES, HEADER_FIXED_BYTES } from '../../src/replication/recording/gwr-format.js';
import { ReplayError } from '../../src/replication/recording/replay-error.js';
import { ReplayFile, type ReplayMirrorOptions } from '../../src/replication/recording/replay-file.js';
import { t } from '../../src/schema/schema.js';
import { crc32 } from '../../src/serialize/crc32.js';
import { assertCorpusAccepted, type CorpusEntry, type Target } from './target.js';

/** A small world of two types and an event, recorded by ReplicationServer.record. */
const Walker = defineEntity(
  'walker',
  t.object({ x: t.float(0, 64, 1 / 64), y: t.float(0, 64, 1 / 64), hp: t.int(0, 100) }),
);
const Sign = defineEntity('sign', t.object({ text: t.string(12), lit: t.bool() }));
const Boom = defineEvent('boom', t.object({ power: t.int(0, 7) }));
const CAPACITY = 16;
const TICK_RATE = 10;
const MIRROR: ReplayMirrorOptions = {
  types: [Walker, Sign],
  capacity: CAPACITY,
  historyLength: 8,
  events: [Boom],
};
/** Small limits so a hostile size is refused at once and a fuzzed file stays cheap. */
const LIMITS = { maxFileBytes: 64 * 1024, maxChunkBytes: 16 * 1024 };

/** A recording of `ticks` ticks: walkers wander, some are destroyed and made, signs change, booms go off. */
function recording(seed: number, ticks: number): Uint8Array {
  const rng = prng(seed);
  const world = new ServerWorld({ types: [Walker, Sign], capacity: CAPACITY, historyLength: 8 });
  const server = new ReplicationServer({ world, maxClients: 1, events: [Boom] });
  const walkers: Entity<{ x: number; y: number; hp: number }>[] = [];
  const walk = () => ({ x: rng() * 64, y: rng() * 64, hp: randomInt(rng, 101) });
  for (let i = 0; i < 1 + randomInt(rng, 6); i++) walkers.push(world.create(Walker, walk()));
  const sign = world.create(Sign, { text: 'hi', lit: false });
  world.tick();
  const recorder = server.record({ tickRate: TICK_RATE, keyframeSeconds: 0.4 + randomInt(rng, 3) / 10 });
  for (let tick = 0; tick < ticks; tick++) {
    for (const w of walkers) if (rng() < 0.6) world.set(w, walk());
    if (rng() < 0.15 && walkers.length > 1)
      world.destroy(walkers.splice(randomInt(rng, walkers.length), 1)[0]);
    if (rng() < 0.15 && world.size < CAPACITY) walkers.push(world.create(Walker, walk()));
    if (rng() < 0.2) world.set(sign, { text: 'tick '.padEnd(5 + randomInt(rng, 7), '!'), lit: rng() < 0.5 });
    if (rng() < 0.2) server.emit(Boom, { power: randomInt(rng, 8) });
    world.tick();
    recorder.capture();
  }
  return recorder.save();
}

/**
 * Re-stamps every CRC a mutation broke (header, each chunk body, the index), walking the file as
 * its lengths say and stopping where they stop making sense: the fuzzer then reaches the
 * structure and section checks behind the CRCs.
 */
function restamp(file: Uint8Array): void {
  const size = file.length;
  if (size < HEADER_FIXED_BYTES + 4 + FOOTER_BYTES) return;
  const v = new DataView(file.buffer, file.byteOffset, size);
  const headerBytes = v.getUint16(6, true);
  if (headerBytes >= 4 && headerBytes <= size)
    v.setUint32(headerBytes - 4, crc32(file, 0, headerBytes - 4), true);
  const indexAt = v.getUint32(size - FOOTER_BYTES, true);
  let at = headerBytes;
  while (at + 22 <= Math.min(indexAt, size)) {
    const body = v.getUint32(at + 4, true);
    if (at + 22 + body > size) break;
    v.setUint32(at + 18, crc32(file, at + 22, at + 22 + body), true);
    at += 22 + body;
  }
  if (indexAt < size - FOOTER_BYTES) v.setUint32(size - 4, crc32(file, indexAt, size - FOOTER_BYTES), true);
}

/** Hostile .gwr files: ReplayFile.open must refuse with a ReplayError (reason, offset) and never throw otherwise. */
export function replayTarget(seed: number): Target<null> {
  const rng = prng(seed);
  const corpus: CorpusEntry<null>[] = [];
  for (let k = 0; k < 12; k++)
    corpus.push({ bytes: recording(randomInt(rng, 2 ** 31), 4 + randomInt(rng, 20)), context: null });
  const target: Target<null> = {
    name: 'replay',
    description:
      '.gwr replay files (ReplayFile.open: header, chunks, index, footer, CRCs, every section); most CRCs re-stamped',
    readers: ['replay-file'],
    corpus,
    prepare(input, next) {
      if (next() < 0.8) restamp(input);
    },
    run(input, _context, _iteration, r) {
      const result = r.read(0, () => {
        try {
          return { file: ReplayFile.open(input, MIRROR, LIMITS), reason: null };
        } catch (error) {
          // A refusal is a ReplayError; anything else escaping is a crash.
          if (!(error instanceof ReplayError)) throw error;
          return { file: null, reason: `${error.reason} (at byte ${error.offset})`, error };
        }
      });
      r.outcome(0, result.file !== null, result.reason);
      if (result.file === null) {
        r.check('a refusal names a byte inside the file', () => {
          const offset = result.error?.offset ?? -1;
          return Number.isInteger(offset) && offset >= 0 && offset <= input.length
            ? null
            : `offset ${offset}`;
        });
        return;
      }
      const file = result.file;
      r.check('an accepted file is well formed', () => {
        if (file.header.capacity !== CAPACITY) return `capacity ${file.header.capacity}`;
        let previous = -1;
        for (const chunk of file.chunks) {
          if (chunk.firstTick < previous) return `chunk at ${chunk.firstTick} after ${previous}`;
          for (let f = 0; f < chunk.ticks.length; f++) {
            const tick = chunk.ticks[f];
            if (tick < chunk.firstTick || tick > chunk.lastTick || (f > 0 && tick <= chunk.ticks[f - 1]))
              return `frame tick ${tick} in chunk [${chunk.firstTick}, ${chunk.lastTick}]`;
            if (chunk.offsets[f] + chunk.lengths[f] > input.length) return `frame ${f} past the end`;
          }
          previous = chunk.lastTick;
        }
        return file.header.startTick >= file.firstTick && file.header.startTick <= file.lastTick
          ? null
          : `start tick ${file.header.startTick} outside [${file.firstTick}, ${file.lastTick}]`;
      });
    },
  };
  assertCorpusAccepted(target);
  return target;
}
