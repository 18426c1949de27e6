/**
 * The packet-layer soak, shared by `npm run soak` (scripts/soak.ts) and the short seeded run in
 * `npm test` (test/packet/packet-soak.test.ts), plus the pieces the packet fuzz (scripts/packet-fuzz-core.ts)
 * reuses (those three in scripts/packet-soak/ledger.ts, re-exported here):
 *
 * - PayloadPattern: every payload's length and bytes are a function of (seed, stream, packet id),
 *   and the id travels in the payload, so a receiver can check each byte it is handed;
 * - OutcomeLedger (sender side): every sent packet gets exactly one outcome, and an ack only for a
 *   packet the peer really accepted;
 * - DeliveryLog (receiver side): every delivered payload matches its pattern, at most once;
 * - runSoak: two ReliableEndpoints over a MemoryNetwork wrapped in seeded NetworkSimulators.
 *
 * Everything is a function of one seed: a run is replayed by its seed and options.
 */
import {
  type ReliableConfig,
  type ReliableCounters,
  ReliableEndpoint,
  reliableConfig,
} from '../src/packet/index.js';
import {
  type Address,
  type LinkConditions,
  type LinkCounters,
  MemoryNetwork,
  NetworkSimulator,
  type ResolvedLinkConditions,
} from '../src/transport/index.js';
import { int, mb, pct } from './cli.js';
import { memoryProbe } from './memory-probe.js';

import {
  DeliveryLog,
  OutcomeLedger,
  PayloadPattern,
  type PayloadSizes,
  reassemblyCap,
  subSeed,
  Violations,
} from './packet-soak/ledger.js';

export {
  DeliveryLog,
  mix32,
  OutcomeLedger,
  PayloadPattern,
  type PayloadSizes,
  packetHash,
  reassemblyCap,
  subSeed,
  Violations,
} from './packet-soak/ledger.js';

// ---------------------------------------------------------------------------------------------
// The soak
// ---------------------------------------------------------------------------------------------

/** Per direction: 5% loss, 50 ± 10 ms, 1% duplicates, 2% reordered by 50 ms. */
export const DEFAULT_SOAK_CONDITIONS: Readonly<LinkConditions> = Object.freeze({
  latency: 50,
  jitter: 10,
  loss: 5,
  duplicates: 1,
  reorder: 2,
});

export const DEFAULT_SOAK_PACKETS_PER_TICK = 8;
/** Half the packets in [1, 1024] (one datagram), half in [1, maxPacketSize] (most fragmented). */
export const DEFAULT_SOAK_SMALL_SHARE = 0.5;
export const TICK_SECONDS = 1 / 60;
/** Heap growth (after GC) between the warm-up mark and the end that counts as not flat. */
export const SOAK_HEAP_GROWTH_LIMIT = 8 * 1024 * 1024;

export interface SoakOptions {
  readonly seed: number;
  /** Packets per direction. */
  readonly packets: number;
  readonly packetsPerTick?: number;
  /** Each direction's conditions (default DEFAULT_SOAK_CONDITIONS). */
  readonly conditions?: LinkConditions;
  readonly config?: Partial<ReliableConfig>;
  readonly smallShare?: number;
  /** Share of packets the receiver refuses the first time they arrive (default 0.001). */
  readonly refuseShare?: number;
  /** A full GC (globalThis.gc under --expose-gc), for the heap figures. */
  readonly gc?: () => void;
  readonly onProgress?: (progress: SoakProgress) => void;
  /** Progress every this many packets per direction (default packets / 20). */
  readonly progressEvery?: number;
  /**
   * Fault injection, for proving the checks can fail: called with each datagram (a mutable view)
   * just before the receiving endpoint sees it. direction 0 is A→B.
   */
  readonly tamper?: (direction: number, data: Uint8Array) => void;
}

export interface SoakProgress {
  readonly done: number;
  readonly total: number;
  readonly perSecond: number;
  readonly violations: number;
  readonly simulatedSeconds: number;
}

export interface SoakDirectionReport {
  readonly name: string;
  readonly sent: number;
  readonly delivered: number;
  readonly acked: number;
  readonly lost: number;
  readonly lostButDelivered: number;
  readonly falseAcks: number;
  readonly refused: number;
  readonly refusedThenDelivered: number;
  readonly payloadBytes: number;
  readonly link: LinkCounters;
  /** Datagrams the receiver's transport queue dropped (full): extra loss, not the link's. */
  readonly queueDropped: number;
  readonly sender: ReliableCounters;
  readonly receiver: ReliableCounters;
  /** The sender's smoothed RTT and history figures, ms. */
  readonly rtt: { smoothed: number; min: number; avg: number; max: number };
  readonly packetLoss: number;
}

export interface SoakReport {
  readonly seed: number;
  readonly packets: number;
  readonly packetsPerTick: number;
  readonly conditions: ResolvedLinkConditions;
  readonly config: ReliableConfig;
  readonly sizes: PayloadSizes;
  readonly refuseShare: number;
  readonly ticks: number;
  readonly simulatedSeconds: number;
  readonly elapsedMs: number;
  readonly directions: SoakDirectionReport[];
  readonly gcUsed: boolean;
  readonly heapAfterWarmup: number;
  readonly heapAtEnd: number;
  readonly peakRss: number;
  readonly peakHeapUsed: number;
  readonly peakReassemblyBytes: number;
  readonly reassemblyCap: number;
  readonly violations: Violations;
  readonly ok: boolean;
}

function snapshot(counters: ReliableCounters): ReliableCounters {
  return { ...counters };
}

interface Side {
  /** The direction this side sends in. */
  readonly name: string;
  readonly stream: number;
  readonly sim: NetworkSimulator;
  readonly peer: Address;
  readonly endpoint: ReliableEndpoint<number>;
  readonly outcomes: OutcomeLedger;
  /** What this side receives (the peer's packets). */
  readonly deliveries: DeliveryLog;
}

/** Runs the soak; never throws for a violation (an exception inside the run is one). */
export function runSoak(options: SoakOptions): SoakReport {
  const { seed, packets } = options;
  if (!(Number.isSafeInteger(packets) && packets >= 1)) throw new RangeError('packets must be >= 1');
  const packetsPerTick = options.packetsPerTick ?? DEFAULT_SOAK_PACKETS_PER_TICK;
  const config = reliableConfig(options.config ?? {});
  const sizes: PayloadSizes = {
    max: config.maxPacketSize,
    smallShare: options.smallShare ?? DEFAULT_SOAK_SMALL_SHARE,
    smallMax: Math.min(config.fragmentAbove > 0 ? config.fragmentAbove : 1, config.maxPacketSize),
  };
  const refuseShare = options.refuseShare ?? 0.001;
  const pattern = new PayloadPattern(seed, sizes);
  const violations = new Violations();

  // The receive queues fill their slots once round the ring and then reuse them: a queue far
  // larger than a tick's datagrams would only look like heap growth.
  const network = new MemoryNetwork({ maxQueuedDatagrams: 4096, maxDatagramsPerReceive: 4096 });
  const conditions = options.conditions ?? DEFAULT_SOAK_CONDITIONS;
  const transportA = network.createTransport('10.0.0.1:40000');
  const transportB = network.createTransport('10.0.0.2:40000');
  const linkOptions = (label: string) => ({
    seed: subSeed(seed, label),
    outgoing: conditions,
    maxInFlight: 1 << 16,
    maxDatagramsPerReceive: 4096,
  });
  const simA = new NetworkSimulator(transportA, linkOptions('link a->b'));
  const simB = new NetworkSimulator(transportB, linkOptions('link b->a'));
  const resolved = simA.getConditions('outgoing');

  // Direction a->b is stream 0 (A sends, B delivers); b->a is stream 1. Each ledger's acks are
  // backed by the other side's deliveries (closures: used only once everything exists).
  const outAB: OutcomeLedger = new OutcomeLedger(
    'a->b',
    (id) => logAB.isDelivered(id),
    violations,
    true,
    packets,
  );
  const outBA: OutcomeLedger = new OutcomeLedger(
    'b->a',
    (id) => logBA.isDelivered(id),
    violations,
    true,
    packets,
  );
  const logAB = new DeliveryLog('a->b', 0, pattern, () => outAB.sent, violations, refuseShare, packets);
  const logBA = new DeliveryLog('b->a', 1, pattern, () => outBA.sent, violations, refuseShare, packets);
  const makeSide = (
    name: string,
    stream: number,
    sim: NetworkSimulator,
    peer: Address,
    outcomes: OutcomeLedger,
    deliveries: DeliveryLog,
  ): Side => {
    const endpoint = new ReliableEndpoint<number>(
      {
        transmit: (_sequence, data, length) => sim.send(peer, data.subarray(0, length)),
        process: (sequence, data, offset, length) => deliveries.receive(sequence, data, offset, length),
        onAcked: (sequence, record) => outcomes.onAcked(sequence, record),
        onLost: (sequence, record) => outcomes.onLost(sequence, record),
      },
      { ...config, name },
    );
    return { name, stream, sim, peer, endpoint, outcomes, deliveries };
  };
  const a = makeSide('a->b', 0, simA, transportB.localAddress, outAB, logBA);
  const b = makeSide('b->a', 1, simB, transportA.localAddress, outBA, logAB);

  const payload = new Uint8Array(sizes.max);
  const tamper = options.tamper;
  const receivers = [a, b].map((side) => {
    // Datagrams arriving at `side` travelled in the other direction.
    const direction = 1 - side.stream;
    return tamper === undefined
      ? (_from: Address, data: Uint8Array) => side.endpoint.receivePacket(data)
      : (_from: Address, data: Uint8Array) => {
          tamper(direction, data);
          side.endpoint.receivePacket(data);
        };
  });
  const cap = reassemblyCap(config);
  let peakReassembly = 0;
  const peaks = { peakRss: 0, peakHeapUsed: 0 };
  const { sample: sampleMemory, settled: settledHeap } = memoryProbe(peaks, options.gc);

  let tick = 0;
  let now = 0;
  const step = (send: boolean) => {
    tick++;
    now = tick * TICK_SECONDS;
    simA.update(now);
    simB.update(now);
    a.endpoint.update(now);
    b.endpoint.update(now);
    for (let k = 0; k < 2; k++) {
      const side = k === 0 ? a : b;
      while (side.sim.receive(receivers[k], 4096) === 4096);
    }
    if (send) {
      for (let k = 0; k < packetsPerTick; k++) {
        for (const side of [a, b]) {
          const id = side.outcomes.nextId;
          if (id >= packets) continue;
          const length = pattern.write(side.stream, id, payload);
          side.outcomes.onSent(side.endpoint.sendPacket(payload, length, id));
        }
      }
    }
    if ((tick & 63) === 0) {
      for (const side of [a, b]) {
        const bytes = side.endpoint.reassemblyBytes;
        if (bytes > peakReassembly) peakReassembly = bytes;
        if (bytes > cap)
          violations.add('reassembly unbounded', `${side.name}: ${bytes} bytes > cap ${cap} at tick ${tick}`);
      }
    }
  };

  const progressEvery = Math.max(1, options.progressEvery ?? Math.ceil(packets / 20));
  const warmupAt = Math.max(1, Math.floor(packets / 10));
  let heapAfterWarmup = 0;
  let nextProgress = progressEvery;
  const start = performance.now();
  settledHeap();
  try {
    while (a.outcomes.sent < packets || b.outcomes.sent < packets) {
      step(true);
      const done = Math.min(a.outcomes.sent, b.outcomes.sent);
      if (heapAfterWarmup === 0 && done >= warmupAt) heapAfterWarmup = settledHeap();
      if (done >= nextProgress) {
        nextProgress = (Math.floor(done / progressEvery) + 1) * progressEvery;
        sampleMemory();
        options.onProgress?.({
          done,
          total: packets,
          perSecond: (2 * done * 1000) / (performance.now() - start),
          violations: violations.total,
          simulatedSeconds: now,
        });
      }
    }
    // Drain: past the longest delivery delay and the ack timeout, so every packet has its outcome.
    const c = resolved;
    const longestDelay = (c.latency + c.jitter + c.reorderDelay + c.duplicateDelay) / 1000;
    const drainTicks = Math.ceil((config.ackTimeout + longestDelay + 0.25) / TICK_SECONDS);
    for (let i = 0; i < drainTicks; i++) step(false);
  } catch (error) {
    violations.add(
      'exception',
      `at tick ${tick}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
    );
  }
  const elapsedMs = performance.now() - start;

  const directions: SoakDirectionReport[] = [];
  for (const [self, other] of [
    [a, b],
    [b, a],
  ] as const) {
    const lostButDelivered = self.outcomes.finish();
    const sender = snapshot(self.endpoint.counters);
    const receiver = snapshot(other.endpoint.counters);
    const log = other.deliveries;
    const expect = (what: string, got: number, want: number) => {
      if (got !== want) violations.add('counters', `${self.name}: ${what} is ${got}, expected ${want}`);
    };
    expect('sender packetsSent', sender.packetsSent, self.outcomes.sent);
    expect('sender packetsAcked', sender.packetsAcked, self.outcomes.acked);
    expect('sender packetsLost', sender.packetsLost, self.outcomes.lost);
    expect('acked + lost', self.outcomes.acked + self.outcomes.lost, self.outcomes.sent);
    expect('receiver packetsRefused', receiver.packetsRefused, log.refused);
    // Every whole packet the receiver saw was accepted or dropped under exactly one reason.
    expect(
      'receiver packetsReceived - drops',
      receiver.packetsReceived -
        receiver.packetsStale -
        receiver.packetsDuplicate -
        receiver.packetsInvalid -
        receiver.packetsTooLargeToReceive -
        receiver.packetsRefused,
      log.delivered,
    );
    // The link corrupts nothing, so nothing may be judged malformed.
    expect('receiver packetsInvalid (clean link)', receiver.packetsInvalid, 0);
    expect('receiver packetsTooLargeToReceive (clean link)', receiver.packetsTooLargeToReceive, 0);
    directions.push({
      name: self.name,
      sent: self.outcomes.sent,
      delivered: log.delivered,
      acked: self.outcomes.acked,
      lost: self.outcomes.lost,
      lostButDelivered,
      falseAcks: self.outcomes.unbackedAcks,
      refused: log.refused,
      refusedThenDelivered: log.refusedThenDelivered,
      payloadBytes: log.payloadBytes,
      link: { ...self.sim.counters.outgoing },
      queueDropped: other.sim.inner.stats.dropped,
      sender,
      receiver,
      rtt: {
        smoothed: self.endpoint.rtt,
        min: self.endpoint.rttMin,
        avg: self.endpoint.rttAvg,
        max: self.endpoint.rttMax,
      },
      packetLoss: self.endpoint.packetLoss,
    });
  }

  const heapAtEnd = settledHeap();
  const gcUsed = options.gc !== undefined;
  if (gcUsed && heapAfterWarmup > 0 && heapAtEnd - heapAfterWarmup > SOAK_HEAP_GROWTH_LIMIT) {
    violations.add(
      'heap growth',
      `heap after warm-up ${heapAfterWarmup} bytes, at end ${heapAtEnd} (limit +${SOAK_HEAP_GROWTH_LIMIT})`,
    );
  }
  simA.close();
  simB.close();
  return {
    seed,
    packets,
    packetsPerTick,
    conditions: resolved,
    config,
    sizes,
    refuseShare,
    ticks: tick,
    simulatedSeconds: now,
    elapsedMs,
    directions,
    gcUsed,
    heapAfterWarmup,
    heapAtEnd,
    peakRss: peaks.peakRss,
    peakHeapUsed: peaks.peakHeapUsed,
    peakReassemblyBytes: peakReassembly,
    reassemblyCap: cap,
    violations,
    ok: violations.total === 0,
  };
}

// ---------------------------------------------------------------------------------------------
// Reporting
// ---------------------------------------------------------------------------------------------

export function describeConditions(c: LinkConditions): string {
  return `latency ${c.latency ?? 0} ± ${c.jitter ?? 0} ms, loss ${c.loss ?? 0}%, duplicates ${c.duplicates ?? 0}% (+≤${c.duplicateDelay ?? 20} ms), reorder ${c.reorder ?? 0}% (+${c.reorderDelay ?? 50} ms)`;
}

/** The summary as lines of text. */
export function formatSoakReport(report: SoakReport): string {
  const lines: string[] = [];
  const seconds = report.elapsedMs / 1000;
  const sent = report.directions.reduce((s, d) => s + d.sent, 0);
  const bytes = report.directions.reduce((s, d) => s + d.payloadBytes, 0);
  lines.push('summary');
  lines.push(
    `  ${int(sent)} packets (${int(report.packets)} per direction) in ${seconds.toFixed(1)} s: ${int(sent / seconds)} packets/s, ${mb(bytes / seconds)}/s delivered payload; ${int(report.ticks)} ticks = ${report.simulatedSeconds.toFixed(0)} s simulated`,
  );
  for (const d of report.directions) {
    const offered = d.link.offered;
    lines.push(
      `  ${d.name}: sent ${int(d.sent)}, delivered ${int(d.delivered)} (${pct(d.delivered, d.sent)}), acked ${int(d.acked)}, lost ${int(d.lost)} (${pct(d.lost, d.sent)}; ${int(d.lostButDelivered)} of them delivered, their acks lost), false acks ${int(d.falseAcks)}`,
    );
    lines.push(
      `      datagrams ${int(offered)}: lost ${int(d.link.lost)} (${pct(d.link.lost, offered)}), duplicated ${int(d.link.duplicated)}, reordered ${int(d.link.reordered)}, overflow ${int(d.link.overflow)}, queue drops ${int(d.queueDropped)}; fragments sent ${int(d.sender.fragmentsSent)}, received ${int(d.receiver.fragmentsReceived)}, duplicate ${int(d.receiver.fragmentsDuplicate)}, invalid ${int(d.receiver.fragmentsInvalid)}`,
    );
    lines.push(
      `      receiver: packets duplicate ${int(d.receiver.packetsDuplicate)}, stale ${int(d.receiver.packetsStale)}, refused ${int(d.refused)} (${int(d.refusedThenDelivered)} accepted later as a duplicate), invalid ${int(d.receiver.packetsInvalid)}; late acks ${int(d.sender.lateAcks)}`,
    );
    lines.push(
      `      RTT ms: smoothed ${d.rtt.smoothed.toFixed(1)}, min ${d.rtt.min.toFixed(1)}, avg ${d.rtt.avg.toFixed(1)}, max ${d.rtt.max.toFixed(1)}; endpoint packet loss ${d.packetLoss.toFixed(1)}%`,
    );
  }
  lines.push(
    `  heap after warm-up (10%) ${mb(report.heapAfterWarmup)}, at end ${mb(report.heapAtEnd)}${report.gcUsed ? ' (after GC)' : ' (no --expose-gc: not settled)'}: ${report.gcUsed ? (report.heapAtEnd - report.heapAfterWarmup <= SOAK_HEAP_GROWTH_LIMIT ? 'flat' : 'GREW') : 'not checked'}; peak RSS ${mb(report.peakRss)}, reassembly peak ${int(report.peakReassemblyBytes)} B (cap ${int(report.reassemblyCap)} B)`,
  );
  const corrupted = report.violations.count('corrupted');
  const twice = report.violations.count('delivered twice');
  const falseAcks = report.violations.count('false ack');
  const missing = report.directions.reduce((s, d) => s + (d.sent - d.acked - d.lost), 0);
  lines.push(
    `  checks: corrupted payloads ${corrupted}, delivered twice ${twice}, false acks ${falseAcks}, packets without an outcome ${missing}, violations in all ${report.violations.total}`,
  );
  for (const [kind, count] of report.violations.counts) lines.push(`    ${kind}: ${int(count)}`);
  for (const example of report.violations.examples) lines.push(`    ${example.split('\n').join('\n      ')}`);
  lines.push(`  seed ${report.seed}: ${report.ok ? 'PASS' : 'FAIL'}`);
  return lines.join('\n');
}
