/**
 * The packet-layer soak, shared by `npm run soak` (scripts/soak.ts) and the short seeded run in
 * `npm test` (test/packet-soak.test.ts), plus the pieces the packet fuzz (scripts/packet-fuzz-core.ts)
 * reuses:
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
  MAX_PACKET_HEADER_BYTES,
  type ReliableConfig,
  type ReliableCounters,
  ReliableEndpoint,
  reliableConfig,
} from '../src/packet/index.js';
import { prng } from '../src/random/prng.js';
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

// ---------------------------------------------------------------------------------------------
// Hashing and seeds
// ---------------------------------------------------------------------------------------------

/** murmur3's 32-bit finaliser: a cheap, well-mixed bijection on uint32. */
export function mix32(x: number): number {
  x ^= x >>> 16;
  x = Math.imul(x, 0x85ebca6b);
  x ^= x >>> 13;
  x = Math.imul(x, 0xc2b2ae35);
  x ^= x >>> 16;
  return x >>> 0;
}

/** A hash of (seed, stream, id); different streams give independent values for the same id. */
export function packetHash(seed: number, stream: number, id: number): number {
  const key = mix32((seed ^ Math.imul(stream + 1, 0x9e3779b9)) >>> 0);
  return mix32((key + mix32(id >>> 0) + Math.floor(id / 4294967296)) >>> 0);
}

/** An independent seed for one purpose (a link, the tape, ...) from the run's seed. */
export function subSeed(seed: number, label: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < label.length; i++) h = Math.imul(h ^ label.charCodeAt(i), 0x01000193);
  return mix32((seed ^ mix32(h >>> 0)) >>> 0);
}

// ---------------------------------------------------------------------------------------------
// Payload pattern
// ---------------------------------------------------------------------------------------------

/** How payload lengths are drawn: `smallShare` of packets in [1, smallMax], the rest in [1, max]. */
export interface PayloadSizes {
  readonly max: number;
  readonly smallShare: number;
  readonly smallMax: number;
}

/** Tape offsets are drawn from [0, TAPE_WINDOW). */
const TAPE_WINDOW = 65536;

/** Streams of packetHash used by the pattern (per direction: direction * 4 + k). */
const LENGTH_CHOICE = 0;
const LENGTH_VALUE = 1;
const TAPE_OFFSET = 2;
const REFUSAL = 3;

/**
 * Payload of packet `id` in direction `stream`: bytes [0, min(4, length)) are the id (uint32 LE,
 * truncated for the shortest packets, whose id the receiver recovers from the 16-bit sequence),
 * bytes [4, length) are a window of a seeded random tape starting at a per-packet offset. The
 * length is a function of (seed, stream, id) too, so every byte a receiver is handed can be checked.
 */
export class PayloadPattern {
  readonly tape: Uint8Array;

  constructor(
    readonly seed: number,
    readonly sizes: PayloadSizes,
  ) {
    if (!(Number.isInteger(sizes.max) && sizes.max >= 1)) throw new RangeError('sizes.max must be >= 1');
    if (!(Number.isInteger(sizes.smallMax) && sizes.smallMax >= 1 && sizes.smallMax <= sizes.max))
      throw new RangeError('sizes.smallMax must be in [1, max]');
    if (!(sizes.smallShare >= 0 && sizes.smallShare <= 1))
      throw new RangeError('sizes.smallShare must be in [0, 1]');
    const next = prng(subSeed(seed, 'tape'));
    this.tape = new Uint8Array(TAPE_WINDOW + sizes.max);
    for (let i = 0; i < this.tape.length; i += 4) {
      let word = (next() * 4294967296) >>> 0;
      for (let k = 0; k < 4 && i + k < this.tape.length; k++, word >>>= 8) this.tape[i + k] = word & 0xff;
    }
  }

  length(stream: number, id: number): number {
    const { max, smallShare, smallMax } = this.sizes;
    const small = packetHash(this.seed, stream * 4 + LENGTH_CHOICE, id) / 4294967296 < smallShare;
    return 1 + (packetHash(this.seed, stream * 4 + LENGTH_VALUE, id) % (small ? smallMax : max));
  }

  private tapeOffset(stream: number, id: number): number {
    return packetHash(this.seed, stream * 4 + TAPE_OFFSET, id) % TAPE_WINDOW;
  }

  /** A uniform number in [0, 1) fixed by (seed, stream, id), for decisions such as refusing. */
  chance(stream: number, id: number): number {
    return packetHash(this.seed, stream * 4 + REFUSAL, id) / 4294967296;
  }

  /** Writes packet `id`'s payload at out[0, length) and returns the length. */
  write(stream: number, id: number, out: Uint8Array): number {
    const length = this.length(stream, id);
    if (length > 4) {
      const from = this.tapeOffset(stream, id);
      out.set(this.tape.subarray(from, from + length - 4), 4);
    }
    for (let i = 0; i < 4 && i < length; i++) out[i] = (id >>> (8 * i)) & 0xff;
    return length;
  }

  /** Null when data[offset, offset + length) is exactly packet `id`'s payload, else what differs. */
  check(stream: number, id: number, data: Uint8Array, offset: number, length: number): string | null {
    const expected = this.length(stream, id);
    if (length !== expected) return `length ${length}, expected ${expected}`;
    for (let i = 0; i < 4 && i < length; i++) {
      const want = (id >>> (8 * i)) & 0xff;
      if (data[offset + i] !== want) return `id byte ${i} is ${data[offset + i]}, expected ${want}`;
    }
    if (length > 4) {
      const from = this.tapeOffset(stream, id);
      const got = data.subarray(offset + 4, offset + length);
      const want = this.tape.subarray(from, from + length - 4);
      if (Buffer.compare(got, want) !== 0) {
        let k = 0;
        while (got[k] === want[k]) k++;
        return `byte ${4 + k} of ${length} is ${got[k]}, expected ${want[k]}`;
      }
    }
    return null;
  }
}

// ---------------------------------------------------------------------------------------------
// Violations and ledgers
// ---------------------------------------------------------------------------------------------

/** Property violations by kind, with the first few described in full. */
export class Violations {
  total = 0;
  readonly counts = new Map<string, number>();
  readonly examples: string[] = [];

  constructor(readonly maxExamples = 20) {}

  add(kind: string, detail: string): void {
    this.total++;
    this.counts.set(kind, (this.counts.get(kind) ?? 0) + 1);
    if (this.examples.length < this.maxExamples) this.examples.push(`${kind}: ${detail}`);
  }

  count(kind: string): number {
    return this.counts.get(kind) ?? 0;
  }
}

/** One byte of state per packet id, growing by doubling (typed arrays: off the JS heap). */
class IdStates {
  private data: Uint8Array;

  constructor(capacity: number) {
    this.data = new Uint8Array(Math.max(1024, capacity));
  }

  get(id: number): number {
    return id < this.data.length ? this.data[id] : 0;
  }

  set(id: number, value: number): void {
    if (id >= this.data.length) {
      let size = this.data.length * 2;
      while (size <= id) size *= 2;
      const grown = new Uint8Array(size);
      grown.set(this.data);
      this.data = grown;
    }
    this.data[id] = value;
  }
}

const PENDING = 1;
const ACKED = 2;
const LOST = 3;

/**
 * The sender's side of one direction. Ids count packets sent, from `firstId`; each packet's record
 * is its id. Checks: the endpoint's sequence is the id mod 65536, every packet gets exactly one
 * outcome, its record comes back with it, and an ack only for a packet `delivered(id)` says the
 * peer accepted (when `acksMustBeBacked`; otherwise unbacked acks are only counted).
 */
export class OutcomeLedger {
  sent = 0;
  acked = 0;
  lost = 0;
  /** Acks for packets the peer never accepted (a violation when acksMustBeBacked). */
  unbackedAcks = 0;
  private readonly states: IdStates;

  constructor(
    readonly name: string,
    private readonly delivered: (id: number) => boolean,
    private readonly violations: Violations,
    private readonly acksMustBeBacked = true,
    capacity = 1024,
    readonly firstId = 0,
  ) {
    this.states = new IdStates(capacity);
  }

  /** The record for the next sendPacket. */
  get nextId(): number {
    return this.firstId + this.sent;
  }

  /** After sendPacket(…, nextId) returned `sequence`. */
  onSent(sequence: number): void {
    const id = this.nextId;
    if (sequence !== id % 65536)
      this.violations.add('sequence', `${this.name} packet ${id} was sent as sequence ${sequence}`);
    this.states.set(this.sent++, PENDING);
  }

  private resolve(sequence: number, record: number | undefined, outcome: number): number {
    const what = outcome === ACKED ? 'acked' : 'lost';
    if (typeof record !== 'number' || !(record >= this.firstId && record < this.nextId)) {
      this.violations.add('record', `${this.name} sequence ${sequence} ${what} with record ${record}`);
      return -1;
    }
    if (record % 65536 !== sequence) {
      this.violations.add(
        'record',
        `${this.name} sequence ${sequence} ${what} with the record of packet ${record}`,
      );
      return -1;
    }
    const state = this.states.get(record - this.firstId);
    if (state !== PENDING) {
      this.violations.add(
        'two outcomes',
        `${this.name} packet ${record} (sequence ${sequence}) ${what} after being ${state === ACKED ? 'acked' : 'lost'}`,
      );
      return -1;
    }
    this.states.set(record - this.firstId, outcome);
    return record;
  }

  onAcked(sequence: number, record: number | undefined): void {
    const id = this.resolve(sequence, record, ACKED);
    if (id < 0) return;
    this.acked++;
    if (!this.delivered(id)) {
      this.unbackedAcks++;
      if (this.acksMustBeBacked)
        this.violations.add(
          'false ack',
          `${this.name} packet ${id} (sequence ${sequence}) acked but the peer never accepted it`,
        );
    }
  }

  onLost(sequence: number, record: number | undefined): void {
    if (this.resolve(sequence, record, LOST) >= 0) this.lost++;
  }

  /** Packets still waiting for their outcome. */
  get pending(): number {
    return this.sent - this.acked - this.lost;
  }

  /** At the end (past ackTimeout): every packet has an outcome. Returns lost packets the peer did accept. */
  finish(): number {
    let missing = 0;
    let lostButDelivered = 0;
    for (let k = 0; k < this.sent; k++) {
      const state = this.states.get(k);
      const id = this.firstId + k;
      if (state === PENDING) {
        missing++;
        if (missing <= 5) this.violations.add('no outcome', `${this.name} packet ${id} has no outcome`);
      } else if (state === LOST && this.delivered(id)) lostButDelivered++;
    }
    if (missing > 5) this.violations.add('no outcome', `${this.name}: ${missing} packets in all`);
    return lostButDelivered;
  }
}

const DELIVERED = 1;
const REFUSED = 2;

/**
 * The receiver's side of one direction: the process handler. It recovers the packet id from the
 * 16-bit sequence (nearest to the newest id seen), checks the payload against the pattern, that the
 * packet was sent at all and not delivered before; refuses `refuseShare` of packets the first
 * time they arrive (a duplicate may then be accepted).
 */
export class DeliveryLog {
  delivered = 0;
  refused = 0;
  /** Refused once, accepted when a duplicate arrived. */
  refusedThenDelivered = 0;
  payloadBytes = 0;
  private newest = 0;
  private readonly states: IdStates;

  constructor(
    readonly name: string,
    readonly stream: number,
    private readonly pattern: PayloadPattern,
    private readonly sentCount: () => number,
    private readonly violations: Violations,
    private readonly refuseShare = 0,
    capacity = 1024,
  ) {
    this.states = new IdStates(capacity);
  }

  idFor(sequence: number): number {
    let d = (sequence - (this.newest % 65536)) & 0xffff;
    if (d >= 32768) d -= 65536;
    return this.newest + d;
  }

  isDelivered(id: number): boolean {
    return this.states.get(id) === DELIVERED;
  }

  receive(sequence: number, data: Uint8Array, offset: number, length: number): boolean {
    const id = this.idFor(sequence);
    if (id < 0 || id >= this.sentCount()) {
      this.violations.add(
        'never sent',
        `${this.name} delivered sequence ${sequence} (packet ${id}), but only ${this.sentCount()} were sent`,
      );
      return false;
    }
    const problem = this.pattern.check(this.stream, id, data, offset, length);
    if (problem !== null) {
      this.violations.add('corrupted', `${this.name} packet ${id} (sequence ${sequence}): ${problem}`);
      return false;
    }
    const state = this.states.get(id);
    if (state === DELIVERED) {
      this.violations.add('delivered twice', `${this.name} packet ${id} (sequence ${sequence})`);
      return false;
    }
    if (id > this.newest) this.newest = id;
    if (state === 0 && this.refuseShare > 0 && this.pattern.chance(this.stream, id) < this.refuseShare) {
      this.states.set(id, REFUSED);
      this.refused++;
      return false;
    }
    if (state === REFUSED) this.refusedThenDelivered++;
    this.states.set(id, DELIVERED);
    this.delivered++;
    this.payloadBytes += length;
    return true;
  }
}

/** Bytes fragment reassembly may hold at most, by the documented cap. */
export function reassemblyCap(config: ReliableConfig): number {
  return (
    config.fragmentReassemblyBufferSize *
    (MAX_PACKET_HEADER_BYTES + config.maxFragments * config.fragmentSize)
  );
}

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
