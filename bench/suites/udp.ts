/**
 * Packets per second between two ReliableEndpoints over real UDP sockets on loopback, in one
 * process: the sender pushes a window of packets, the receiver drains its socket and acks, and
 * the clock runs until every packet of the round arrived. Socket delivery needs event-loop turns,
 * so this suite measures rounds itself (median of rounds) instead of the synchronous harness.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import { ReliableEndpoint } from '../../src/packet/reliable-endpoint.js';
import type { Address } from '../../src/transport/address.js';
import { UdpTransport } from '../../src/transport/udp-transport.js';
import { check, fmt, median, type SuiteContext } from '../harness.js';

async function udpPair(host: string) {
  const options = {
    address: `${host}:0`,
    receiveBufferSize: 8 << 20,
    sendBufferSize: 8 << 20,
    maxQueuedDatagrams: 65536,
  };
  const ta = await UdpTransport.open(options);
  const tb = await UdpTransport.open(options);
  let received = 0;
  const config = { maxPacketSize: 16 * 1024 };
  const make = (transport: UdpTransport, peer: () => Address) =>
    new ReliableEndpoint(
      {
        transmit: (_s, data, length) => transport.send(peer(), data.subarray(0, length)),
        process: () => {
          received++;
          return true;
        },
      },
      config,
    );
  const a = make(ta, () => tb.localAddress);
  const b = make(tb, () => ta.localAddress);
  return {
    a,
    b,
    ta,
    tb,
    get received() {
      return received;
    },
    close() {
      ta.close();
      tb.close();
    },
  };
}

/** Sends `count` packets a -> b in windows of `window`, pumping both sockets; returns seconds taken. */
async function round(
  p: Awaited<ReturnType<typeof udpPair>>,
  payload: Uint8Array,
  count: number,
  window: number,
) {
  const start = performance.now();
  const target = p.received + count;
  let sent = 0;
  // One clock for the pair across rounds: the endpoints refuse a time that goes backwards.
  const now = () => performance.now() / 1000;
  const deadline = start + 10_000;
  while (p.received < target && performance.now() < deadline) {
    const inFlight = sent - (p.received - (target - count));
    for (let i = 0; i < window - inFlight && sent < count; i++, sent++) p.a.sendPacket(payload);
    await nextTurn();
    p.tb.receive((_from, data) => p.b.receivePacket(data), 4096);
    p.b.update(now());
    p.b.sendPacket(payload.subarray(0, 1)); // acks back
    p.ta.receive((_from, data) => p.a.receivePacket(data), 4096);
    p.a.update(now());
    // A window that lost a datagram on the socket would never complete: resend the shortfall.
    if (sent === count && p.received < target && performance.now() - start > 2000)
      sent -= target - p.received;
  }
  return { seconds: (performance.now() - start) / 1000, delivered: p.received - (target - count) };
}

export async function runUdp(ctx: SuiteContext): Promise<void> {
  const rounds = ctx.options.quick ? 3 : 9;
  const rows: string[] = [];
  for (const [label, bytes, count] of [
    ['100-byte packets', 100, ctx.options.quick ? 50_000 : 200_000],
    ['4 KB packets (4 fragments)', 4096, ctx.options.quick ? 10_000 : 40_000],
  ] as const) {
    const p = await udpPair('127.0.0.1');
    const payload = new Uint8Array(bytes).fill(3);
    try {
      await round(p, payload, Math.min(count, 5_000), 256); // warm-up
      const rates: number[] = [];
      for (let r = 0; r < rounds; r++) {
        const { seconds, delivered } = await round(p, payload, count, 256);
        check(delivered >= count, `udp: ${label}: only ${delivered} of ${count} delivered`);
        rates.push(delivered / seconds);
      }
      const dropped = p.tb.stats().dropped + p.ta.stats().dropped;
      rows.push(
        `${label.padEnd(28)} ${fmt(median(rates)).padStart(12)} packets/s   (min ${fmt(Math.min(...rates))}, max ${fmt(Math.max(...rates))}; queue drops ${dropped})`,
      );
      ctx.record(label, { median: median(rates), samples: rates });
    } finally {
      p.close();
    }
  }
  ctx.note(
    `ReliableEndpoint pair over UDP on 127.0.0.1, one process, windows of 256 packets, median of ${rounds} rounds:`,
  );
  for (const row of rows) ctx.note(`  ${row}`);
  ctx.note(
    '  One process drives both sockets, so this is one core doing both ends plus the kernel round trips.',
  );
}
