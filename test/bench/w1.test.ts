import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type GameState, generateW1 } from '../../bench/w1/data.js';
import { serializeGameState } from '../../bench/w1/stream.js';
import { bitsToFloat32 } from '../../src/serialize/float-bits.js';
import { MeasureStream, ReadStream, WriteStream } from '../../src/serialize/index.js';
import { readSharedBytes, readSharedJson, sharedSkip } from '../support/shared.js';

interface Reference {
  packet_bytes: number;
  fnv1a64: string;
  first_entities: {
    id: number;
    largest: number;
    health: number;
    flags: number[];
    input_f32_bits: string[];
    decoded_f32_bits: string[];
  }[];
}

function fnv1a64(bytes: Uint8Array): string {
  let h = 0xcbf29ce484222325n;
  for (const b of bytes) h = BigInt.asUintN(64, (h ^ BigInt(b)) * 0x100000001b3n);
  return h.toString(16).padStart(16, '0');
}

const skip = sharedSkip();
const f32 = (h: string) => bitsToFloat32(Number.parseInt(h, 16));

describe('W1 workload', () => {
  const state = generateW1();

  it('the hand-written unified serializer writes 148 bits per entity, and measure agrees', () => {
    const w = new WriteStream(32 * 1024);
    serializeGameState(w, state);
    assert.equal(w.bitsProcessed, 10 + 148 * 1000);
    const m = new MeasureStream();
    serializeGameState(m, state);
    assert.equal(m.bitsProcessed, w.bitsProcessed);
  });

  it('the generator draws the reference inputs', { skip }, () => {
    const ref = readSharedJson<Reference>('vectors/bench_gamestate_reference.json');
    ref.first_entities.forEach((want, i) => {
      const e = state.entities[i];
      assert.equal(e.id, want.id);
      assert.equal(e.orientationLargest, want.largest);
      assert.equal(e.health, want.health);
      assert.deepEqual(e.flags.map(Number), want.flags);
      assert.deepEqual([...e.position, ...e.orientation, ...e.velocity], want.input_f32_bits.map(f32));
    });
  });

  it('reproduces bench_gamestate_packet.bin byte for byte and decodes to the reference values', {
    skip,
  }, () => {
    const ref = readSharedJson<Reference>('vectors/bench_gamestate_reference.json');
    const packet = readSharedBytes('vectors/bench_gamestate_packet.bin');
    const w = new WriteStream(32 * 1024);
    serializeGameState(w, state);
    const out = w.finish();
    assert.equal(out.length, ref.packet_bytes);
    assert.equal(fnv1a64(out), ref.fnv1a64);
    assert.deepEqual(out, packet);

    const r = new ReadStream();
    r.reset(packet);
    const decoded: GameState = { entities: [] };
    serializeGameState(r, decoded);
    assert.ok(r.ok && r.end(), r.error ?? '');
    ref.first_entities.forEach((want, i) => {
      const e = decoded.entities[i];
      assert.deepEqual([...e.position, ...e.orientation, ...e.velocity], want.decoded_f32_bits.map(f32));
    });
  });
});
