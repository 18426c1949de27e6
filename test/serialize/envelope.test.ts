import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import * as zlib from 'node:zlib';
import { prng } from '../../src/random/prng.js';
import { crc32 } from '../../src/serialize/crc32.js';
import { ENVELOPE_OVERHEAD_BYTES, PacketEnvelope } from '../../src/serialize/envelope.js';
import type { Stream } from '../../src/serialize/index.js';
import { testSeed } from '../support/seed.js';

const SEED = testSeed('envelope tests');

const PROTOCOL_A = 0x1122334455667788n;
const PROTOCOL_B = 0x1122334455667789n;

interface Message {
  id: number;
  health: number;
  alive: boolean;
  x: number;
  name: string;
}

const sample = (): Message => ({ id: 1234, health: 77, alive: true, x: 1.5, name: 'ghost' });
const blank = (): Message => ({ id: 0, health: 0, alive: false, x: 0, name: '' });

/** One unified function writes and reads. */
function serializeMessage(s: Stream, m: Message): void {
  m.id = s.int(m.id, 0, 4095);
  m.health = s.int(m.health, 0, 100);
  m.alive = s.bool(m.alive);
  m.x = s.float32(m.x);
  m.name = s.string(m.name, 31);
}

/** The independent view of the CRC field: one bit at a time, over an explicitly built prefix. */
function bitwiseCrc32(data: Uint8Array): number {
  let crc = 0xffffffff;
  for (const byte of data) {
    crc ^= byte;
    for (let k = 0; k < 8; k++) crc = crc & 1 ? (crc >>> 1) ^ 0xedb88320 : crc >>> 1;
  }
  return ~crc >>> 0;
}

function expectedCrc(protocolId: bigint, packet: Uint8Array): number {
  const input = new Uint8Array(8 + packet.length - 4);
  new DataView(input.buffer).setBigUint64(0, protocolId, true);
  input.set(packet.subarray(4), 8);
  const viaZlib = typeof zlib.crc32 === 'function' ? zlib.crc32(input) : null;
  const bitwise = bitwiseCrc32(input);
  if (viaZlib !== null) assert.equal(viaZlib, bitwise);
  return bitwise;
}

function writeSample(envelope: PacketEnvelope, m = sample()): Uint8Array {
  return envelope.write((s) => serializeMessage(s, m)).slice();
}

function readMessage(envelope: PacketEnvelope, data: Uint8Array) {
  const m = blank();
  const result = envelope.read(data, (s) => serializeMessage(s, m));
  return { result, m };
}

/** Re-stamps the CRC field so a test can reach the checks that come after it. */
function restamp(protocolId: bigint, packet: Uint8Array): Uint8Array {
  new DataView(packet.buffer, packet.byteOffset).setUint32(0, expectedCrc(protocolId, packet), true);
  return packet;
}

function assertRejected(result: { ok: boolean; reason?: string }, pattern: RegExp, context = ''): void {
  assert.equal(result.ok, false, `accepted ${context}`);
  assert.match((result as { reason: string }).reason, pattern, context);
}

describe('PacketEnvelope', () => {
  it('round-trips a payload written and read by one unified function', () => {
    const envelope = new PacketEnvelope({ protocolId: PROTOCOL_A });
    const packet = writeSample(envelope);
    const { result, m } = readMessage(envelope, packet);
    assert.deepEqual(result, { ok: true });
    assert.deepEqual(m, sample());
  });

  it('lays out CRC (LE) | payload | aligned check word, and nothing else', () => {
    const envelope = new PacketEnvelope({ protocolId: PROTOCOL_A });
    const packet = writeSample(envelope);
    // Payload: 12 + 7 + 1 + 32 bits, string length 5 bits, align, 5 bytes = 57 bits -> 8 bytes, then 5.
    const payloadBytes = Math.ceil((12 + 7 + 1 + 32 + 5) / 8) + 5;
    assert.equal(packet.length, 4 + payloadBytes + 4);
    assert.deepEqual([...packet.subarray(packet.length - 4)], [0x78, 0x56, 0x34, 0x12]);
    const field = new DataView(packet.buffer, packet.byteOffset).getUint32(0, true);
    assert.equal(field, expectedCrc(PROTOCOL_A, packet));
    assert.equal(
      field,
      crc32(
        packet,
        4,
        packet.length,
        crc32(new Uint8Array([0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11])),
      ),
    );
  });

  it('writes the smallest packet (empty payload) as CRC + check word', () => {
    const envelope = new PacketEnvelope({ protocolId: 0n });
    const packet = envelope.write(() => {}).slice();
    assert.equal(packet.length, ENVELOPE_OVERHEAD_BYTES);
    assert.equal(new DataView(packet.buffer).getUint32(0, true), expectedCrc(0n, packet));
    assert.deepEqual(
      envelope.read(packet, () => {}),
      { ok: true },
    );
  });

  it('matches an independently computed CRC for random payloads and protocol ids', () => {
    const next = prng(SEED);
    for (let n = 0; n < 200; n++) {
      const protocolId = (BigInt(Math.floor(next() * 2 ** 32)) << 32n) | BigInt(Math.floor(next() * 2 ** 32));
      const envelope = new PacketEnvelope({ protocolId });
      const body = new Uint8Array(Math.floor(next() * 300));
      for (let i = 0; i < body.length; i++) body[i] = (next() * 256) | 0;
      const packet = envelope.write((s) => {
        s.bits(body.length, 9);
        s.bytes(body, body.length);
      });
      const field = new DataView(packet.buffer, packet.byteOffset).getUint32(0, true);
      assert.equal(field, expectedCrc(protocolId, packet), `case ${n}, seed ${SEED}`);
      const copy = packet.slice();
      let got: Uint8Array = new Uint8Array(0);
      const result = envelope.read(copy, (s) => {
        const length = s.bits(0, 9);
        got = s.bytes(new Uint8Array(0), length);
      });
      assert.deepEqual(result, { ok: true }, `case ${n}, seed ${SEED}`);
      assert.deepEqual(got, body);
    }
  });

  it('accepts protocol ids 0 and 2^64 - 1 and rejects anything outside', () => {
    for (const protocolId of [0n, (1n << 64n) - 1n]) {
      const envelope = new PacketEnvelope({ protocolId });
      const packet = writeSample(envelope);
      assert.equal(new DataView(packet.buffer).getUint32(0, true), expectedCrc(protocolId, packet));
      assert.equal(readMessage(envelope, packet).result.ok, true);
    }
    assert.throws(() => new PacketEnvelope({ protocolId: -1n }), /protocolId/);
    assert.throws(() => new PacketEnvelope({ protocolId: 1n << 64n }), /protocolId/);
    assert.throws(() => new PacketEnvelope({ protocolId: 5 as unknown as bigint }), /protocolId/);
    assert.throws(() => new PacketEnvelope({ protocolId: 1n, maxPacketBytes: 7 }), /maxPacketBytes/);
    assert.throws(() => new PacketEnvelope({ protocolId: 1n, maxPacketBytes: 100.5 }), /maxPacketBytes/);
  });

  it('rejects a packet written under another protocol id, by CRC', () => {
    const packet = writeSample(new PacketEnvelope({ protocolId: PROTOCOL_A }));
    const { result } = readMessage(new PacketEnvelope({ protocolId: PROTOCOL_B }), packet);
    assertRejected(result, /CRC/);
  });

  it('rejects every single-bit flip', () => {
    const envelope = new PacketEnvelope({ protocolId: PROTOCOL_A });
    const packet = writeSample(envelope);
    for (let bit = 0; bit < packet.length * 8; bit++) {
      const damaged = packet.slice();
      damaged[bit >>> 3] ^= 1 << (bit & 7);
      assertRejected(readMessage(envelope, damaged).result, /CRC/, `bit ${bit}`);
    }
    assert.equal(readMessage(envelope, packet).result.ok, true);
  });

  it('rejects every truncation', () => {
    const envelope = new PacketEnvelope({ protocolId: PROTOCOL_A });
    const packet = writeSample(envelope);
    for (let length = 0; length < packet.length; length++) {
      const pattern = length < ENVELOPE_OVERHEAD_BYTES ? /too short/ : /CRC/;
      assertRejected(readMessage(envelope, packet.subarray(0, length)).result, pattern, `length ${length}`);
    }
  });

  it('rejects appended bytes, by CRC, and by the end check when the CRC is re-stamped', () => {
    const envelope = new PacketEnvelope({ protocolId: PROTOCOL_A });
    const packet = writeSample(envelope);
    for (const extra of [[0], [1], [0, 0, 0, 0], [0xff, 0x12]]) {
      const longer = new Uint8Array([...packet, ...extra]);
      assertRejected(readMessage(envelope, longer).result, /CRC/, `extra ${extra}`);
      // The CRC is no MAC: anyone can re-stamp it, so the envelope must still refuse the tail.
      assertRejected(readMessage(envelope, restamp(PROTOCOL_A, longer)).result, /trailing data/);
    }
  });

  it('rejects packets longer than maxPacketBytes before looking at them', () => {
    const big = new PacketEnvelope({ protocolId: PROTOCOL_A, maxPacketBytes: 64 });
    const small = new PacketEnvelope({ protocolId: PROTOCOL_A, maxPacketBytes: 20 });
    const m = { ...sample(), name: 'a name long enough' };
    const packet = writeSample(big, m);
    assert.ok(packet.length > 20);
    assertRejected(readMessage(small, packet).result, /longer than maxPacketBytes/);
  });

  it('catches a payload read that stops short with the end check', () => {
    const envelope = new PacketEnvelope({ protocolId: PROTOCOL_A });
    const packet = writeSample(envelope);
    // Leaves the string behind: the check word is read from the wrong place.
    const short = envelope.read(packet, (s) => {
      s.int(0, 0, 4095);
      s.int(0, 0, 100);
      s.bool(false);
      s.float32(0);
    });
    assertRejected(short, /serialization check failed/);
    // Leaves bits within the last byte: caught as non-zero padding before the check word.
    const nine = new PacketEnvelope({ protocolId: 9n });
    const three = nine.write((s) => s.bits(0b101, 3)).slice();
    assertRejected(
      nine.read(three, (s) => s.bits(0, 1)),
      /^serialization check failed \(non-zero align padding at bit 40\)$/,
    );
  });

  it('catches a payload read that runs long with the end check', () => {
    const envelope = new PacketEnvelope({ protocolId: PROTOCOL_A });
    const packet = envelope.write((s) => s.uint8(7)).slice();
    assertRejected(
      envelope.read(packet, (s) => {
        s.uint8(0);
        s.uint8(0);
      }),
      /serialization check failed/,
    );
  });

  it('reports a payload read failure with the stream’s reason and bit', () => {
    const envelope = new PacketEnvelope({ protocolId: PROTOCOL_A });
    const packet = envelope.write((s) => s.bits(120, 7)).slice();
    const result = envelope.read(packet, (s) => s.int(0, 0, 100));
    assert.deepEqual(result, { ok: false, reason: 'int out of range [0, 100] at bit 39' });
    const failed = envelope.read(packet, (s) => s.fail('not for us'));
    assert.deepEqual(failed, { ok: false, reason: 'not for us at bit 32' });
  });

  it('throws on an oversize write, naming the limit, and stays usable', () => {
    const envelope = new PacketEnvelope({ protocolId: PROTOCOL_A, maxPacketBytes: 16 });
    // 4 + 8 + 4 = 16 fits exactly; one more payload byte does not, nor does a check word that won't fit.
    const fits = envelope.write((s) => s.bytes(new Uint8Array(8), 8)).slice();
    assert.equal(fits.length, 16);
    assert.equal(envelope.read(fits, (s) => s.bytes(new Uint8Array(8), 8)).ok, true);
    assert.throws(() => envelope.write((s) => s.bytes(new Uint8Array(9), 9)), /maxPacketBytes \(16/);
    assert.throws(() => envelope.write((s) => s.bytes(new Uint8Array(100), 100)), /maxPacketBytes \(16/);
    const unaligned = (s: Stream) => {
      s.bool(true);
      s.bytes(new Uint8Array(8), 8);
    };
    assert.throws(() => envelope.write(unaligned), /maxPacketBytes/);
    // The caller's own errors pass through untouched.
    assert.throws(() => envelope.write((s) => s.int(200, 0, 100)), /int: 200 is outside/);
    assert.deepEqual(
      envelope.write((s) => s.bytes(new Uint8Array(8), 8)),
      fits,
    );
  });

  it('catches a callback that throws while reading', () => {
    const envelope = new PacketEnvelope({ protocolId: PROTOCOL_A });
    const packet = writeSample(envelope);
    assert.deepEqual(
      envelope.read(packet, () => {
        throw new Error('boom');
      }),
      { ok: false, reason: 'serialize threw: boom' },
    );
    const hostile = {
      toString(): string {
        throw new Error('no');
      },
    };
    const result = envelope.read(packet, () => {
      throw hostile;
    });
    assertRejected(result, /^serialize threw: /);
    assert.equal(readMessage(envelope, packet).result.ok, true);
  });

  it('never throws on random garbage and rejects all of it', () => {
    const next = prng(SEED ^ 0xabcdef);
    const envelope = new PacketEnvelope({ protocolId: PROTOCOL_A, maxPacketBytes: 1200 });
    const m = blank();
    const serialize = (s: Stream) => serializeMessage(s, m);
    const buffer = new Uint8Array(1500);
    for (let n = 0; n < 20000; n++) {
      const length = Math.floor(next() * 1501);
      for (let i = 0; i < length; i++) buffer[i] = (next() * 256) | 0;
      const data = buffer.subarray(0, length);
      const result = envelope.read(data, serialize);
      assert.equal(result.ok, false, `garbage accepted: case ${n}, length ${length}, seed ${SEED}`);
      // With a valid CRC the parser itself sees the garbage; it must still refuse without throwing.
      if (length >= ENVELOPE_OVERHEAD_BYTES && length <= 1200 && n % 4 === 0) {
        const stamped = envelope.read(restamp(PROTOCOL_A, data), serialize);
        assert.equal(stamped.ok, false, `stamped garbage accepted: case ${n}, seed ${SEED}`);
        assert.doesNotMatch((stamped as { reason: string }).reason, /CRC|threw/);
      }
    }
  });
});
