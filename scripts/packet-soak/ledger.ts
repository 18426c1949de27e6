/**
 * The packet soak's bookkeeping, also used by the packet fuzz: seeded hashing, the payload
 * pattern every payload follows, and the ledgers that check each packet's outcome (sender) and
 * delivery (receiver).
 */
import { MAX_PACKET_HEADER_BYTES } from '../../src/packet/header.js';
import type { ReliableConfig } from '../../src/packet/index.js';
import { prng } from '../../src/random/prng.js';

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
