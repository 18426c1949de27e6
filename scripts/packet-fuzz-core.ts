/**
 * The packet-layer fuzz, shared by `npm run fuzz` (target `packet` in scripts/fuzz.ts) and the
 * short seeded run in `npm test` (test/packet-fuzz.test.ts).
 *
 * Two ReliableEndpoints, A and B, talk over a MemoryNetwork wrapped in seeded NetworkSimulators
 * (10% loss, 5% duplicates, some latency, jitter and reordering). On arrival, 20% of datagrams get
 * one bit flipped, and datagrams are injected between the real ones: random bytes, mutations of
 * captured real datagrams (bit flips, truncation, extension, overwrites, splices), header field
 * tweaks (sequence, ack, ack bits, reserved and fragment bits), fragments with wild ids, counts and
 * sizes, well-formed forged packets, and exact replays. Every datagram, real or not, goes to two
 * readers on the receiving side:
 *
 * (a) the protected path: a CRC32 over (protocol id as 8 bytes LE || packet), prepended as 4 bytes
 *     LE (the envelope's layout), checked below the endpoint. Property: acks only for packets the
 *     peer really accepted, every payload delivered intact and at most once, every sent packet
 *     exactly one outcome. (Random bytes pass a CRC32 with odds 2^-32 per datagram: about 1e-4
 *     per default run. Single-bit flips never do.)
 * (b) a victim endpoint fed the same bytes raw, CRC stripped but not checked (and sometimes
 *     called with nonsense arguments). Property: receivePacket never throws; every call moves
 *     exactly the counters it should (one drop reason, or a packet accepted, or a fragment stored,
 *     plus the reassembled packet's own outcome); reassembly memory stays under its documented cap;
 *     every packet the victim sends still gets exactly one outcome. Victims send in step with their
 *     protected twin (same sequences), so the acks corruption forges at a victim are counted: the
 *     reason the CRC is there. A victim is replaced every `victimEpochTicks` ticks, since a forged
 *     far-ahead sequence leaves it rejecting the real traffic as stale for a long while.
 *
 * Everything is a function of the seed: a run is replayed by its seed and datagram count.
 */
import {
  emptyReliableCounters,
  FRAGMENT_HEADER_BYTES,
  MAX_PACKET_HEADER_BYTES,
  type ReliableConfig,
  type ReliableCounters,
  ReliableEndpoint,
  reliableConfig,
  writeFragmentHeader,
  writePacketHeader,
} from '../src/packet/index.js';
import { prng, randomInt } from '../src/random/prng.js';
import { crc32 } from '../src/serialize/crc32.js';
import {
  type Address,
  type DatagramHandler,
  MemoryNetwork,
  NetworkSimulator,
} from '../src/transport/index.js';
import { int, pct } from './cli.js';
import {
  ENVELOPE_PROTOCOL_ID,
  hex,
  InputMaker,
  newTargetReport,
  normalizeReason,
  type Progress,
  ReaderCrash,
  type ReaderStats,
  recordFailure,
  runMeter,
  sameBytes,
  type TargetReport,
} from './fuzz-core.js';
import {
  DeliveryLog,
  OutcomeLedger,
  PayloadPattern,
  reassemblyCap,
  subSeed,
  Violations,
} from './packet-soak-core.js';

export const PACKET_TARGET = 'packet';

export const PACKET_READERS = [
  'A: crc32+endpoint',
  'B: crc32+endpoint',
  'victim A (raw)',
  'victim B (raw)',
] as const;

export interface PacketFuzzOptions {
  readonly seed: number;
  /** Distinct datagrams to feed (real and injected); each reaches a protected endpoint and a victim. */
  readonly datagrams: number;
  /** Link loss per direction, percent (default 10). */
  readonly loss?: number;
  /** Link duplicates per direction, percent (default 5). */
  readonly duplicates?: number;
  /** Real datagrams with one bit flipped on arrival, percent (default 20). */
  readonly corruption?: number;
  /** Injected datagrams per 100 real ones (default 30). */
  readonly injection?: number;
  /** Packets each side sends per 1/60 s tick (default 4). */
  readonly packetsPerTick?: number;
  /** Ticks between victim replacements (default 512). */
  readonly victimEpochTicks?: number;
  readonly config?: Partial<ReliableConfig>;
  /**
   * False feeds the protected endpoints without checking the CRC (default true): a control that
   * shows the property checks fail when there is no integrity check below the endpoint.
   */
  readonly checkCrc?: boolean;
  readonly onProgress?: (progress: Progress) => void;
  /** Progress about every this many ms (default 500). */
  readonly progressMs?: number;
  /** A full GC (globalThis.gc under --expose-gc), for the heap figures. */
  readonly gc?: () => void;
}

export interface ProtectedStats {
  readonly name: string;
  readonly sent: number;
  readonly delivered: number;
  readonly acked: number;
  readonly lost: number;
  readonly lostButDelivered: number;
  readonly falseAcks: number;
  readonly refused: number;
  readonly counters: ReliableCounters;
}

export interface VictimStats {
  readonly name: string;
  readonly epochs: number;
  readonly sent: number;
  readonly acked: number;
  readonly lost: number;
  /** Acks for packets the peer never accepted: forged by corruption or injection. */
  readonly unbackedAcks: number;
  /** Payloads the victim's process() accepted / refused, and how many of them were empty. */
  readonly processed: number;
  readonly refused: number;
  readonly emptyPayloads: number;
  readonly counters: ReliableCounters;
}

export interface PacketFuzzStats {
  readonly ticks: number;
  readonly simulatedSeconds: number;
  readonly realDatagrams: number;
  readonly corrupted: number;
  readonly injectedRandom: number;
  readonly injectedMutated: number;
  readonly injectedForged: number;
  readonly injectedReplays: number;
  readonly badArgumentCalls: number;
  readonly linkOffered: number;
  readonly linkLost: number;
  readonly linkDuplicated: number;
  /** Per reader: inputs that were a whole packet accepted, or a fragment stored. */
  readonly packetsAccepted: number[];
  readonly fragmentsStored: number[];
  readonly peakReassemblyBytes: number[];
  readonly reassemblyCap: number;
  readonly protectedSides: ProtectedStats[];
  readonly victims: VictimStats[];
}

export interface PacketFuzzReport extends TargetReport {
  /** Inputs per reader (readers see different shares of the datagrams). */
  readonly readerInputs: number[];
  readonly stats: PacketFuzzStats;
}

export const PACKET_FUZZ_DEFAULTS = Object.freeze({
  loss: 10,
  duplicates: 5,
  corruption: 20,
  injection: 30,
  packetsPerTick: 4,
  victimEpochTicks: 512,
  latency: 30,
  jitter: 10,
  reorder: 2,
});

const TICK_SECONDS = 1 / 60;
const CRC_BYTES = 4;
const CAPTURE_SLOTS = 256;
const FILLER = -1;

const CLEAN = 0;
const CORRUPTED = 1;
const RANDOM = 2;
const MUTATED = 3;
const FORGED = 4;
const REPLAY = 5;
const BAD_ARGUMENTS = 6;
const KIND_NAMES = [
  'a real datagram',
  'a real datagram with one bit flipped',
  'injected random bytes',
  'an injected mutation of a captured datagram',
  'an injected forged header or fragment',
  'an injected exact replay',
  'a replay, with nonsense arguments for the victim',
];

/** Counters that name why an input went no further, in the order reasons are reported. */
const DROPS = [
  'packetsInvalid',
  'packetsTooLargeToReceive',
  'packetsStale',
  'packetsDuplicate',
  'packetsRefused',
  'fragmentsInvalid',
  'fragmentsDuplicate',
] as const;

const MAX_REASONS = 200;

/** A string for a failed check: the ledgers' violations come through here too. */
class RecordingViolations extends Violations {
  constructor(private readonly record: (kind: string, detail: string) => void) {
    super(0);
  }

  override add(kind: string, detail: string): void {
    super.add(kind, detail);
    this.record(kind, detail);
  }
}

interface Side {
  readonly index: number;
  readonly name: string;
  /** The direction this side sends in (0: a->b). */
  readonly stream: number;
  readonly sim: NetworkSimulator;
  readonly peer: Address;
  endpoint: ReliableEndpoint<number>;
  outcomes: OutcomeLedger;
  /** What this side's protected endpoint accepted (the peer's packets). */
  deliveries: DeliveryLog;
  /** CRC-stamped datagrams on their way out. */
  readonly wire: Uint8Array;
  /** The last datagrams this side sent, whole (CRC included), to mutate and replay at the peer. */
  readonly captured: Uint8Array[];
  readonly capturedLength: Int32Array;
  captures: number;
  /** A corrupted copy of an arriving datagram. */
  readonly scratch: Uint8Array;
  receive: DatagramHandler;
  victim: ReliableEndpoint<number>;
  victimOutcomes: OutcomeLedger;
  victimEpochs: number;
  victimSent: number;
  victimAcked: number;
  victimLost: number;
  victimUnbacked: number;
  victimProcessed: number;
  victimRefused: number;
  victimEmpty: number;
  victimCounters: ReliableCounters;
}

function addCounters(into: ReliableCounters, from: ReliableCounters): void {
  for (const key of Object.keys(into) as (keyof ReliableCounters)[]) into[key] += from[key];
}

/** One fuzz run; `run()` once. */
class PacketFuzz {
  private readonly config: ReliableConfig;
  private readonly rng: () => number;
  private readonly pattern: PayloadPattern;
  private readonly prefixCrc: number;
  private readonly violations: Violations;
  private readonly sides: Side[];
  private readonly maker: InputMaker;
  /** Injected datagrams are built here: [4 bytes where a CRC goes][packet]. */
  private readonly injected: Uint8Array;
  private readonly payload: Uint8Array;
  private readonly one = new Uint8Array(1);
  private readonly before = new Float64Array(DROPS.length + 3);
  private readonly checkCrc: boolean;
  private readonly corruptionChance: number;
  private readonly injectionChance: number;
  private readonly packetsPerTick: number;
  private readonly epochTicks: number;
  private readonly cap: number;
  private readonly report: Omit<PacketFuzzReport, 'stats'>;
  private readonly stats: {
    -readonly [K in keyof PacketFuzzStats]: PacketFuzzStats[K];
  };
  private tick = 0;
  private now = 0;
  private injecting = true;
  private input: Uint8Array = new Uint8Array(0);
  private kind = CLEAN;

  constructor(private readonly options: PacketFuzzOptions) {
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

  private fail(check: string, detail: string): void {
    const report = this.report;
    recordFailure(
      report,
      check,
      `${detail} (tick ${this.tick})`,
      Math.max(0, report.iterations - 1),
      this.input,
    );
  }

  private outcome(reader: number, accepted: boolean, reason?: string): void {
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

  // -------------------------------------------------------------------------------------------
  // Victims
  // -------------------------------------------------------------------------------------------

  /** A fresh victim for `side`, brought to its twin's next sequence by filler packets. */
  private startVictim(side: Side): void {
    const peer = this.sides[1 - side.index];
    const ledger = new OutcomeLedger(
      `victim ${side.name} (epoch ${side.victimEpochs})`,
      (id) => peer.deliveries.isDelivered(id),
      this.violations,
      false,
      1024,
      side.outcomes.nextId,
    );
    const victim = new ReliableEndpoint<number>(
      {
        transmit: () => {},
        process: (sequence, data, offset, length) => this.victimProcess(side, sequence, data, offset, length),
        onAcked: (sequence, record) => {
          if (record !== FILLER) ledger.onAcked(sequence, record);
        },
        onLost: (sequence, record) => {
          if (record !== FILLER) ledger.onLost(sequence, record);
        },
      },
      { ...this.config, name: `victim ${side.name}` },
      this.now,
    );
    const target = side.endpoint.nextSequence;
    for (let i = 0; i < target; i++) victim.sendPacket(this.one, 1, FILLER);
    this.report.semanticChecks++;
    if (victim.nextSequence !== target)
      this.fail('victim in step', `victim ${side.name} at ${victim.nextSequence}, twin at ${target}`);
    side.victim = victim;
    side.victimOutcomes = ledger;
    side.victimEpochs++;
  }

  /** Ends the victim's epoch: past its ack timeout every packet must have exactly one outcome. */
  private endVictim(side: Side): void {
    const victim = side.victim;
    const ledger = side.victimOutcomes;
    victim.update(this.now + this.config.ackTimeout + 1);
    ledger.finish();
    const c = victim.counters;
    this.report.semanticChecks += 2;
    if (c.packetsAcked + c.packetsLost !== c.packetsSent)
      this.fail(
        'every sent packet exactly one outcome',
        `victim ${side.name}: acked ${c.packetsAcked} + lost ${c.packetsLost} != sent ${c.packetsSent}`,
      );
    if (ledger.pending !== 0)
      this.fail('every sent packet exactly one outcome', `victim ${side.name}: ${ledger.pending} pending`);
    side.victimSent += ledger.sent;
    side.victimAcked += ledger.acked;
    side.victimLost += ledger.lost;
    side.victimUnbacked += ledger.unbackedAcks;
    addCounters(side.victimCounters, c);
  }

  private victimProcess(
    side: Side,
    sequence: number,
    data: Uint8Array,
    offset: number,
    length: number,
  ): boolean {
    this.report.semanticChecks++;
    if (
      !(
        Number.isInteger(sequence) &&
        sequence >= 0 &&
        sequence <= 0xffff &&
        Number.isInteger(offset) &&
        Number.isInteger(length) &&
        offset >= 0 &&
        length >= 0 &&
        offset + length <= data.length &&
        length <= this.config.maxPacketSize
      )
    ) {
      this.fail(
        'process() is handed a sound payload view',
        `victim ${side.name}: sequence ${sequence}, offset ${offset}, length ${length} of a ${data.length}-byte buffer`,
      );
    }
    if (length === 0) side.victimEmpty++;
    // Refuse about one payload in sixteen, by content, so refusal is fuzzed too.
    const accept = length === 0 || (data[offset] & 15) !== 0;
    if (accept) side.victimProcessed++;
    else side.victimRefused++;
    return accept;
  }

  // -------------------------------------------------------------------------------------------
  // The wire
  // -------------------------------------------------------------------------------------------

  private stampCrc(buffer: Uint8Array, end: number): void {
    const crc = crc32(buffer, CRC_BYTES, end, this.prefixCrc);
    buffer[0] = crc & 0xff;
    buffer[1] = (crc >>> 8) & 0xff;
    buffer[2] = (crc >>> 16) & 0xff;
    buffer[3] = crc >>> 24;
  }

  private crcMatches(data: Uint8Array): boolean {
    const stored = (data[0] | (data[1] << 8) | (data[2] << 16) | (data[3] << 24)) >>> 0;
    return crc32(data, CRC_BYTES, data.length, this.prefixCrc) === stored;
  }

  private transmit(side: Side, data: Uint8Array, length: number): void {
    const wire = side.wire;
    wire.set(length === data.length ? data : data.subarray(0, length), CRC_BYTES);
    this.stampCrc(wire, CRC_BYTES + length);
    const datagram = wire.subarray(0, CRC_BYTES + length);
    side.sim.send(side.peer, datagram);
    if (this.rng() < 0.25) {
      const slot = side.captures++ % CAPTURE_SLOTS;
      side.captured[slot].set(datagram);
      side.capturedLength[slot] = datagram.length;
    }
  }

  private send(side: Side): void {
    const id = side.outcomes.nextId;
    const length = this.pattern.write(side.stream, id, this.payload);
    side.outcomes.onSent(side.endpoint.sendPacket(this.payload, length, id));
    const ledger = side.victimOutcomes;
    if (ledger.nextId !== id)
      this.fail('victim in step', `victim ${side.name} at id ${ledger.nextId}, twin at ${id}`);
    ledger.onSent(side.victim.sendPacket(this.one, 1, id));
  }

  /** A datagram from the network reaches `side`: maybe an injection first, maybe a flipped bit. */
  private arrive(side: Side, data: Uint8Array): void {
    const rng = this.rng;
    if (this.injecting && rng() < this.injectionChance) this.inject(side);
    this.stats.realDatagrams++;
    if (rng() < this.corruptionChance && data.length > 0) {
      const copy = side.scratch.subarray(0, data.length);
      copy.set(data);
      const bit = randomInt(rng, data.length * 8);
      copy[bit >>> 3] ^= 1 << (bit & 7);
      this.stats.corrupted++;
      this.feed(side, copy, CORRUPTED);
    } else {
      this.feed(side, data, CLEAN);
    }
  }

  // -------------------------------------------------------------------------------------------
  // Feeding the readers
  // -------------------------------------------------------------------------------------------

  private feed(side: Side, input: Uint8Array, kind: number): void {
    const report = this.report;
    report.iterations++;
    this.input = input;
    this.kind = kind;
    if (kind === RANDOM) report.randomInputs++;
    else if (kind === MUTATED || kind === FORGED || kind === CORRUPTED) report.mutatedInputs++;
    const length = input.length;

    // (a) The protected path: the CRC first, the endpoint only when it matches.
    if (length < CRC_BYTES) this.outcome(side.index, false, 'shorter than the CRC');
    else if (this.checkCrc && !this.crcMatches(input)) this.outcome(side.index, false, 'CRC32 mismatch');
    else this.measured(side.index, side.endpoint, side.deliveries, input, CRC_BYTES, length - CRC_BYTES);

    // (b) The victim: the same bytes, CRC stripped unchecked (whole when there is nothing after it).
    const reader = 2 + side.index;
    if (kind === BAD_ARGUMENTS) this.badArguments(side, input);
    else if (length > CRC_BYTES)
      this.measured(reader, side.victim, side, input, CRC_BYTES, length - CRC_BYTES);
    else this.measured(reader, side.victim, side, input, 0, length);
  }

  /**
   * One receivePacket call, with its counters checked: exactly one drop reason moves, or the
   * payload is accepted, or a fragment is stored; a fragment that completes a packet adds that
   * packet's own outcome. `accepts` counts process() accepting.
   */
  private measured(
    reader: number,
    endpoint: ReliableEndpoint<number>,
    accepts: DeliveryLog | Side,
    data: unknown,
    offset: unknown,
    length: unknown,
  ): void {
    const c = endpoint.counters;
    const before = this.before;
    for (let k = 0; k < DROPS.length; k++) before[k] = c[DROPS[k]];
    before[DROPS.length] = c.fragmentsReceived;
    before[DROPS.length + 1] = c.packetsReceived;
    const acceptedBefore = accepts instanceof DeliveryLog ? accepts.delivered : accepts.victimProcessed;
    before[DROPS.length + 2] = acceptedBefore;
    try {
      endpoint.receivePacket(data as Uint8Array, offset as number, length as number);
    } catch (error) {
      throw new ReaderCrash(PACKET_READERS[reader], error);
    }
    const acceptedAfter = accepts instanceof DeliveryLog ? accepts.delivered : accepts.victimProcessed;
    let drops = 0;
    let reason = -1;
    let negative = false;
    for (let k = 0; k < DROPS.length; k++) {
      const moved = c[DROPS[k]] - before[k];
      if (moved < 0) negative = true;
      if (moved > 0 && reason < 0) reason = k;
      drops += moved;
    }
    const fragments = c.fragmentsReceived - before[DROPS.length];
    const received = c.packetsReceived - before[DROPS.length + 1];
    const accepted = acceptedAfter - acceptedBefore;
    const expected = 1 + (fragments === 1 ? received : 0);
    this.report.semanticChecks++;
    if (
      negative ||
      drops + accepted + fragments !== expected ||
      fragments < 0 ||
      fragments > 1 ||
      received < 0 ||
      received > 1 ||
      accepted < 0 ||
      accepted > 1
    ) {
      this.fail(
        'counters account for every input',
        `${PACKET_READERS[reader]}: drops moved ${drops} (first ${reason < 0 ? 'none' : DROPS[reason]}), accepted ${accepted}, fragments stored ${fragments}, packets received ${received}; expected ${expected} in all`,
      );
    }
    if (fragments === 1) {
      this.stats.fragmentsStored[reader]++;
      this.outcome(reader, true);
    } else if (accepted === 1) {
      this.stats.packetsAccepted[reader]++;
      this.outcome(reader, true);
    } else {
      this.outcome(reader, false, reason < 0 ? 'no counter moved' : DROPS[reason]);
    }
  }

  /** The victim called as an untyped caller might: every such call must count as one invalid input. */
  private badArguments(side: Side, input: Uint8Array): void {
    this.stats.badArgumentCalls++;
    let data: unknown = input;
    let offset = 0;
    let length = 1;
    switch (randomInt(this.rng, 9)) {
      case 0:
        offset = -1;
        break;
      case 1:
        length = input.length + 1;
        break;
      case 2:
        offset = 0.5;
        break;
      case 3:
        length = Number.NaN;
        break;
      case 4:
        offset = input.length;
        length = 0;
        break;
      case 5:
        data = null;
        break;
      case 6:
        data = Array.from(input.subarray(0, 16));
        length = 4;
        break;
      case 7:
        data = new Uint16Array(8);
        length = 4;
        break;
      default:
        length = Number.POSITIVE_INFINITY;
    }
    this.measured(2 + side.index, side.victim, side, data, offset, length);
  }

  // -------------------------------------------------------------------------------------------
  // Injected datagrams
  // -------------------------------------------------------------------------------------------

  /** An injected datagram into `side`, built from what the peer sent lately. */
  private inject(side: Side): void {
    const rng = this.rng;
    const peer = this.sides[1 - side.index];
    const available = Math.min(peer.captures, CAPTURE_SLOTS);
    const out = this.injected;
    const r = rng();
    if (available === 0 || r < 0.2) {
      this.stats.injectedRandom++;
      const q = rng();
      const length =
        q < 0.05
          ? randomInt(rng, 9)
          : q < 0.08
            ? this.config.maxPacketSize +
              randomInt(rng, 2 * MAX_PACKET_HEADER_BYTES + FRAGMENT_HEADER_BYTES + 8)
            : randomInt(rng, 1100);
      fillRandom(rng, out, 0, length);
      this.feed(side, out.subarray(0, length), RANDOM);
      return;
    }
    const k = randomInt(rng, available);
    const base = peer.captured[k].subarray(0, peer.capturedLength[k]);
    if (r < 0.63) {
      this.stats.injectedMutated++;
      const m = randomInt(rng, available);
      const other = peer.captured[m].subarray(0, peer.capturedLength[m]);
      const mutated = this.maker.mutate(rng, base.subarray(CRC_BYTES), other.subarray(CRC_BYTES));
      out.set(base.subarray(0, CRC_BYTES), 0);
      out.set(mutated, CRC_BYTES);
      const input = out.subarray(0, CRC_BYTES + mutated.length);
      // A mutation can undo itself (a byte overwritten with its own value): that is a replay.
      this.feed(side, input, sameBytes(input, base) ? REPLAY : MUTATED);
      return;
    }
    if (r < 0.9) {
      this.stats.injectedForged++;
      const input = out.subarray(0, this.forge(side, base));
      this.feed(side, input, sameBytes(input, base) ? REPLAY : FORGED);
      return;
    }
    out.set(base, 0);
    if (r < 0.97) {
      this.stats.injectedReplays++;
      this.feed(side, out.subarray(0, base.length), REPLAY);
      return;
    }
    // A replay for the protected path; nonsense arguments for the victim.
    this.feed(side, out.subarray(0, base.length), BAD_ARGUMENTS);
  }

  /**
   * Header-aware forgeries of a captured datagram `base` (CRC included) into this.injected: the
   * sequence, ack, ack bits and reserved bits tweaked, fragment ids and counts changed, wild
   * fragments and well-formed regular packets made up. Returns the length.
   */
  private forge(side: Side, base: Uint8Array): number {
    const rng = this.rng;
    const out = this.injected;
    out.set(base, 0);
    const p = CRC_BYTES;
    const fragment = (out[p] & 1) === 1;
    const sequence = out[p + 1] | (out[p + 2] << 8);
    // The regular header: the packet's own, or fragment 0's embedded one (none on later fragments).
    const h = fragment ? (out[p + 3] === 0 ? p + FRAGMENT_HEADER_BYTES : -1) : p;
    // Acks in packets reaching `side` are about the sequences it sent lately.
    const nearAck = (side.endpoint.nextSequence - 1 - randomInt(rng, 48)) & 0xffff;
    switch (randomInt(rng, 8)) {
      case 0: {
        const s = tweak16(rng, sequence);
        out[p + 1] = s & 0xff;
        out[p + 2] = s >>> 8;
        if (fragment && h > 0 && rng() < 0.7) {
          out[h + 1] = s & 0xff;
          out[h + 2] = s >>> 8;
        }
        break;
      }
      case 1: {
        if (h < 0 || base.length <= h + 4) return this.wildFragment(sequence, nearAck);
        if (out[h] & 0x20) out[h + 3] = rng() < 0.5 ? randomInt(rng, 256) : (sequence - nearAck) & 0xff;
        else {
          const ack = rng() < 0.5 ? randomInt(rng, 65536) : nearAck;
          out[h + 3] = ack & 0xff;
          out[h + 4] = ack >>> 8;
        }
        if (rng() < 0.3) out[h] ^= 0x20; // the one-byte-ack flag, without re-laying the header out
        break;
      }
      case 2: {
        if (h < 0) return this.wildFragment(sequence, nearAck);
        if (rng() < 0.4) out[h] ^= 1 << (1 + randomInt(rng, 4));
        else {
          let q = h + 3 + (out[h] & 0x20 ? 1 : 2);
          for (let bit = 1; bit <= 4; bit++) {
            if (!(out[h] & (1 << bit)) || q >= base.length) continue;
            const pick = rng();
            out[q++] = pick < 0.3 ? randomInt(rng, 256) : pick < 0.6 ? 0 : pick < 0.8 ? 0xfe : 0xff;
          }
        }
        break;
      }
      case 3:
        out[p] ^= [0x40, 0x80, 0x01][randomInt(rng, 3)];
        break;
      case 4:
        if (!fragment) return this.wildFragment(sequence, nearAck);
        if (rng() < 0.5) out[p + 3] = rng() < 0.5 ? randomInt(rng, 256) : (out[p + 3] + 1) & 0xff;
        else out[p + 4] = rng() < 0.5 ? randomInt(rng, 256) : (out[p + 4] + 1) & 0xff;
        break;
      case 5:
      case 6:
        return this.wildFragment(sequence, nearAck);
      default:
        return this.forgedRegular(sequence, nearAck);
    }
    return base.length;
  }

  /** A made-up fragment: sequence near `near`, ids and counts from valid to wild, sizes likewise. */
  private wildFragment(near: number, nearAck: number): number {
    const rng = this.rng;
    const out = this.injected;
    const c = this.config;
    const p = CRC_BYTES;
    fillRandom(rng, out, 0, CRC_BYTES);
    const r = rng();
    const sequence =
      r < 0.3 ? near : r < 0.85 ? (near + randomInt(rng, 129) - 64) & 0xffff : randomInt(rng, 65536);
    const q = rng();
    const count =
      q < 0.45
        ? 1 + randomInt(rng, c.maxFragments)
        : q < 0.75
          ? 1 + randomInt(rng, 256)
          : q < 0.9
            ? 1
            : c.maxFragments + 1;
    const w = rng();
    const id = w < 0.4 ? randomInt(rng, count) : w < 0.6 ? 0 : w < 0.8 ? count - 1 : randomInt(rng, 256);
    writeFragmentHeader(out, p, sequence, id & 0xff, Math.min(count, 256));
    let at = p + FRAGMENT_HEADER_BYTES;
    if (id === 0) {
      const embedded = rng() < 0.9 ? sequence : randomInt(rng, 65536);
      at += writePacketHeader(out, at, embedded, nearAck, randomAckBits(rng));
      if (rng() < 0.05) out[p + FRAGMENT_HEADER_BYTES] |= 0x40;
    }
    const s = rng();
    const body =
      id !== count - 1 && s < 0.8
        ? c.fragmentSize
        : s < 0.9
          ? 1 + randomInt(rng, c.fragmentSize)
          : s < 0.95
            ? 0
            : c.fragmentSize + 1 + randomInt(rng, 16);
    fillRandom(rng, out, at, at + body);
    return at + body;
  }

  /** A well-formed regular packet with a made-up sequence, ack, ack bits and payload. */
  private forgedRegular(near: number, nearAck: number): number {
    const rng = this.rng;
    const out = this.injected;
    fillRandom(rng, out, 0, CRC_BYTES);
    const r = rng();
    const sequence = r < 0.8 ? (near + randomInt(rng, 65) - 32) & 0xffff : randomInt(rng, 65536);
    const ack = rng() < 0.8 ? nearAck : randomInt(rng, 65536);
    const at = CRC_BYTES + writePacketHeader(out, CRC_BYTES, sequence, ack, randomAckBits(rng));
    const s = rng();
    const body =
      s < 0.1
        ? 0
        : s < 0.95
          ? 1 + randomInt(rng, 1100)
          : this.config.maxPacketSize - 4 + randomInt(rng, 2 * MAX_PACKET_HEADER_BYTES + 8);
    fillRandom(rng, out, at, at + body);
    return at + body;
  }

  // -------------------------------------------------------------------------------------------
  // The loop
  // -------------------------------------------------------------------------------------------

  private step(send: boolean): void {
    this.tick++;
    this.now = this.tick * TICK_SECONDS;
    const now = this.now;
    for (const side of this.sides) side.sim.update(now);
    for (const side of this.sides) {
      side.endpoint.update(now);
      side.victim.update(now);
    }
    for (const side of this.sides) while (side.sim.receive(side.receive, 4096) === 4096);
    if (send) {
      for (let k = 0; k < this.packetsPerTick; k++) for (const side of this.sides) this.send(side);
    }
    for (const side of this.sides) {
      for (const [k, endpoint] of [
        [side.index, side.endpoint],
        [2 + side.index, side.victim],
      ] as const) {
        const bytes = endpoint.reassemblyBytes;
        if (bytes > this.stats.peakReassemblyBytes[k]) this.stats.peakReassemblyBytes[k] = bytes;
        if (bytes > this.cap) {
          this.fail('reassembly memory under its cap', `${PACKET_READERS[k]}: ${bytes} bytes > ${this.cap}`);
        }
      }
    }
    this.report.semanticChecks += 4;
    if (send && this.tick % this.epochTicks === 0) {
      for (const side of this.sides) {
        this.endVictim(side);
        this.startVictim(side);
      }
    }
  }

  run(): Omit<PacketFuzzReport, 'stats'> {
    const options = this.options;
    const report = this.report;
    const meter = runMeter(report, options.datagrams, options);
    try {
      while (report.iterations < options.datagrams) {
        this.step(true);
        if ((this.tick & 15) === 0) meter.update(report.iterations);
      }
      // Drain: no more sends or injections; past every delivery delay and the ack timeout.
      this.injecting = false;
      const drainTicks = Math.ceil((this.config.ackTimeout + 0.5) / TICK_SECONDS);
      for (let i = 0; i < drainTicks; i++) this.step(false);
      this.finish();
    } catch (error) {
      const crash = error instanceof ReaderCrash ? error : new ReaderCrash('(target harness)', error);
      report.crash = {
        target: PACKET_TARGET,
        reader: crash.reader,
        seed: report.seed,
        iteration: Math.max(0, report.iterations - 1),
        mutated: this.kind === MUTATED || this.kind === FORGED || this.kind === CORRUPTED,
        inputHex: hex(this.input),
        error: `${crash.message}\n(input: ${KIND_NAMES[this.kind]}, tick ${this.tick})`,
      };
    }
    meter.finish();
    for (const side of this.sides) side.sim.close();
    return report;
  }

  private finish(): void {
    const stats = this.stats;
    for (const side of this.sides) this.endVictim(side);
    const names = ['a->b', 'b->a'];
    for (const side of this.sides) {
      const peer = this.sides[1 - side.index];
      const lostButDelivered = side.outcomes.finish();
      const c = side.endpoint.counters;
      this.report.semanticChecks += 4;
      const expect = (what: string, got: number, want: number) => {
        if (got !== want)
          this.fail(
            'endpoint counters match the ledgers',
            `${side.name} ${what} is ${got}, expected ${want}`,
          );
      };
      expect('packetsSent', c.packetsSent, side.outcomes.sent);
      expect('packetsAcked', c.packetsAcked, side.outcomes.acked);
      expect('packetsLost', c.packetsLost, side.outcomes.lost);
      expect('acked + lost', side.outcomes.acked + side.outcomes.lost, side.outcomes.sent);
      stats.protectedSides.push({
        name: names[side.index],
        sent: side.outcomes.sent,
        delivered: peer.deliveries.delivered,
        acked: side.outcomes.acked,
        lost: side.outcomes.lost,
        lostButDelivered,
        falseAcks: side.outcomes.unbackedAcks,
        refused: peer.deliveries.refused,
        counters: { ...c },
      });
      stats.victims.push({
        name: `victim ${side.name}`,
        epochs: side.victimEpochs,
        sent: side.victimSent,
        acked: side.victimAcked,
        lost: side.victimLost,
        unbackedAcks: side.victimUnbacked,
        processed: side.victimProcessed,
        refused: side.victimRefused,
        emptyPayloads: side.victimEmpty,
        counters: side.victimCounters,
      });
      const link = side.sim.counters.outgoing;
      stats.linkOffered += link.offered;
      stats.linkLost += link.lost;
      stats.linkDuplicated += link.duplicated;
    }
  }

  get result(): PacketFuzzStats {
    return { ...this.stats, ticks: this.tick, simulatedSeconds: this.now };
  }
}

/** Fills `out[start, end)` with random bytes, four per `rng()` call (the netcode fuzz uses it too). */
export function fillRandom(rng: () => number, out: Uint8Array, start: number, end: number): void {
  for (let i = start; i < end; i += 4) {
    let word = (rng() * 4294967296) >>> 0;
    for (let k = 0; k < 4 && i + k < end; k++, word >>>= 8) out[i + k] = word & 0xff;
  }
}

/** A 16-bit value near `v` (by a little, a lot, half the space) or anywhere. */
function tweak16(rng: () => number, v: number): number {
  const r = rng();
  const sign = rng() < 0.5 ? -1 : 1;
  if (r < 0.35) return (v + sign * (1 + randomInt(rng, 8))) & 0xffff;
  if (r < 0.65) return (v + sign * (1 + randomInt(rng, 300))) & 0xffff;
  if (r < 0.8) return (v + 32767 + randomInt(rng, 3)) & 0xffff;
  return randomInt(rng, 65536);
}

function randomAckBits(rng: () => number): number {
  const r = rng();
  if (r < 0.2) return 0xffffffff;
  if (r < 0.3) return 0;
  return (rng() * 4294967296) >>> 0;
}

/** Runs the packet fuzz. Never throws for a finding: crashes and failed checks are in the report. */
export function runPacketFuzz(options: PacketFuzzOptions): PacketFuzzReport {
  if (!(Number.isSafeInteger(options.datagrams) && options.datagrams >= 1))
    throw new RangeError('datagrams must be a positive integer');
  const fuzz = new PacketFuzz(options);
  const report = fuzz.run();
  return { ...report, stats: fuzz.result };
}

/** The target-specific lines of the report (traffic, properties, victims, memory). */
export function formatPacketDetails(report: PacketFuzzReport): string[] {
  const s = report.stats;
  const lines: string[] = [];
  const injected = s.injectedRandom + s.injectedMutated + s.injectedForged + s.injectedReplays;
  lines.push(
    `  traffic: ${int(s.ticks)} ticks (${s.simulatedSeconds.toFixed(0)} s simulated); link datagrams ${int(s.linkOffered)}, lost ${int(s.linkLost)} (${pct(s.linkLost, s.linkOffered)}), duplicated ${int(s.linkDuplicated)}; arrived ${int(s.realDatagrams)}, ${int(s.corrupted)} with a bit flipped (${pct(s.corrupted, s.realDatagrams)})`,
  );
  lines.push(
    `  injected ${int(injected + s.badArgumentCalls)}: random ${int(s.injectedRandom)}, mutated ${int(s.injectedMutated)}, forged headers/fragments ${int(s.injectedForged)}, exact replays ${int(s.injectedReplays)}, nonsense-argument calls ${int(s.badArgumentCalls)}`,
  );
  for (const p of s.protectedSides) {
    lines.push(
      `  protected ${p.name}: sent ${int(p.sent)}, delivered intact ${int(p.delivered)}, acked ${int(p.acked)}, lost ${int(p.lost)} (${int(p.lostButDelivered)} delivered, ack lost), refused ${int(p.refused)}; false acks ${int(p.falseAcks)}; outcomes ${int(p.acked + p.lost)}/${int(p.sent)}`,
    );
  }
  for (const v of s.victims) {
    lines.push(
      `  ${v.name}: ${v.epochs} epochs, sent ${int(v.sent)}, acked ${int(v.acked)} (${int(v.unbackedAcks)} for packets the peer never accepted: forged by corruption), lost ${int(v.lost)}; payloads processed ${int(v.processed)} (${int(v.emptyPayloads)} empty), refused ${int(v.refused)}`,
    );
  }
  lines.push(
    `  reassembly peak bytes ${s.peakReassemblyBytes.map((b, k) => `${PACKET_READERS[k]} ${int(b)}`).join(', ')} (cap ${int(s.reassemblyCap)} each)`,
  );
  return lines;
}
