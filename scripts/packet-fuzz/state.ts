/**
 * The packet fuzz run's state: fields, construction and bookkeeping. The run is one class in layers,
 * each a file: state, victims, wire, inputs, loop (PacketFuzz).
 */

import { emptyReliableCounters } from '../../src/packet/endpoint.js';
import { FRAGMENT_HEADER_BYTES, MAX_PACKET_HEADER_BYTES } from '../../src/packet/header.js';
import { type ReliableConfig, ReliableEndpoint, reliableConfig } from '../../src/packet/index.js';
import { prng } from '../../src/random/prng.js';
import { crc32 } from '../../src/serialize/crc32.js';
import { MemoryNetwork, NetworkSimulator } from '../../src/transport/index.js';
import {
  ENVELOPE_PROTOCOL_ID,
  InputMaker,
  newTargetReport,
  normalizeReason,
  type ReaderStats,
  recordFailure,
} from '../fuzz-core.js';
import {
  DeliveryLog,
  OutcomeLedger,
  PayloadPattern,
  reassemblyCap,
  subSeed,
  type Violations,
} from '../packet-soak-core.js';
import {
  CAPTURE_SLOTS,
  CLEAN,
  CORRUPTED,
  CRC_BYTES,
  DROPS,
  FORGED,
  MAX_REASONS,
  MUTATED,
  PACKET_FUZZ_DEFAULTS,
  PACKET_READERS,
  PACKET_TARGET,
  type PacketFuzzOptions,
  type PacketFuzzReport,
  type PacketFuzzStats,
  RANDOM,
} from './options.js';
import { RecordingViolations, type Side } from './parts.js';

/** One run's state; the layers above add the victims, the wire, the inputs and the loop. */
export abstract class PacketFuzzState {
  protected readonly config: ReliableConfig;
  protected readonly rng: () => number;
  protected readonly pattern: PayloadPattern;
  protected readonly prefixCrc: number;
  protected readonly violations: Violations;
  protected readonly sides: Side[];
  protected readonly maker: InputMaker;
  /** Injected datagrams are built here: [4 bytes where a CRC goes][packet]. */
  protected readonly injected: Uint8Array;
  protected readonly payload: Uint8Array;
  protected readonly one = new Uint8Array(1);
  protected readonly before = new Float64Array(DROPS.length + 3);
  protected readonly checkCrc: boolean;
  protected readonly corruptionChance: number;
  protected readonly injectionChance: number;
  protected readonly packetsPerTick: number;
  protected readonly epochTicks: number;
  protected readonly cap: number;
  protected readonly report: Omit<PacketFuzzReport, 'stats'>;
  protected readonly stats: {
    -readonly [K in keyof PacketFuzzStats]: PacketFuzzStats[K];
  };
  protected tick = 0;
  protected now = 0;
  protected injecting = true;
  protected input: Uint8Array = new Uint8Array(0);
  protected kind = CLEAN;

  constructor(protected readonly options: PacketFuzzOptions) {
    const d = PACKET_FUZZ_DEFAULTS;
    const seed = options.seed;
    this.config = reliableConfig(options.config ?? {});
    const c = this.config;
    this.rng = prng(subSeed(seed, 'packet fuzz'));
    // Mostly single datagrams, a quarter fragmented into up to four.
    this.pattern = new PayloadPattern(seed, {
      max: Math.min(c.maxPacketSize, 4 * c.fragmentSize),
      smallShare: 0.75,
      smallMax: Math.max(1, Math.min(c.fragmentAbove, c.maxPacketSize)),
    });
    const prefix = new Uint8Array(8);
    new DataView(prefix.buffer).setBigUint64(0, ENVELOPE_PROTOCOL_ID, true);
    this.prefixCrc = crc32(prefix);
    this.checkCrc = options.checkCrc ?? true;
    this.corruptionChance = (options.corruption ?? d.corruption) / 100;
    this.injectionChance = (options.injection ?? d.injection) / 100;
    this.packetsPerTick = options.packetsPerTick ?? d.packetsPerTick;
    this.epochTicks = options.victimEpochTicks ?? d.victimEpochTicks;
    this.cap = reassemblyCap(c);
    const largest =
      CRC_BYTES +
      FRAGMENT_HEADER_BYTES +
      MAX_PACKET_HEADER_BYTES +
      Math.max(c.fragmentSize, Math.min(c.maxPacketSize, c.fragmentAbove));
    this.maker = new InputMaker(2 * largest + 64);
    this.injected = new Uint8Array(CRC_BYTES + MAX_PACKET_HEADER_BYTES + c.maxPacketSize + 256);
    this.payload = new Uint8Array(this.pattern.sizes.max);

    this.report = {
      ...newTargetReport({
        target: PACKET_TARGET,
        description:
          'ReliableEndpoint pair over NetworkSimulators with corruption and injected datagrams: behind a CRC32, acks only for packets received; raw victims never throw, count every input, stay bounded',
        seed,
        readers: PACKET_READERS,
        corpusSize: 2 * CAPTURE_SLOTS,
        gc: options.gc,
      }),
      readerInputs: [0, 0, 0, 0],
    };
    this.stats = {
      ticks: 0,
      simulatedSeconds: 0,
      realDatagrams: 0,
      corrupted: 0,
      injectedRandom: 0,
      injectedMutated: 0,
      injectedForged: 0,
      injectedReplays: 0,
      badArgumentCalls: 0,
      linkOffered: 0,
      linkLost: 0,
      linkDuplicated: 0,
      packetsAccepted: [0, 0, 0, 0],
      fragmentsStored: [0, 0, 0, 0],
      peakReassemblyBytes: [0, 0, 0, 0],
      reassemblyCap: this.cap,
      protectedSides: [],
      victims: [],
    };
    this.violations = new RecordingViolations((kind, detail) => this.fail(kind, detail));

    const network = new MemoryNetwork({ maxQueuedDatagrams: 4096, maxDatagramsPerReceive: 4096 });
    const conditions = {
      latency: d.latency,
      jitter: d.jitter,
      loss: options.loss ?? d.loss,
      duplicates: options.duplicates ?? d.duplicates,
      reorder: d.reorder,
    };
    const transports = [network.createTransport('10.0.0.1:40000'), network.createTransport('10.0.0.2:40000')];
    this.sides = [0, 1].map((index) => {
      const sim = new NetworkSimulator(transports[index], {
        seed: subSeed(seed, index === 0 ? 'link a->b' : 'link b->a'),
        outgoing: conditions,
        maxInFlight: 1 << 16,
        maxDatagramsPerReceive: 4096,
      });
      const capture = CRC_BYTES + largest;
      // The endpoints, ledgers, victim and handler need each other: filled in just below.
      return {
        index,
        name: index === 0 ? 'A' : 'B',
        stream: index,
        sim,
        peer: transports[1 - index].localAddress,
        wire: new Uint8Array(capture),
        captured: Array.from({ length: CAPTURE_SLOTS }, () => new Uint8Array(capture)),
        capturedLength: new Int32Array(CAPTURE_SLOTS),
        captures: 0,
        scratch: new Uint8Array(capture),
        victimEpochs: 0,
        victimSent: 0,
        victimAcked: 0,
        victimLost: 0,
        victimUnbacked: 0,
        victimProcessed: 0,
        victimRefused: 0,
        victimEmpty: 0,
        victimCounters: emptyReliableCounters(),
      } as Side;
    });
    const [a, b] = this.sides;
    a.outcomes = new OutcomeLedger('a->b', (id) => b.deliveries.isDelivered(id), this.violations);
    b.outcomes = new OutcomeLedger('b->a', (id) => a.deliveries.isDelivered(id), this.violations);
    a.deliveries = new DeliveryLog('b->a', 1, this.pattern, () => b.outcomes.sent, this.violations, 0.01);
    b.deliveries = new DeliveryLog('a->b', 0, this.pattern, () => a.outcomes.sent, this.violations, 0.01);
    for (const side of this.sides) {
      side.endpoint = new ReliableEndpoint<number>(
        {
          transmit: (_sequence, data, length) => this.transmit(side, data, length),
          process: (sequence, data, offset, length) =>
            side.deliveries.receive(sequence, data, offset, length),
          onAcked: (sequence, record) => side.outcomes.onAcked(sequence, record),
          onLost: (sequence, record) => side.outcomes.onLost(sequence, record),
        },
        { ...c, name: side.name },
      );
      side.receive = (_from, data) => this.arrive(side, data);
      this.startVictim(side);
    }
  }

  // -------------------------------------------------------------------------------------------
  // Bookkeeping
  // -------------------------------------------------------------------------------------------

  protected fail(check: string, detail: string): void {
    const report = this.report;
    recordFailure(
      report,
      check,
      `${detail} (tick ${this.tick})`,
      Math.max(0, report.iterations - 1),
      this.input,
    );
  }

  protected outcome(reader: number, accepted: boolean, reason?: string): void {
    const stats: ReaderStats = this.report.readers[reader];
    this.report.readerInputs[reader]++;
    if (accepted) {
      stats.accepted++;
      if (this.kind === RANDOM) stats.acceptedRandom++;
      else if (this.kind === MUTATED || this.kind === FORGED || this.kind === CORRUPTED)
        stats.acceptedMutated++;
      return;
    }
    stats.rejected++;
    let key = normalizeReason(reason ?? 'rejected (no reason given)');
    if (!stats.reasons.has(key) && stats.reasons.size >= MAX_REASONS) key = '(other reasons)';
    stats.reasons.set(key, (stats.reasons.get(key) ?? 0) + 1);
  }

  protected abstract startVictim(side: Side): void;
  protected abstract transmit(side: Side, data: Uint8Array, length: number): void;
  protected abstract arrive(side: Side, data: Uint8Array): void;
}
