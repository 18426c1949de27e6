/** The netcode fuzz: payload patterns, delivery logs, parties and the capturing transport. */

import { readU32, writeU32 } from '../../src/connection/bytes.js';
import type { Client } from '../../src/connection/client.js';
import type { ConnectToken } from '../../src/connection/connect-token.js';
import type { ServerCounters } from '../../src/connection/server.js';
import { prng, randomBytes } from '../../src/random/prng.js';
import type {
  Address,
  DatagramHandler,
  DatagramTransport,
  MemoryTransport,
  TransportStats,
} from '../../src/transport/index.js';
import type { TargetReport } from '../fuzz-core.js';
import { packetHash, subSeed } from '../packet-soak-core.js';
import { NETCODE_CHECKS, TAG_RING } from './options.js';
import type { NetcodeFuzzState } from './state.js';

// ---------------------------------------------------------------------------------------------
// Payload pattern and delivery logs
// ---------------------------------------------------------------------------------------------

export const TAPE_BYTES = 65536;
export const LARGEST_PATTERN = 4 + 3000;

/**
 * Payload `id` of `stream`: the id (u32 LE), then a window of a seeded tape; 4 to 3003 bytes, one
 * in eight above 400 (so some are fragmented by the reliable layer inside netcode payloads).
 */
export class Pattern {
  private readonly tape: Uint8Array;

  constructor(private readonly seed: number) {
    this.tape = randomBytes(prng(subSeed(seed, 'netcode payload tape')), TAPE_BYTES + LARGEST_PATTERN);
  }

  length(stream: number, id: number): number {
    const h = packetHash(this.seed, 2 * stream, id);
    return 4 + ((h & 7) === 0 ? (h >>> 3) % 3000 : (h >>> 3) % 400);
  }

  private offset(stream: number, id: number): number {
    return packetHash(this.seed, 2 * stream + 1, id) % TAPE_BYTES;
  }

  write(stream: number, id: number, out: Uint8Array): number {
    const length = this.length(stream, id);
    writeU32(out, 0, id);
    const from = this.offset(stream, id);
    out.set(this.tape.subarray(from, from + length - 4), 4);
    return length;
  }

  check(stream: number, id: number, data: Uint8Array, offset: number, length: number): string | null {
    const expected = this.length(stream, id);
    if (length !== expected) return `length ${length}, expected ${expected}`;
    const from = this.offset(stream, id);
    for (let i = 4; i < length; i++) {
      if (data[offset + i] !== this.tape[from + i - 4])
        return `byte ${i} of ${length} is ${data[offset + i]}, expected ${this.tape[from + i - 4]}`;
    }
    return null;
  }
}

/** One direction of one connection: payloads sent, and which were received. */
export class Deliveries {
  sent = 0;
  delivered = 0;
  private seen = new Uint8Array(256);

  constructor(
    readonly name: string,
    readonly stream: number,
  ) {}

  /** The id of the next payload to send. */
  next(): number {
    const id = this.sent++;
    if (id >= this.seen.length) {
      const grown = new Uint8Array(this.seen.length * 2);
      grown.set(this.seen);
      this.seen = grown;
    }
    return id;
  }

  /** Null for an intact first delivery of a sent payload; else [check, detail]. */
  receive(pattern: Pattern, data: Uint8Array, offset: number, length: number): [string, string] | null {
    if (length < 4) return [NETCODE_CHECKS.pattern, `${this.name}: a ${length}-byte payload`];
    const id = readU32(data, offset);
    if (id >= this.sent)
      return [NETCODE_CHECKS.sent, `${this.name}: payload ${id} received, ${this.sent} sent`];
    const problem = pattern.check(this.stream, id, data, offset, length);
    if (problem !== null) return [NETCODE_CHECKS.pattern, `${this.name}: payload ${id}: ${problem}`];
    if (this.seen[id] === 1) return [NETCODE_CHECKS.once, `${this.name}: payload ${id} received again`];
    this.seen[id] = 1;
    this.delivered++;
    return null;
  }
}

// ---------------------------------------------------------------------------------------------
// Transports that capture what is sent and account for what is received
// ---------------------------------------------------------------------------------------------

/** A bounded FIFO of the tags of datagrams queued for one end. */
export class TagRing {
  private readonly data = new Float64Array(TAG_RING);
  private head = 0;
  count = 0;

  push(tag: number): boolean {
    if (this.count === TAG_RING) return false;
    this.data[(this.head + this.count) % TAG_RING] = tag;
    this.count++;
    return true;
  }

  shift(): number {
    if (this.count === 0) return Number.NaN;
    const tag = this.data[this.head];
    this.head = (this.head + 1) % TAG_RING;
    this.count--;
    return tag;
  }
}

export interface Party {
  readonly name: string;
  readonly role: number;
  readonly clientId: bigint;
  readonly tap: Tap;
  readonly client: Client;
  readonly token: ConnectToken;
  readonly tokenBytes: Uint8Array;
  readonly isCompanion: boolean;
  readonly up: Deliveries;
  readonly down: Deliveries;
  readonly startTick: number;
  readonly endTick: number;
  readonly endMode: number;
  serverIndex: number;
  silent: boolean;
  /** The last connection request it sent, for handshake replays. */
  lastRequest: Uint8Array | null;
}

export const END_DISCONNECT = 0;
export const END_KICK = 1;
export const END_SILENT = 2;

/** A transport wrapper: captures every datagram sent; lets the fuzz see each one received. */
export class Tap implements DatagramTransport {
  /** Tags of the datagrams queued here (the server and the real client only). */
  tags: TagRing | null = null;
  party: Party | null = null;

  constructor(
    readonly inner: MemoryTransport,
    readonly role: number,
    readonly sendTag: number,
    private readonly fuzz: NetcodeFuzzState,
  ) {}

  get localAddress(): Address {
    return this.inner.localAddress;
  }

  get maxDatagramSize(): number {
    return this.inner.maxDatagramSize;
  }

  get closed(): boolean {
    return this.inner.closed;
  }

  stats(): Readonly<TransportStats> {
    return this.inner.stats();
  }

  send(to: Address, data: Uint8Array): void {
    this.fuzz.onSend(this, to, data);
  }

  receive(handler: DatagramHandler, max?: number): number {
    return this.inner.receive((from, data) => this.fuzz.onReceive(this, handler, from, data), max);
  }

  update(now: number): void {
    this.inner.update(now);
  }

  close(): void {
    this.inner.close();
  }
}

// ---------------------------------------------------------------------------------------------
// Report
// ---------------------------------------------------------------------------------------------

export interface NetcodeFuzzStats {
  readonly ticks: number;
  readonly simulatedSeconds: number;
  /** Real datagrams received by the server and by the real client (not injected). */
  readonly realToServer: number;
  readonly realToClient: number;
  /** Half-open connection requests sent, by variant (HALF_OPEN_VARIANTS order). */
  readonly halfOpen: number[];
  /** Injected inputs by kind (random, mutated, exact replay), by operation, by base packet type. */
  readonly byKind: number[];
  readonly byOp: [string, number][];
  readonly byBaseType: number[];
  readonly handshakeReplays: number;
  /** Packets captured, by type (all of them; CAPTURE_SLOTS kept per type). */
  readonly captured: number[];
  readonly realConnectedThroughout: boolean;
  readonly realUp: { sent: number; delivered: number };
  readonly realDown: { sent: number; delivered: number };
  readonly companionConnections: number;
  readonly companionConnects: number;
  /** How companion connections ended: disconnected, kicked, timed out, denied, other. */
  readonly companionEnds: number[];
  readonly serverCounters: ServerCounters;
  readonly realConnects: number;
  readonly ghostConnects: number;
  readonly peakPending: number;
  readonly maxPending: number;
  readonly peakTokensUsed: number;
  readonly maxTokensUsed: number;
  readonly peakNeverExpiring: number;
  readonly peakQueueBytes: number;
  readonly queueDrops: number;
}

export interface NetcodeFuzzReport extends TargetReport {
  /** Inputs per reader. */
  readonly readerInputs: number[];
  readonly stats: NetcodeFuzzStats;
}

export const COMPANION_END_NAMES = ['disconnected', 'kicked', 'timed out', 'denied', 'other'];
