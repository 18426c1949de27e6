import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  type FragmentHeader,
  type PacketHeader,
  readFragmentHeader,
  readPacketHeader,
  writePacketHeader,
} from '../../src/packet/header.js';
import { ReliableEndpoint, sequenceGreaterThan } from '../../src/packet/index.js';
import { fromHex, hex, readSharedJson, sharedSkip } from '../support/shared.js';

interface HeaderCase {
  name: string;
  sequence: number;
  ack: number;
  ack_bits: number;
  prefix_byte: number;
  bytes: number;
  hex: string;
}
interface RegularCase {
  name: string;
  received_sequences: number[];
  payload_hex: string;
  sequence: number;
  hex: string;
}
interface FragmentCase {
  name: string;
  config: { fragment_above: number; fragment_size: number; max_fragments: number };
  payload_bytes: number;
  received_before: string;
  sent_before: number;
  num_fragments: number;
  fragments: {
    fragment_id: number;
    sequence: number;
    packet_bytes: number;
    header_hex: string;
    hex: string;
  }[];
}
interface Vectors {
  packet_headers: HeaderCase[];
  regular_packets: RegularCase[];
  fragmented_packets: FragmentCase[];
  sequence_greater_than: { s1: number; s2: number; greater_than: boolean }[];
}

const skip = sharedSkip();
const v: Vectors = skip
  ? { packet_headers: [], regular_packets: [], fragmented_packets: [], sequence_greater_than: [] }
  : readSharedJson<Vectors>('vectors/reliable_vectors.json');

/** An endpoint whose transmitted packets are collected as hex. */
function recordingEndpoint(config = {}) {
  const sent: string[] = [];
  const endpoint = new ReliableEndpoint(
    {
      transmit: (_sequence, data, length) => sent.push(hex(data.subarray(0, length))),
      process: () => true,
    },
    config,
  );
  return { endpoint, sent };
}

/** Feeds `endpoint` a regular packet with `sequence` that acks nothing. */
function receiveSequence(endpoint: ReliableEndpoint, sequence: number): void {
  const packet = new Uint8Array(16);
  const n = writePacketHeader(packet, 0, sequence, 0, 0);
  packet[n] = 0xaa;
  endpoint.receivePacket(packet, 0, n + 1);
}

describe('reliable_vectors.json (reference reliable 1.4.0)', { skip }, () => {
  it('packet headers: written byte-exact and read back', () => {
    assert.ok(v.packet_headers.length >= 10);
    for (const c of v.packet_headers) {
      const out = new Uint8Array(9);
      const n = writePacketHeader(out, 0, c.sequence, c.ack, c.ack_bits);
      assert.equal(hex(out.subarray(0, n)), c.hex, c.name);
      assert.equal(n, c.bytes, c.name);
      assert.equal(out[0], c.prefix_byte, c.name);
      const h: PacketHeader = { sequence: -1, ack: -1, ackBits: -1 };
      assert.equal(readPacketHeader(fromHex(c.hex), 0, n, h), n, c.name);
      assert.deepEqual(h, { sequence: c.sequence, ack: c.ack, ackBits: c.ack_bits }, c.name);
    }
  });

  it('regular packets: an endpoint that received the listed sequences sends exactly these bytes', () => {
    assert.ok(v.regular_packets.length >= 1);
    const byName = new Map<string, RegularCase[]>();
    for (const c of v.regular_packets) byName.set(c.name, [...(byName.get(c.name) ?? []), c]);
    for (const cases of byName.values()) {
      const { endpoint, sent } = recordingEndpoint();
      for (const s of cases[0].received_sequences) receiveSequence(endpoint, s);
      for (const c of cases) {
        assert.equal(endpoint.nextSequence, c.sequence);
        endpoint.sendPacket(fromHex(c.payload_hex));
        assert.equal(sent.at(-1), c.hex, `${c.name} sequence ${c.sequence}`);
      }
    }
  });

  it('fragmented packets: split byte-exact, and reassembled by a receiving endpoint', () => {
    assert.ok(v.fragmented_packets.length >= 3);
    for (const c of v.fragmented_packets) {
      const config = {
        fragmentAbove: c.config.fragment_above,
        fragmentSize: c.config.fragment_size,
        maxFragments: c.config.max_fragments,
        maxPacketSize: c.config.max_fragments * c.config.fragment_size,
      };
      const { endpoint, sent } = recordingEndpoint(config);
      const preReceive = Number(/pre_receive=(\d+)/.exec(c.received_before)?.[1]);
      for (let s = 0; s < preReceive; s++) if (s % 5 !== 4) receiveSequence(endpoint, s);
      const filler = new Uint8Array([1]);
      for (let i = 0; i < c.sent_before; i++) endpoint.sendPacket(filler);
      sent.length = 0;
      const payload = Uint8Array.from({ length: c.payload_bytes }, (_, i) => (i * 7 + 3) & 0xff);
      endpoint.sendPacket(payload);
      assert.equal(sent.length, c.num_fragments, c.name);
      c.fragments.forEach((f, i) => {
        assert.equal(sent[i], f.hex, `${c.name} fragment ${f.fragment_id}`);
        assert.ok(f.hex.startsWith(f.header_hex));
        const h = {} as FragmentHeader;
        const bytes = fromHex(f.hex);
        assert.ok(
          readFragmentHeader(bytes, 0, bytes.length, c.config.max_fragments, c.config.fragment_size, h),
        );
        assert.equal(h.fragmentId, f.fragment_id);
      });

      // A peer given the fragments in reverse order rebuilds the payload exactly once.
      let delivered: string | null = null;
      let deliveries = 0;
      const peer = new ReliableEndpoint(
        {
          transmit: () => {},
          process: (_s, data, offset, length) => {
            delivered = hex(data.subarray(offset, offset + length));
            deliveries++;
            return true;
          },
        },
        config,
      );
      for (const f of [...c.fragments].reverse()) peer.receivePacket(fromHex(f.hex));
      for (const f of c.fragments) peer.receivePacket(fromHex(f.hex)); // duplicates after completion
      assert.equal(delivered, hex(payload), c.name);
      assert.equal(deliveries, 1, c.name);
    }
  });

  it('sequence_greater_than', () => {
    assert.ok(v.sequence_greater_than.length >= 8);
    for (const c of v.sequence_greater_than) {
      assert.equal(sequenceGreaterThan(c.s1, c.s2), c.greater_than, `${c.s1} > ${c.s2}`);
    }
  });
});
