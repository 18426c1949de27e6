import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { ReliableEndpoint } from '../../src/packet/index.js';
import { prng, randomBytes } from '../../src/random/prng.js';
import type { Address } from '../../src/transport/index.js';
import { UdpTransport } from '../../src/transport/udp-transport.js';
import { testSeed } from '../support/seed.js';

const SEED = testSeed('udp endpoint tests');

/** A ReliableEndpoint on a UDP socket, recording what it delivers and the outcomes it gets. */
async function udpEndpoint(address: string) {
  const transport = await UdpTransport.open({ address, receiveBufferSize: 4 << 20, sendBufferSize: 4 << 20 });
  const delivered = new Map<number, Uint8Array>();
  const acked = new Set<number>();
  const lost = new Set<number>();
  let peer: Address | null = null;
  const endpoint = new ReliableEndpoint<number>(
    {
      transmit: (_s, data, length) => {
        if (peer !== null) transport.send(peer, data.subarray(0, length));
      },
      process: (_s, data, offset, length) => {
        const id = data[offset] | (data[offset + 1] << 8) | (data[offset + 2] << 16);
        delivered.set(id, Uint8Array.from(data.subarray(offset, offset + length))); // a Buffer from UDP
        return true;
      },
      onAcked: (_s, id) => acked.add(id!),
      onLost: (_s, id) => lost.add(id!),
    },
    { maxPacketSize: 16 * 1024 },
  );
  return {
    transport,
    endpoint,
    delivered,
    acked,
    lost,
    connect(to: Address) {
      peer = to;
    },
    pump(now: number) {
      endpoint.update(now);
      transport.receive((_from, data) => endpoint.receivePacket(data));
    },
  };
}

/** Packets sent only to keep acks flowing once the real ones are out. */
const FILLER_ID = 0xffffff;
const FILLER = new Uint8Array([0xff, 0xff, 0xff]);

async function exchange(host: string): Promise<void> {
  const a = await udpEndpoint(`${host}:0`);
  const b = await udpEndpoint(`${host}:0`);
  a.connect(b.transport.localAddress);
  b.connect(a.transport.localAddress);
  const next = prng(SEED);
  const sent = new Map<number, Uint8Array>();
  const start = performance.now();
  const now = () => (performance.now() - start) / 1000;
  try {
    // 200 packets each way, half of them large enough to be fragmented (up to 16 KiB).
    for (let id = 0; id < 200; id++) {
      const size =
        id % 2 === 0 ? 3 + Math.floor(next() * 1000) : 1025 + Math.floor(next() * (16 * 1024 - 1025));
      const payload = randomBytes(next, size);
      payload[0] = id & 0xff;
      payload[1] = id >> 8;
      payload[2] = 0;
      sent.set(id, payload);
      a.endpoint.sendPacket(payload, payload.length, id);
      b.endpoint.sendPacket(payload, payload.length, id);
      a.pump(now());
      b.pump(now());
      if (id % 10 === 9) await sleep(1);
    }
    // Until every packet has its outcome: a lost one needs ackTimeout (1 s) after its send, so
    // allow several seconds of wall time for a loaded machine.
    const outcomes = (side: typeof a) => [...side.acked, ...side.lost].filter((id) => id < 200).length;
    while ((outcomes(a) < 200 || outcomes(b) < 200) && now() < 8) {
      a.endpoint.sendPacket(FILLER, FILLER.length, FILLER_ID);
      b.endpoint.sendPacket(FILLER, FILLER.length, FILLER_ID);
      await sleep(2);
      a.pump(now());
      b.pump(now());
    }
    for (const [side, peer] of [
      [a, b],
      [b, a],
    ] as const) {
      // Every payload that arrived is intact; acks only for what the peer received; one outcome
      // each. Loopback with 4 MiB buffers drops next to nothing, but a loaded machine may.
      for (const [id, payload] of peer.delivered)
        if (id < 200) assert.deepEqual(payload, sent.get(id), `${host} id ${id}`);
      for (const id of side.acked) {
        if (id !== FILLER_ID) assert.ok(peer.delivered.has(id), `${host}: ${id} acked but not received`);
      }
      for (let id = 0; id < 200; id++)
        assert.ok(side.acked.has(id) !== side.lost.has(id), `${host}: ${id} has no single outcome`);
      assert.ok(peer.delivered.size >= 190, `${host}: only ${peer.delivered.size} of 200 arrived`);
      assert.ok(peer.endpoint.counters.fragmentsReceived > 100);
      assert.ok(side.endpoint.rtt > 0);
    }
  } finally {
    a.transport.close();
    b.transport.close();
  }
}

describe(`ReliableEndpoint over real UDP (seed ${SEED})`, () => {
  it('IPv4 loopback: fragmented and unfragmented packets both ways, all delivered and acked', () =>
    exchange('127.0.0.1'));
  it('IPv6 loopback: the same over ::1', () => exchange('[::1]'));
});
