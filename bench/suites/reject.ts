/**
 * Garbage rejection: a pool of random buffers (seeded, lengths 0..1500) fed to readers of hostile
 * input. Reports buffers per second, ns per buffer, and how many buffers a reader (wrongly)
 * accepted — reported, not asserted. Add readers to {@link REJECT_READERS}.
 */
import type { Codec } from '../../src/schema/codec.js';
import { PacketEnvelope } from '../../src/serialize/packet-envelope.js';
import { ReadStream } from '../../src/serialize/read-stream.js';
import type { Stream } from '../../src/serialize/stream.js';
import { fail, fmt, measure, type SuiteContext, type Task } from '../harness.js';
import type { GameState } from '../w1/data.js';
import { gameStateCodec, gameStateInterpreted } from '../w1/schema.js';
import { serializeGameState } from '../w1/stream.js';

/** A reader under test: true when it accepted the buffer as a valid message. Must never throw. */
export interface RejectReader {
  readonly name: string;
  accepts(bytes: Uint8Array): boolean;
}

function w1StreamReader(): RejectReader {
  const stream = new ReadStream(1500);
  const state: GameState = { entities: [] };
  return {
    name: 'W1 stream reader',
    accepts(bytes) {
      stream.reset(bytes);
      serializeGameState(stream, state);
      return stream.end();
    },
  };
}

function schemaReader(name: string, codec: Codec<GameState>): RejectReader {
  const target: GameState = { entities: [] };
  return { name, accepts: (bytes) => codec.decode(bytes, target).ok };
}

/** The envelope around the W1 entity list: the CRC rejects garbage before any parsing. */
function envelopeReader(): RejectReader {
  const envelope = new PacketEnvelope({ protocolId: 0x6768_6f73_7477_6972n, maxPacketBytes: 1500 });
  const state: GameState = { entities: [] };
  const payload = (s: Stream) => serializeGameState(s, state);
  return { name: 'envelope (CRC32) + W1', accepts: (bytes) => envelope.read(bytes, payload).ok };
}

// =================================================================================================
// THE READER LIST — add readers here (the first one is the baseline every ratio uses).
// =================================================================================================
export const REJECT_READERS: (() => RejectReader)[] = [
  () => schemaReader('W1 schema decoder', gameStateCodec),
  () => schemaReader('W1 schema, interpreted', gameStateInterpreted),
  w1StreamReader,
  envelopeReader,
];

const POOL_SIZE = 8192;
const MAX_LENGTH = 1500;

/** The pool: lengths uniform in [0, 1500], bytes uniform, from xorshift32 with a fixed seed. */
function garbagePool(): Uint8Array[] {
  let x = 0xdeadbeef;
  const next = () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return x >>> 0;
  };
  const pool: Uint8Array[] = [];
  for (let i = 0; i < POOL_SIZE; i++) {
    const bytes = new Uint8Array(next() % (MAX_LENGTH + 1));
    for (let j = 0; j < bytes.length; j++) bytes[j] = next() & 0xff;
    pool.push(bytes);
  }
  return pool;
}

export function runReject(ctx: SuiteContext): void {
  const pool = garbagePool();
  const readers = REJECT_READERS.map((make) => make());
  const acceptedCounts: Record<string, string> = {};
  const tasks: Task[] = readers.map((reader) => {
    // Untimed pass: which buffers this reader accepts (the timed batches must agree).
    const acceptedBefore = new Int32Array(POOL_SIZE + 1);
    for (let i = 0; i < POOL_SIZE; i++)
      acceptedBefore[i + 1] = acceptedBefore[i] + (reader.accepts(pool[i]) ? 1 : 0);
    const accepted = acceptedBefore[POOL_SIZE];
    acceptedCounts[reader.name] = `${accepted} of ${POOL_SIZE}`;
    ctx.record(`accepted:${reader.name}`, accepted);
    return {
      name: reader.name,
      units: 1,
      run(n) {
        let count = 0;
        let j = 0;
        for (let i = 0; i < n; i++) {
          if (reader.accepts(pool[j])) count++;
          if (++j === POOL_SIZE) j = 0;
        }
        return count;
      },
      verify(n, result) {
        const expected = Math.floor(n / POOL_SIZE) * accepted + acceptedBefore[n % POOL_SIZE];
        if (result !== expected)
          fail(`${reader.name}: accepted ${result} buffers in a batch, expected ${expected}`);
      },
    };
  });
  const results = measure(tasks, ctx.options);
  const perSecond: Record<string, string> = {};
  for (const r of results) perSecond[r.name] = fmt(1e9 / r.median);
  ctx.table({
    title: `Garbage rejection: ${POOL_SIZE} random buffers of 0..${MAX_LENGTH} bytes, cycled`,
    unit: 'buffer',
    baseline: readers[0].name,
    results,
    columns: [
      { header: 'buffers/s', values: perSecond },
      { header: 'accepted (should be ~0)', values: acceptedCounts },
    ],
    notes: [
      'W1 stream reader: ReadStream.reset (copies the buffer) + serializeGameState into a reused state + end()',
    ],
  });
}
