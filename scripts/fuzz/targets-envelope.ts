import fc from 'fast-check';
import { prng, randomInt } from '../../src/random/prng.js';
import { compressedFloat } from '../../src/serialize/compressed-float.js';
import { crc32 } from '../../src/serialize/crc32.js';
import { PacketEnvelope } from '../../src/serialize/packet-envelope.js';
import type { Stream } from '../../src/serialize/stream.js';
import { f32, show } from './helpers.js';
import { assertCorpusAccepted, type CorpusEntry, type Target } from './target.js';
import { fitUtf8, textArb } from './values.js';

interface Message {
  seq: number;
  id: number;
  health: number;
  alive: boolean;
  x: number;
  heading: number;
  name: string;
  tags: number[];
  token: bigint;
  note: string;
  ack: number;
}

const HEADING = compressedFloat(-180, 180, 0.5);

/** The envelope's payload: several primitives, a count-prefixed list and a field behind a flag. */
function serializeMessage(s: Stream, m: Message): void {
  m.seq = s.bits(m.seq, 16);
  m.id = s.int(m.id, 0, 4095);
  m.health = s.int(m.health, -100, 100);
  m.alive = s.bool(m.alive);
  m.x = s.float32(m.x);
  m.heading = s.compressedFloat(m.heading, HEADING);
  m.name = s.string(m.name, 31);
  const count = s.int(m.tags.length, 0, 8);
  for (let i = 0; i < count && s.ok; i++) m.tags[i] = s.int(m.tags[i] ?? 0, 0, 1000);
  if (s.isReading) m.tags.length = s.ok ? count : 0;
  m.token = s.bits64(m.token, 48);
  m.note = m.alive ? s.string(m.note, 200) : '';
  m.ack = s.sequenceRelative(m.seq, m.ack);
}

const blankMessage = (): Message => ({
  seq: 0,
  id: 0,
  health: 0,
  alive: false,
  x: 0,
  heading: 0,
  name: '',
  tags: [],
  token: 0n,
  note: '',
  ack: 1,
});

function messageDiff(a: Message, b: Message): string | null {
  for (const key of Object.keys(a) as (keyof Message)[]) {
    const x = a[key];
    const y = b[key];
    const same =
      Array.isArray(x) && Array.isArray(y)
        ? x.length === y.length && x.every((v, i) => v === y[i])
        : Object.is(x, y);
    if (!same) return `${key}: ${show(x)} vs ${show(y)}`;
  }
  return null;
}

export const ENVELOPE_PROTOCOL_ID = 0x6768_6f73_7477_6972n;

export function envelopeTarget(seed: number): Target<null> {
  const rng = prng(seed);
  const envelope = new PacketEnvelope({ protocolId: ENVELOPE_PROTOCOL_ID, maxPacketBytes: 600 });
  const prefix = new Uint8Array(8);
  new DataView(prefix.buffer).setBigUint64(0, ENVELOPE_PROTOCOL_ID, true);
  const prefixCrc = crc32(prefix);
  const texts = fc.sample(textArb(200, 60), { seed, numRuns: 96 });
  const corpus: CorpusEntry<null>[] = [];
  for (let k = 0; k < 48; k++) {
    const seq = randomInt(rng, 65536);
    const m: Message = {
      seq,
      id: randomInt(rng, 4096),
      health: randomInt(rng, 201) - 100,
      alive: rng() < 0.6,
      x: f32((rng() - 0.5) * 2 ** randomInt(rng, 40)),
      heading: rng() * 360 - 180,
      name: fitUtf8(texts[2 * k], 31),
      tags: Array.from({ length: randomInt(rng, 9) }, () => randomInt(rng, 1001)),
      token: BigInt(randomInt(rng, 2 ** 24)) * BigInt(randomInt(rng, 2 ** 24)),
      note: texts[2 * k + 1],
      ack: (seq + 1 + randomInt(rng, k % 2 === 0 ? 30 : 65535)) % 65536,
    };
    if (m.ack === m.seq) m.ack = (m.seq + 1) % 65536;
    if (!m.alive) m.note = '';
    corpus.push({ bytes: envelope.write((s) => serializeMessage(s, m)).slice(), context: null });
  }
  const read = blankMessage();
  const back = blankMessage();
  const target: Target<null> = {
    name: 'envelope',
    description: 'PacketEnvelope (CRC32, check word) around a multi-primitive payload; many CRCs re-stamped',
    readers: ['envelope'],
    corpus,
    prepare(input, next) {
      // The CRC stops nearly every mutation; re-stamping most of them sends them on to the parser.
      if (input.length >= 8 && next() < 0.7) {
        const crc = crc32(input, 4, input.length, prefixCrc);
        input[0] = crc & 0xff;
        input[1] = (crc >>> 8) & 0xff;
        input[2] = (crc >>> 16) & 0xff;
        input[3] = crc >>> 24;
      }
    },
    run(input, _context, _iteration, r) {
      const result = r.read(0, () => envelope.read(input, (s) => serializeMessage(s, read)));
      r.outcome(0, result.ok, result.ok ? null : result.reason);
      if (!result.ok) return;
      r.check('an accepted payload re-writes and reads back the same', () => {
        const copy: Message = { ...read, tags: [...read.tags] };
        const packet = envelope.write((s) => serializeMessage(s, copy));
        const again = r.read(0, () => envelope.read(packet, (s) => serializeMessage(s, back)));
        if (!again.ok) return `re-written packet rejected: ${again.reason}`;
        return messageDiff(read, back);
      });
    },
  };
  assertCorpusAccepted(target);
  return target;
}
