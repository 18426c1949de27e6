/**
 * Packets per second through a pair of ReliableEndpoints joined in memory: each iteration sends
 * one packet each way, so both directions write and read headers, process acks and deliver
 * notifications. update() runs once per 64 packets (a game tick's worth). Then a long run with
 * no GC in between shows whether the steady state allocates: the heap must not grow.
 */
import { ReliableEndpoint } from '../../src/packet/reliable-endpoint.js';
import { check, collectAllGarbage, fmt, measure, type SuiteContext } from '../harness.js';

function pair(payloadBytes: number) {
  const payload = new Uint8Array(payloadBytes).fill(7);
  let delivered = 0;
  let acked = 0;
  let time = 0;
  let sinceUpdate = 0;
  // Counts packets, not bytes: a byte count passes 2^30 within the run and every increment
  // would then box a new heap number, which is the bench allocating, not the endpoint.
  const process = () => {
    delivered++;
    return true;
  };
  const onAcked = () => {
    acked++;
  };
  const config = { maxPacketSize: 16 * 1024 };
  let b: ReliableEndpoint;
  const a: ReliableEndpoint = new ReliableEndpoint(
    { transmit: (_s, data, length) => b.receivePacket(data, 0, length), process, onAcked },
    config,
  );
  b = new ReliableEndpoint(
    { transmit: (_s, data, length) => a.receivePacket(data, 0, length), process, onAcked },
    config,
  );
  return {
    /** Sends `n` packets each way (update() every `tick` iterations); returns the packets delivered so far. */
    run(n: number, tick = 32): number {
      for (let i = 0; i < n; i++) {
        a.sendPacket(payload);
        b.sendPacket(payload);
        if (++sinceUpdate >= tick) {
          sinceUpdate = 0;
          time += 1 / 60;
          a.update(time);
          b.update(time);
        }
      }
      return delivered;
    },
    get delivered() {
      return delivered;
    },
    get acked() {
      return acked;
    },
    a,
  };
}

export function runPacket(ctx: SuiteContext): void {
  const small = pair(100);
  const large = pair(4096);
  const results = measure(
    [
      { name: '100-byte packets', units: 2, run: (n) => small.run(n) },
      { name: '4 KB packets (4 fragments)', units: 2, run: (n) => large.run(n) },
    ],
    ctx.options,
  );
  check(small.acked > 0 && large.acked > 0, 'packet: nothing was acked');
  check(
    small.a.stats().packetsLost === 0,
    `packet: ${small.a.stats().packetsLost} packets lost on a perfect link`,
  );
  const pps = (name: string) => {
    const r = results.find((x) => x.name === name)!;
    return `${fmt(1e9 / r.median)} packets/s`;
  };
  ctx.table({
    title: 'ReliableEndpoint pair in memory: one packet each way per iteration (ns per packet)',
    unit: 'packet',
    baseline: '100-byte packets',
    results,
    columns: [
      {
        header: 'packets/s (one core)',
        values: Object.fromEntries(results.map((r) => [r.name, pps(r.name)])),
      },
    ],
    notes: [
      'Each packet: header write + read, ack bits, ack processing with notification, RTT sample; update() every 32 iterations.',
    ],
  });

  // Steady-state allocation: long runs with no collection in between. The packet path alone
  // (no update ticks) must not allocate; an update() tick's statistics pass is reported apart.
  const packets = ctx.options.quick ? 400_000 : 2_000_000;
  // A fresh pair per measurement, warmed up with the same tick, so the code measured is optimised
  // for what it runs. The heap grows by a roughly constant amount after a forced full GC (V8's own
  // housekeeping) whatever the packet count, so the figure is the slope: growth over 2N packets
  // minus growth over N, per packet. Best of 3.
  const growthOver = (tick: number, iterations: number): number => {
    const fresh = pair(100);
    fresh.run(200_000, tick);
    collectAllGarbage();
    const before = process.memoryUsage().heapUsed;
    fresh.run(iterations, tick);
    return process.memoryUsage().heapUsed - before;
  };
  const slope = (tick: number): number => {
    let best = Number.POSITIVE_INFINITY;
    for (let attempt = 0; attempt < 3; attempt++) {
      const n = packets / 4;
      best = Math.min(best, (growthOver(tick, 2 * n) - growthOver(tick, n)) / (2 * n));
    }
    return best;
  };
  const perPacket = Math.max(0, slope(Number.POSITIVE_INFINITY));
  const perTick = Math.max(0, ((slope(32) - perPacket) * 64) / 2);
  ctx.note(
    `Steady-state allocation (heap growth per packet, no GC in between, slope over ${fmt(packets / 2)} vs ${fmt(packets)} 100-byte packets): ${perPacket.toFixed(3)} bytes per packet; about ${fmt(perTick)} bytes per endpoint per update() tick (statistics).`,
  );
  ctx.record('heapBytesPerPacket', perPacket);
  ctx.record('heapBytesPerUpdate', perTick);
}
