/**
 * The netcode fuzz, shared by `npm run fuzz` (target `netcode` in scripts/fuzz.ts) and the short
 * seeded run in `npm test` (test/netcode-fuzz.test.ts).
 *
 * A netcode Server (4 slots) on a MemoryNetwork, with:
 * - the real client R, connected throughout, exchanging payloads with the server both ways every
 *   tick (payload bytes are a function of (seed, stream, id), the id inside, so each delivery is
 *   checked byte for byte and at most once);
 * - three companion clients that keep connecting (fresh token, fresh address), exchanging payloads
 *   and leaving (disconnecting, kicked, going silent until timed out, or denied when the server is
 *   full), and 16 half-open handshakes: fresh connection requests (valid, timeout -1, wrong server,
 *   wrong protocol, expired, wrong key) from attacker addresses that never answer their challenge.
 * Every datagram any of them sends is captured by type (request, denied, challenge, response,
 * keep-alive, payload, disconnect; R's own denied comes from a prologue where it first meets a full
 * server). Between the real datagrams, `datagrams` inputs are injected into the server's and R's
 * receive queues: random bytes (some framed as a packet of a type), and mutations of captures (bit
 * flips, byte overwrites, truncation, extension, prefix type and sequence-size tweaks, sequence
 * tweaks, MAC and request-field changes, header/body splices), exact replays, and replays of a
 * whole captured handshake (request, then response), each sent from the real client's or server's
 * own address, a companion's, an attacker's (which the server holds keys for) or a random spoofed
 * one. Each input is accounted for at its reader: the server's counters (exactly one moves for a
 * refused datagram) or the client's read verdict.
 *
 * Checks: no exception escapes Server.update or Client.update; R stays connected and every real
 * datagram between R and the server is accepted; every payload either side receives is intact, was
 * sent, arrives once, and (the link being lossless) all arrive; no random or mutated input
 * authenticates, no replayed keep-alive, payload or disconnect is accepted; the server connects
 * only a real client that has just sent its response from its own address (connectedClients is
 * the real count); the server's pending handshakes and used tokens stay within their bounds and
 * every pending handshake can expire; every companion joins (floods of valid tokens never lock the
 * server); no queue overflows. The heap is measured after a GC at 10% and at the end.
 *
 * Everything is a function of the seed (token keys and nonces, the server's challenge key, every
 * choice): a run is replayed by its seed and input count.
 */
import type { Aead } from '../src/connection/aead.js';
import { nobleAead } from '../src/connection/aead.js';
import { readU32, writeU32, writeU64 } from '../src/connection/bytes.js';
import { Client, ClientState, describeClientState } from '../src/connection/client.js';
import {
  type ConnectToken,
  generateConnectToken,
  readConnectToken,
} from '../src/connection/connect-token.js';
import {
  CONNECTION_REQUEST_BYTES,
  MAC_BYTES,
  MAX_PACKET_BYTES,
  MAX_PAYLOAD_BYTES,
  PacketType,
  VERSION_INFO,
  VERSION_INFO_BYTES,
} from '../src/connection/constants.js';
import { PacketCodec, type PacketView } from '../src/connection/packets.js';
import { Server, type ServerCounters } from '../src/connection/server.js';
import { writePacketHeader } from '../src/packet/index.js';
import { prng, randomBytes, randomInt } from '../src/random/prng.js';
import {
  type Address,
  type DatagramHandler,
  type DatagramTransport,
  MemoryNetwork,
  type MemoryTransport,
  type TransportStats,
  toAddress,
} from '../src/transport/index.js';
import { int, pct } from './cli.js';
import {
  hex,
  InputMaker,
  newTargetReport,
  normalizeReason,
  type Progress,
  ReaderCrash,
  type ReaderStats,
  runMeter,
  type SemanticFailure,
  sameBytes,
  type TargetReport,
} from './fuzz-core.js';
import { packetHash, subSeed } from './packet-soak-core.js';

export const NETCODE_TARGET = 'netcode';

/** Readers, by where an input goes and where it claims to come from. */
export const NETCODE_READERS = [
  'server/client addr',
  'server/spoofed',
  'client/server addr',
  'client/spoofed',
] as const;

/** Check names. */
export const NETCODE_CHECKS = {
  realConnected: 'the real client stays connected',
  realAccepted: 'every real datagram between the real client and the server is accepted',
  pattern: 'every payload received matches its pattern',
  sent: 'every payload received was sent',
  once: 'every payload is received at most once',
  allDelivered: 'every payload sent is received (lossless link)',
  forged: 'no random or mutated datagram authenticates',
  replayed: 'no replayed keep-alive, payload or disconnect is accepted',
  ghost: 'the server connects only a real client that completed its handshake',
  ghostReplay:
    'the server connects only a real client that completed its handshake: replayed request+response from another address',
  connectedCount: "connectedClients and the server's address map match the real connections",
  counted: 'every datagram the server refuses moves exactly one counter',
  countedResponse:
    'every datagram the server refuses moves exactly one counter: a response for a client connected already',
  mapsBounded: "the server's pending handshakes and used tokens stay within their bounds",
  mappingsExpire: 'every pending handshake expires',
  joinable:
    'a companion with a fresh token connects (or is denied while the server is full): floods of valid tokens never lock the server',
  noQueueDrops: 'no datagram to the server or the real client is dropped by a full queue',
  everyInputRead: 'every injected datagram reaches its reader',
  harness: 'harness bookkeeping',
} as const;

/**
 * Checks expected to fail on src/connection/server.ts as it is: none (the replayed-handshake,
 * never-expiring-mapping and uncounted-response checks listed here before all pass now). A check
 * failing for a known, unfixed defect goes here, so the short run in npm test stays green while
 * naming it.
 */
export const NETCODE_KNOWN_ISSUES: readonly string[] = [];

export interface NetcodeFuzzOptions {
  readonly seed: number;
  /** Datagrams to inject (random, mutated, replayed); real traffic flows around them. */
  readonly datagrams: number;
  /** Injected datagrams per 1/60 s tick (default 150). */
  readonly injectionsPerTick?: number;
  /** Share of random inputs; the rest derive from captured packets (default 0.2). */
  readonly randomShare?: number;
  /** Half-open handshakes started per simulated second (default 2). */
  readonly halfOpenPerSecond?: number;
  /** Share of valid half-open tokens with timeouts disabled (timeout -1) (default 0.05). */
  readonly negativeTimeoutShare?: number;
  /**
   * Share of half-open requests sent from a fresh random address instead of one of the 16
   * attackers' (default 0): a flood of valid tokens from many addresses, each a new handshake.
   */
  readonly halfOpenFreshAddressShare?: number;
  /** The server's maxPendingHandshakes (default: the server's default). */
  readonly maxPendingHandshakes?: number;
  /** Whole captured handshakes (request, then response) replayed per second from a spoofed address (default 1). */
  readonly handshakeReplaysPerSecond?: number;
  /**
   * A control: also inject payloads sealed with the real client's own key, ahead of its sequence,
   * carrying a wrong payload. The forgery and pattern checks must then fail (default false).
   */
  readonly forgeWithRealKey?: boolean;
  readonly aead?: Aead;
  readonly onProgress?: (progress: Progress) => void;
  /** Progress about every this many ms (default 500). */
  readonly progressMs?: number;
  /** A full GC (globalThis.gc under --expose-gc), for the heap figures. */
  readonly gc?: () => void;
}

export const NETCODE_FUZZ_DEFAULTS = Object.freeze({
  injectionsPerTick: 150,
  randomShare: 0.2,
  halfOpenPerSecond: 2,
  negativeTimeoutShare: 0.05,
  handshakeReplaysPerSecond: 1,
});

export const PACKET_NAMES = [
  'request',
  'denied',
  'challenge',
  'response',
  'keep-alive',
  'payload',
  'disconnect',
] as const;

const OP_NAMES = [
  'random bytes',
  'random, framed as a packet',
  'exact replay',
  'generic (flips, overwrites, truncation, extension, splice, insert/delete)',
  'prefix: type',
  'prefix: sequence size',
  'sequence value',
  'length',
  'MAC',
  'request fields',
  'splice: header of one packet, body of another',
  'handshake replay (request, then response)',
  'sealed with the real key (control)',
] as const;
const OP_RANDOM = 0;
const OP_FRAMED = 1;
const OP_REPLAY = 2;
const OP_GENERIC = 3;
const OP_TYPE = 4;
const OP_SEQUENCE_SIZE = 5;
const OP_SEQUENCE = 6;
const OP_LENGTH = 7;
const OP_MAC = 8;
const OP_REQUEST = 9;
const OP_SPLICE = 10;
const OP_HANDSHAKE = 11;
const OP_CONTROL = 12;

const RANDOM = 0;
const MUTATED = 1;
const REPLAY = 2;
const KIND_NAMES = ['random', 'mutated', 'exact replay'];

const READER_SERVER_PEER = 0;
const READER_SERVER_SPOOFED = 1;
const READER_CLIENT_PEER = 2;
const READER_CLIENT_SPOOFED = 3;

/** Tags of queued datagrams that were not injected. */
const REAL = -1;
const GENERATED = -2;

/** Who sent a captured packet. */
const ROLE_REAL = 0;
const ROLE_SERVER = 1;
const ROLE_COMPANION = 2;
const ROLE_HALF_OPEN = 3;

const HALF_OPEN_VARIANTS = [
  'valid',
  'valid, timeout -1',
  'wrong server',
  'wrong protocol',
  'expired',
  'wrong key',
] as const;

const TICK_SECONDS = 1 / 60;
const UNIX_START = 1_700_000_000;
const PROTOCOL_ID = 0x6768_6f73_746e_6574n;
const OTHER_PROTOCOL_ID = PROTOCOL_ID + 1n;
const SERVER_ADDRESS = toAddress('10.0.0.100:40000');
const REAL_ADDRESS = toAddress('10.0.0.1:40000');
const MAX_CLIENTS = 4;
const COMPANIONS = 3;
const ATTACKERS = 16;
const SPOOF_POOL = 512;
const CAPTURE_SLOTS = 32;
/** The first captures of each type are kept for the whole run (R's prologue packets among them). */
const PINNED_SLOTS = 6;
const PAIR_SLOTS = 16;
const MAX_PENDING_RESPONSES = 32;
const TAG_RING = 8192;
const RECORD_RING = 8192;
const MAX_REASONS = 200;
const MAX_FAILURE_KINDS = 50;
const MAX_EXAMPLES = 3;
const MAX_EXAMPLE_HEX_BYTES = 256;
/** The reader's "not read at all" mark in a PacketView's reason. */
const NOT_READ = '\u0000not read';
const REAL_ID = 1n;
const FILLER_ID = 999n;
const COMPANION_IDS = 1000n;
const HALF_OPEN_IDS = 1_000_000n;
/** Pattern streams: R's are 0 (to the server) and 1; the filler's 8, 9; companion c's 16 + 2c, 17 + 2c. */
const STREAM_REAL_UP = 0;
const BODY_BYTES = [-2, 0, 308, 308, 8, -1, 0];
const COUNTER_KEYS = [
  'requestsAccepted',
  'requestsInvalid',
  'requestsExpired',
  'requestsBadToken',
  'requestsWrongServer',
  'requestsAlreadyConnected',
  'requestsTokenReused',
  'deniedFull',
  'responsesInvalid',
  'unknownAddress',
  'rejectedPackets',
  'replayedPackets',
] as const satisfies readonly (keyof ServerCounters)[];
const ACCEPTED_COUNTER = 0;

/** The private fields the checks read (and the challenge key, seeded so runs replay byte for byte). */
interface ServerInternals {
  readonly view: PacketView;
  readonly pending: {
    readonly size: number;
    readonly capacity: number;
    entries(): Iterable<[Address, { timeout: number; expireTime: number }]>;
  };
  readonly usedTokens: { readonly size: number; readonly capacity: number };
  readonly byAddress: Map<Address, number>;
  readonly challengeKey: Uint8Array;
}

interface ClientInternals {
  readonly view: PacketView;
  readonly sequence: number;
}

// ---------------------------------------------------------------------------------------------
// Payload pattern and delivery logs
// ---------------------------------------------------------------------------------------------

const TAPE_BYTES = 65536;
const LARGEST_PATTERN = 4 + 3000;

/**
 * Payload `id` of `stream`: the id (u32 LE), then a window of a seeded tape; 4 to 3003 bytes, one
 * in eight above 400 (so some are fragmented by the reliable layer inside netcode payloads).
 */
class Pattern {
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
class Deliveries {
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
class TagRing {
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

interface Party {
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

const END_DISCONNECT = 0;
const END_KICK = 1;
const END_SILENT = 2;

/** A transport wrapper: captures every datagram sent; lets the fuzz see each one received. */
class Tap implements DatagramTransport {
  /** Tags of the datagrams queued here (the server and the real client only). */
  tags: TagRing | null = null;
  party: Party | null = null;

  constructor(
    readonly inner: MemoryTransport,
    readonly role: number,
    readonly sendTag: number,
    private readonly fuzz: NetcodeFuzz,
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

  get stats(): TransportStats {
    return this.inner.stats;
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

const COMPANION_END_NAMES = ['disconnected', 'kicked', 'timed out', 'denied', 'other'];

// ---------------------------------------------------------------------------------------------
// The fuzz
// ---------------------------------------------------------------------------------------------

/** One run; `run()` once. */
class NetcodeFuzz {
  private readonly rng: () => number;
  /** Token keys and nonces, captures: their own streams, so traffic volume does not shift `rng`. */
  private readonly tokenRng: () => number;
  private readonly captureRng: () => number;
  private readonly aead: Aead;
  private readonly pattern: Pattern;
  private readonly network: MemoryNetwork;
  private readonly server: Server;
  private readonly internals: ServerInternals;
  private readonly serverTap: Tap;
  private readonly codec: PacketCodec;
  private readonly otherCodec: PacketCodec;
  private readonly maker = new InputMaker(2 * MAX_PACKET_BYTES + 64);
  private readonly out = new Uint8Array(2 * MAX_PACKET_BYTES + 64);
  private readonly payload = new Uint8Array(LARGEST_PATTERN);
  private readonly report: Omit<NetcodeFuzzReport, 'stats'>;
  private readonly injectionsPerTick: number;
  private readonly randomShare: number;
  private readonly halfOpenChance: number;
  private readonly negativeTimeoutShare: number;
  private readonly halfOpenFreshAddressShare: number;
  private readonly handshakeChance: number;

  // Parties.
  private real: Party | null = null;
  private filler: Party | null = null;
  private realIndex = -1;
  private readonly companions: (Party | null)[] = new Array(COMPANIONS).fill(null);
  private readonly companionNext = new Float64Array(COMPANIONS);
  private readonly attackers: Tap[] = [];
  /** Client ids of the current connection attempts, and where each sends from. */
  private readonly attempts = new Map<bigint, Party>();
  /** Server slots: the party connected there, GHOST, or null. */
  private readonly slots: (Party | 'ghost' | null)[] = new Array(MAX_CLIENTS).fill(null);
  /** For a slot a client holds without a handshake: the check its connect failed. */
  private readonly ghostCheck: string[] = new Array(MAX_CLIENTS).fill('');
  private readonly pastIds = new Map<bigint, Address>();
  private readonly spoofPool: Address[] = [];
  private companionConnections = 0;
  private nextCompanionId = COMPANION_IDS;
  private nextHalfOpenId = HALF_OPEN_IDS;

  // Captures.
  private readonly captures: Uint8Array[][];
  private readonly captureLengths: Int32Array[];
  private readonly captureRoles: Int8Array[];
  private readonly captured = new Array(7).fill(0);
  private readonly pairs: { request: Uint8Array; response: Uint8Array }[] = [];
  private pairCount = 0;
  private readonly pending: { tick: number; from: Address; response: Uint8Array }[] = [];

  // Injected inputs in flight: a record per input, by iteration.
  private readonly recKind = new Int8Array(RECORD_RING);
  private readonly recOp = new Int8Array(RECORD_RING);
  private readonly recType = new Int8Array(RECORD_RING);
  private readonly recReader = new Int8Array(RECORD_RING);
  private op = OP_RANDOM;
  /** The other capture a mutation drew from (splices, MACs), or null. */
  private other: Uint8Array | null = null;

  // Per-datagram accounting.
  private readonly before = new Float64Array(COUNTER_KEYS.length);
  private connectCount = 0;
  private crashTag = Number.NaN;
  private crashHex = '';
  private failureInput: Uint8Array = new Uint8Array(0);
  /** The injected input being read (its iteration), or -1. */
  private failureTag = -1;

  // State of the run.
  private tick = 0;
  private now = 0;
  private main = false;
  private realLost = false;
  private readonly reportedStuck = new Set<Address>();
  private readonly stats = {
    realToServer: 0,
    realToClient: 0,
    halfOpen: new Array(HALF_OPEN_VARIANTS.length).fill(0),
    byKind: [0, 0, 0],
    byOp: new Array(OP_NAMES.length).fill(0),
    byBaseType: new Array(7).fill(0),
    handshakeReplays: 0,
    companionConnects: 0,
    companionEnds: [0, 0, 0, 0, 0],
    realConnects: 0,
    ghostConnects: 0,
    peakPending: 0,
    peakTokensUsed: 0,
    peakNeverExpiring: 0,
    peakQueueBytes: 0,
    queueDrops: 0,
  };

  constructor(private readonly options: NetcodeFuzzOptions) {
    const d = NETCODE_FUZZ_DEFAULTS;
    const seed = options.seed;
    this.rng = prng(subSeed(seed, 'netcode fuzz'));
    this.tokenRng = prng(subSeed(seed, 'netcode tokens'));
    this.captureRng = prng(subSeed(seed, 'netcode captures'));
    this.aead = options.aead ?? nobleAead;
    this.pattern = new Pattern(seed);
    this.injectionsPerTick = options.injectionsPerTick ?? d.injectionsPerTick;
    this.randomShare = options.randomShare ?? d.randomShare;
    this.halfOpenChance = (options.halfOpenPerSecond ?? d.halfOpenPerSecond) * TICK_SECONDS;
    this.negativeTimeoutShare = options.negativeTimeoutShare ?? d.negativeTimeoutShare;
    this.halfOpenFreshAddressShare = options.halfOpenFreshAddressShare ?? 0;
    this.handshakeChance = (options.handshakeReplaysPerSecond ?? d.handshakeReplaysPerSecond) * TICK_SECONDS;
    this.codec = new PacketCodec(PROTOCOL_ID, this.aead);
    this.otherCodec = new PacketCodec(OTHER_PROTOCOL_ID, this.aead);
    this.captures = Array.from({ length: 7 }, () =>
      Array.from({ length: CAPTURE_SLOTS }, () => new Uint8Array(MAX_PACKET_BYTES)),
    );
    this.captureLengths = Array.from({ length: 7 }, () => new Int32Array(CAPTURE_SLOTS));
    this.captureRoles = Array.from({ length: 7 }, () => new Int8Array(CAPTURE_SLOTS));

    this.report = {
      ...newTargetReport({
        target: NETCODE_TARGET,
        description:
          'netcode Server and a connected Client fed random, mutated and replayed datagrams from spoofed and real addresses while real traffic flows: nothing escapes update, the real client stays connected, payloads intact and once, no client connects without a handshake, counters and maps bounded',
        seed,
        readers: NETCODE_READERS,
        corpusSize: 7 * CAPTURE_SLOTS,
        gc: options.gc,
      }),
      readerInputs: [0, 0, 0, 0],
    };

    // The default queues (1024) hold a tick's injections and real traffic: a drop would be the harness's.
    this.network = new MemoryNetwork();
    this.serverTap = new Tap(this.network.createTransport(SERVER_ADDRESS), ROLE_SERVER, REAL, this);
    this.serverTap.tags = new TagRing();
    this.server = new Server({
      protocolId: PROTOCOL_ID,
      privateKey: this.privateKey(),
      publicAddresses: [SERVER_ADDRESS],
      transports: [this.serverTap],
      maxClients: MAX_CLIENTS,
      aead: this.aead,
      unixTime: () => this.unixNow(),
      maxDatagramsPerUpdate: 4096,
      maxPendingHandshakes: options.maxPendingHandshakes,
      onConnect: (index, clientId) => this.onConnect(index, clientId),
      onDisconnect: (index, clientId, reason) => this.onDisconnect(index, clientId, reason),
      onPacket: (index, data, offset, length) => this.serverPayload(index, data, offset, length),
    });
    this.internals = this.server as unknown as ServerInternals;
    this.internals.challengeKey.set(randomBytes(this.tokenRng, 32));
    for (let k = 0; k < ATTACKERS; k++) {
      const inner = this.network.createTransport(`10.66.0.${k + 1}:5000`);
      this.attackers.push(new Tap(inner, ROLE_HALF_OPEN, GENERATED, this));
    }
    for (let k = 0; k < SPOOF_POOL; k++) this.spoofPool.push(this.randomAddress());
  }

  private privateKey(): Uint8Array {
    return Uint8Array.from({ length: 32 }, (_, i) => (i * 29 + 7) & 0xff);
  }

  private unixNow(): number {
    return UNIX_START + Math.floor(this.now);
  }

  private randomAddress(): Address {
    const rng = this.rng;
    if (rng() < 0.15) {
      const group = (1 + randomInt(rng, 0xfffe)).toString(16);
      return `[2001:db8::${group}]:${1 + randomInt(rng, 65535)}` as Address;
    }
    return `${172 + randomInt(rng, 20)}.${randomInt(rng, 256)}.${randomInt(rng, 256)}.${1 + randomInt(rng, 254)}:${1 + randomInt(rng, 65535)}` as Address;
  }

  // -------------------------------------------------------------------------------------------
  // Bookkeeping
  // -------------------------------------------------------------------------------------------

  private fail(check: string, detail: string): void {
    const report = this.report;
    report.semanticFailures++;
    let examples = report.failures.get(check);
    if (examples === undefined) {
      if (report.failures.size >= MAX_FAILURE_KINDS) return;
      examples = [];
      report.failures.set(check, examples);
    }
    if (examples.length < MAX_EXAMPLES) {
      const input = this.failureInput;
      const shown = input.subarray(0, MAX_EXAMPLE_HEX_BYTES);
      const failure: SemanticFailure = {
        check,
        detail: `${detail} (tick ${this.tick})`,
        iteration: this.failureTag >= 0 ? this.failureTag : Math.max(0, report.iterations - 1),
        inputHex: hex(shown) + (input.length > shown.length ? `… (${input.length} bytes)` : ''),
      };
      examples.push(failure);
    }
  }

  private check(ok: boolean, check: string, detail: () => string): void {
    this.report.semanticChecks++;
    if (!ok) this.fail(check, detail());
  }

  private outcome(reader: number, kind: number, accepted: boolean, reason: string): void {
    const stats: ReaderStats = this.report.readers[reader];
    this.report.readerInputs[reader]++;
    if (accepted) {
      // Replays count as accepted only: a replayed request or challenge may rightly be read.
      stats.accepted++;
      if (kind === RANDOM) stats.acceptedRandom++;
      else if (kind === MUTATED) stats.acceptedMutated++;
      return;
    }
    stats.rejected++;
    let key = normalizeReason(reason);
    if (!stats.reasons.has(key) && stats.reasons.size >= MAX_REASONS) key = '(other reasons)';
    stats.reasons.set(key, (stats.reasons.get(key) ?? 0) + 1);
  }

  // -------------------------------------------------------------------------------------------
  // Parties
  // -------------------------------------------------------------------------------------------

  private token(
    clientId: bigint,
    extra: {
      serverAddresses?: Address[];
      protocolId?: bigint;
      privateKey?: Uint8Array;
      expireSeconds?: number;
      timeoutSeconds?: number;
    } = {},
  ): Uint8Array {
    return generateConnectToken({
      protocolId: extra.protocolId ?? PROTOCOL_ID,
      privateKey: extra.privateKey ?? this.privateKey(),
      clientId,
      serverAddresses: extra.serverAddresses ?? [SERVER_ADDRESS],
      now: this.unixNow(),
      expireSeconds: extra.expireSeconds ?? 30,
      timeoutSeconds: extra.timeoutSeconds ?? 5,
      aead: this.aead,
      randomBytes: (n) => randomBytes(this.tokenRng, n),
    });
  }

  private startParty(role: number, name: string, clientId: bigint, address: string, streams: number): Party {
    const tap = new Tap(this.network.createTransport(address), role, REAL, this);
    const bytes = this.token(clientId);
    const read = readConnectToken(bytes);
    if (!read.ok) throw new Error(`netcode fuzz: a token of ours does not read: ${read.reason}`);
    let party: Party | null = null;
    const client = new Client({
      transport: tap,
      aead: this.aead,
      onPacket: (data, offset, length) => this.clientPayload(party!, data, offset, length),
    });
    const lifetime = 30 + randomInt(this.rng, 150);
    const mode = this.rng();
    party = {
      name,
      role,
      clientId,
      tap,
      client,
      token: read.token,
      tokenBytes: bytes,
      isCompanion: role === ROLE_COMPANION && name.startsWith('companion'),
      up: new Deliveries(`${name} -> server`, streams),
      down: new Deliveries(`server -> ${name}`, streams + 1),
      startTick: this.tick,
      endTick: this.tick + lifetime,
      endMode: mode < 0.45 ? END_DISCONNECT : mode < 0.9 ? END_KICK : END_SILENT,
      serverIndex: -1,
      silent: false,
      lastRequest: null,
    };
    tap.party = party;
    this.attempts.set(clientId, party);
    this.pastIds.set(clientId, tap.localAddress);
    if (this.pastIds.size > 256) this.pastIds.delete(this.pastIds.keys().next().value!);
    client.connect(bytes, this.now);
    return party;
  }

  private finishParty(party: Party): void {
    this.attempts.delete(party.clientId);
    party.tap.close();
  }

  private startCompanion(k: number): void {
    const c = this.companionConnections++;
    this.companions[k] = this.startParty(
      ROLE_COMPANION,
      `companion ${c}`,
      this.nextCompanionId++,
      '10.0.1.1:0',
      16 + 2 * c,
    );
  }

  private onConnect(index: number, clientId: bigint): void {
    this.connectCount++;
    const address = this.server.clientAddress(index);
    const party = this.attempts.get(clientId);
    if (
      party !== undefined &&
      party.tap.localAddress === address &&
      party.client.state === ClientState.SendingConnectionResponse
    ) {
      this.slots[index] = party;
      party.serverIndex = index;
      if (party.isCompanion) this.stats.companionConnects++;
      this.stats.realConnects++;
      return;
    }
    this.slots[index] = 'ghost';
    this.stats.ghostConnects++;
    const original = this.pastIds.get(clientId);
    this.report.semanticChecks++;
    this.ghostCheck[index] =
      original !== undefined && original !== address ? NETCODE_CHECKS.ghostReplay : NETCODE_CHECKS.ghost;
    if (original !== undefined && original !== address) {
      this.fail(
        NETCODE_CHECKS.ghostReplay,
        `client ${clientId} (which handshook from ${original}) connected at ${address}, slot ${index}`,
      );
    } else {
      this.fail(
        NETCODE_CHECKS.ghost,
        `client ${clientId} connected at ${address}, slot ${index}; ${party === undefined ? 'no such connection attempt' : `attempt from ${party.tap.localAddress} in state ${party.client.state}`}`,
      );
    }
  }

  private onDisconnect(index: number, clientId: bigint, reason: string): void {
    const party = this.slots[index];
    this.slots[index] = null;
    if (clientId === REAL_ID && this.main) {
      this.report.semanticChecks++;
      this.fail(NETCODE_CHECKS.realConnected, `the server dropped the real client: ${reason}`);
      this.realLost = true;
    }
    if (party !== null && party !== 'ghost') {
      party.serverIndex = -1;
      if (party.isCompanion) {
        const end =
          reason === 'client disconnected' ? 0 : reason === 'kicked' ? 1 : reason === 'timed out' ? 2 : 4;
        this.stats.companionEnds[end]++;
      }
    }
  }

  private serverPayload(index: number, data: Uint8Array, offset: number, length: number): void {
    const party = this.slots[index];
    this.report.semanticChecks++;
    if (party === 'ghost') {
      this.fail(this.ghostCheck[index], `then a payload through the connection in slot ${index}`);
      return;
    }
    if (party === null) {
      this.fail(NETCODE_CHECKS.forged, `a payload from slot ${index}, which no client holds`);
      return;
    }
    const problem = party.up.receive(this.pattern, data, offset, length);
    if (problem !== null) this.fail(problem[0], problem[1]);
  }

  private clientPayload(party: Party, data: Uint8Array, offset: number, length: number): void {
    this.report.semanticChecks++;
    const problem = party.down.receive(this.pattern, data, offset, length);
    if (problem !== null) this.fail(problem[0], problem[1]);
  }

  private sendUp(party: Party): void {
    const length = this.pattern.write(party.up.stream, party.up.next(), this.payload);
    party.client.send(this.payload, length);
  }

  private sendDown(party: Party): void {
    const length = this.pattern.write(party.down.stream, party.down.next(), this.payload);
    this.server.send(party.serverIndex, this.payload, length);
  }

  // -------------------------------------------------------------------------------------------
  // Captures and accounting
  // -------------------------------------------------------------------------------------------

  /** A real datagram leaves `tap`: capture it, send it, tag it at the server or the real client. */
  onSend(tap: Tap, to: Address, data: Uint8Array): void {
    this.capture(tap, data);
    const dest = to === SERVER_ADDRESS ? this.serverTap : to === REAL_ADDRESS ? this.real?.tap : undefined;
    const dropped = dest === undefined ? 0 : dest.inner.stats.dropped;
    tap.inner.send(to, data);
    if (dest !== undefined && !dest.closed) this.tagged(dest, dropped, tap.sendTag);
  }

  private tagged(dest: Tap, dropped: number, tag: number): void {
    if (dest.inner.stats.dropped !== dropped) {
      this.stats.queueDrops++;
      this.report.semanticChecks++;
      this.fail(NETCODE_CHECKS.noQueueDrops, `a datagram to ${dest.localAddress} was dropped`);
    } else if (!dest.tags!.push(tag)) {
      this.fail(NETCODE_CHECKS.harness, 'tag ring full');
    }
  }

  private capture(tap: Tap, data: Uint8Array): void {
    const length = data.length;
    if (length < 1 || length > MAX_PACKET_BYTES) return;
    const type = data[0] & 0xf;
    if (type > PacketType.Disconnect) return;
    const role = tap.role;
    if (type === PacketType.ConnectionRequest && tap.party !== null) tap.party.lastRequest = data.slice();
    if (type === PacketType.ConnectionResponse && tap.party?.lastRequest) {
      const pair = { request: tap.party.lastRequest, response: data.slice() };
      if (this.pairs.length < PAIR_SLOTS) this.pairs.push(pair);
      else this.pairs[this.pairCount % PAIR_SLOTS] = pair;
      this.pairCount++;
      tap.party.lastRequest = null;
    }
    const n = this.captured[type]++;
    let slot = n;
    if (n >= CAPTURE_SLOTS) {
      if (this.captureRng() >= 0.1) return;
      slot = PINNED_SLOTS + randomInt(this.captureRng, CAPTURE_SLOTS - PINNED_SLOTS);
    }
    this.captures[type][slot].set(data);
    this.captureLengths[type][slot] = length;
    this.captureRoles[type][slot] = role;
  }

  /** A datagram reaches `tap`'s owner through `handler`. */
  onReceive(tap: Tap, handler: DatagramHandler, from: Address, data: Uint8Array): void {
    if (tap === this.serverTap) this.serverDatagram(handler, from, data);
    else if (this.real !== null && tap === this.real.tap) this.clientDatagram(handler, from, data);
    else handler(from, data);
  }

  private deliver(handler: DatagramHandler, from: Address, data: Uint8Array, tag: number): void {
    try {
      handler(from, data);
    } catch (error) {
      this.crashTag = tag;
      this.crashHex = hex(data);
      throw error;
    }
  }

  private tagOf(tap: Tap): number {
    const tag = tap.tags!.shift();
    if (Number.isNaN(tag)) {
      this.report.semanticChecks++;
      this.fail(NETCODE_CHECKS.harness, `an untagged datagram at ${tap.localAddress}`);
      return REAL;
    }
    return tag;
  }

  private serverDatagram(handler: DatagramHandler, from: Address, data: Uint8Array): void {
    const tag = this.tagOf(this.serverTap);
    const counters = this.server.counters;
    const before = this.before;
    for (let k = 0; k < COUNTER_KEYS.length; k++) before[k] = counters[COUNTER_KEYS[k]];
    const view = this.internals.view;
    view.reason = NOT_READ;
    const connects = this.connectCount;
    // A connection made without a handshake, looked up first: a disconnect through it ends it.
    const slot = this.internals.byAddress.get(from);
    const ghost = slot !== undefined && this.slots[slot] === 'ghost' ? this.ghostCheck[slot] : null;
    this.failureInput = data;
    this.failureTag = tag;
    this.deliver(handler, from, data, tag);

    let moved = -1;
    let movedCount = 0;
    let overcounted = false;
    for (let k = 0; k < COUNTER_KEYS.length; k++) {
      const d = counters[COUNTER_KEYS[k]] - before[k];
      if (d === 0) continue;
      movedCount++;
      moved = k;
      if (d !== 1) overcounted = true;
    }
    let accepted = false;
    let reason = '';
    let acceptedType = -1;
    let counted = movedCount === 1 && !overcounted;
    let countedCheck: string = NETCODE_CHECKS.counted;
    if (movedCount === 0) {
      if (
        view.reason === '' &&
        (view.type !== PacketType.ConnectionResponse || this.connectCount > connects)
      ) {
        accepted = true;
        acceptedType = view.type;
      } else {
        counted = false;
        if (view.reason === '') countedCheck = NETCODE_CHECKS.countedResponse;
        reason =
          view.reason === NOT_READ
            ? 'not read, not counted'
            : view.reason === ''
              ? 'a response whose client is connected already, not counted'
              : `${view.reason}, not counted`;
      }
    } else if (counted && moved === ACCEPTED_COUNTER) {
      accepted = true;
      acceptedType = PacketType.ConnectionRequest;
    } else if (counted) {
      reason = COUNTER_KEYS[moved];
      if (moved === COUNTER_KEYS.indexOf('rejectedPackets'))
        reason += view.reason === NOT_READ ? ': length out of range' : `: ${view.reason}`;
      else if (moved === COUNTER_KEYS.indexOf('responsesInvalid'))
        reason += view.reason === '' ? ': challenge token does not open' : `: ${view.reason}`;
    }
    this.report.semanticChecks++;
    if (!counted && !accepted)
      this.fail(
        countedCheck,
        `${movedCount} counters moved (${COUNTER_KEYS.filter((key, k) => counters[key] !== before[k]).join(', ')}) for a ${data.length}-byte datagram from ${from}: ${reason}`,
      );

    if (tag >= 0) {
      this.judge(tag, accepted, acceptedType, reason, 'server', ghost);
    } else if (tag === REAL) {
      this.stats.realToServer++;
      if (this.main && this.real !== null && from === REAL_ADDRESS)
        this.check(accepted, NETCODE_CHECKS.realAccepted, () => `the server refused it: ${reason}`);
    }
    this.failureTag = -1;
  }

  private clientDatagram(handler: DatagramHandler, from: Address, data: Uint8Array): void {
    const real = this.real!;
    const tag = this.tagOf(real.tap);
    const view = (real.client as unknown as ClientInternals).view;
    view.reason = NOT_READ;
    this.failureInput = data;
    this.failureTag = tag;
    this.deliver(handler, from, data, tag);
    const accepted = view.reason === '';
    let reason = view.reason;
    if (reason === NOT_READ) {
      reason =
        from !== SERVER_ADDRESS
          ? 'not from the server address'
          : data.length < 1 || data.length > MAX_PACKET_BYTES
            ? 'length out of range'
            : 'not read';
    }
    if (tag >= 0) {
      this.judge(tag, accepted, accepted ? view.type : -1, reason, 'client', null);
    } else if (tag === REAL) {
      this.stats.realToClient++;
      if (this.main)
        this.check(accepted, NETCODE_CHECKS.realAccepted, () => `the real client refused it: ${reason}`);
    }
    this.failureTag = -1;
  }

  /** The verdict on an injected input: counted for its reader, and checked against what it is. */
  private judge(
    tag: number,
    accepted: boolean,
    acceptedType: number,
    reason: string,
    where: string,
    ghost: string | null,
  ): void {
    const r = tag % RECORD_RING;
    const kind = this.recKind[r];
    const reader = this.recReader[r];
    this.outcome(reader, kind, accepted, reason);
    this.report.semanticChecks++;
    if (!accepted) return;
    const what = () =>
      `the ${where} accepted a ${PACKET_NAMES[acceptedType] ?? 'packet'} (${KIND_NAMES[kind]}, ${OP_NAMES[this.recOp[r]]}, from ${this.recType[r] < 0 ? 'nothing' : `a ${PACKET_NAMES[this.recType[r]]}`}, reader ${NETCODE_READERS[reader]}, input ${tag})`;
    // Through a connection made without a handshake, replays of that client's packets open: a
    // consequence of that connect, reported with it.
    if (ghost !== null) {
      if (acceptedType >= PacketType.KeepAlive) this.fail(ghost, `then ${what()} through it`);
    } else if (kind !== REPLAY) this.fail(NETCODE_CHECKS.forged, what());
    else if (acceptedType >= PacketType.KeepAlive) this.fail(NETCODE_CHECKS.replayed, what());
  }

  // -------------------------------------------------------------------------------------------
  // Inputs
  // -------------------------------------------------------------------------------------------

  /** Queues `bytes` at `to` as if from `from` (any address: the network delivers what it is given). */
  private inject(
    from: Address,
    to: Address,
    bytes: Uint8Array,
    kind: number,
    baseType: number,
    reader: number,
  ): void {
    const report = this.report;
    const tag = report.iterations++;
    const r = tag % RECORD_RING;
    this.recKind[r] = kind;
    this.recOp[r] = this.op;
    this.recType[r] = baseType;
    this.recReader[r] = reader;
    this.stats.byKind[kind]++;
    this.stats.byOp[this.op]++;
    if (baseType >= 0) this.stats.byBaseType[baseType]++;
    if (kind === RANDOM) report.randomInputs++;
    else report.mutatedInputs++;
    const dest = to === SERVER_ADDRESS ? this.serverTap : this.real!.tap;
    const dropped = dest.inner.stats.dropped;
    this.failureInput = bytes;
    this.network.route(from, to, bytes);
    this.tagged(dest, dropped, tag);
  }

  /** A source address for an input to the server; sets the reader. */
  private serverSource(): [Address, number] {
    const rng = this.rng;
    const r = rng();
    if (r < 0.4) return [REAL_ADDRESS, READER_SERVER_PEER];
    if (r < 0.5) {
      const c = this.companions[randomInt(rng, COMPANIONS)];
      if (c !== null && !c.tap.closed) return [c.tap.localAddress, READER_SERVER_PEER];
      return [REAL_ADDRESS, READER_SERVER_PEER];
    }
    if (r < 0.75) return [this.attackers[randomInt(rng, ATTACKERS)].localAddress, READER_SERVER_SPOOFED];
    return [this.spoofed(), READER_SERVER_SPOOFED];
  }

  private clientSource(): [Address, number] {
    const rng = this.rng;
    const r = rng();
    if (r < 0.8) return [SERVER_ADDRESS, READER_CLIENT_PEER];
    if (r < 0.85) return [REAL_ADDRESS, READER_CLIENT_SPOOFED];
    return [this.spoofed(), READER_CLIENT_SPOOFED];
  }

  private spoofed(): Address {
    return this.rng() < 0.25 ? this.randomAddress() : this.spoofPool[randomInt(this.rng, SPOOF_POOL)];
  }

  private pickCapture(): [number, number] {
    const rng = this.rng;
    let types = 0;
    for (let t = 0; t < 7; t++) if (this.captured[t] > 0) types++;
    let pick = randomInt(rng, types);
    let type = 0;
    for (; type < 7; type++) if (this.captured[type] > 0 && pick-- === 0) break;
    const slot = randomInt(rng, Math.min(this.captured[type], CAPTURE_SLOTS));
    return [type, slot];
  }

  private captureBytes(type: number, slot: number): Uint8Array {
    return this.captures[type][slot].subarray(0, this.captureLengths[type][slot]);
  }

  private injectOne(): void {
    const rng = this.rng;
    let total = 0;
    for (let t = 0; t < 7; t++) total += this.captured[t];
    if (rng() < this.randomShare || total === 0) {
      const toServer = rng() < 0.55;
      const bytes = this.randomInput();
      const [from, reader] = toServer ? this.serverSource() : this.clientSource();
      this.inject(from, toServer ? SERVER_ADDRESS : REAL_ADDRESS, bytes, RANDOM, -1, reader);
      return;
    }
    const [type, slot] = this.pickCapture();
    const base = this.captureBytes(type, slot);
    const serverBound = this.captureRoles[type][slot] !== ROLE_SERVER;
    const toServer = serverBound ? rng() < 0.8 : rng() < 0.2;
    this.other = null;
    const bytes = this.mutate(base, type);
    // A mutation can undo itself, or a splice give back the other packet whole: those are replays.
    const kind =
      this.op === OP_REPLAY || sameBytes(bytes, base) || (this.other !== null && sameBytes(bytes, this.other))
        ? REPLAY
        : MUTATED;
    const [from, reader] = toServer ? this.serverSource() : this.clientSource();
    this.inject(from, toServer ? SERVER_ADDRESS : REAL_ADDRESS, bytes, kind, type, reader);
  }

  private fillRandom(out: Uint8Array, start: number, end: number): void {
    const rng = this.rng;
    for (let i = start; i < end; i += 4) {
      let word = (rng() * 4294967296) >>> 0;
      for (let k = 0; k < 4 && i + k < end; k++, word >>>= 8) out[i + k] = word & 0xff;
    }
  }

  /** The length a packet of `type` with `sequenceBytes` has when its body is the right size. */
  private framedLength(type: number, sequenceBytes: number): number {
    if (type === PacketType.ConnectionRequest) return CONNECTION_REQUEST_BYTES;
    const body = BODY_BYTES[type] === -1 ? 1 + randomInt(this.rng, MAX_PAYLOAD_BYTES) : BODY_BYTES[type];
    return 1 + sequenceBytes + body + MAC_BYTES;
  }

  private randomInput(): Uint8Array {
    const rng = this.rng;
    const out = this.out;
    if (rng() < 0.5) {
      this.op = OP_RANDOM;
      const r = rng();
      const length =
        r < 0.3
          ? randomInt(rng, 41)
          : r < 0.9
            ? randomInt(rng, MAX_PACKET_BYTES + 1)
            : MAX_PACKET_BYTES + 1 + randomInt(rng, 200);
      this.fillRandom(out, 0, length);
      return out.subarray(0, length);
    }
    // Framed: a prefix and a length that pass the cheap checks, so the reader decrypts (or, for a
    // request, checks version, protocol and expiry and opens the token).
    this.op = OP_FRAMED;
    const type = randomInt(rng, 7);
    const sequenceBytes = 1 + randomInt(rng, 8);
    const length = this.framedLength(type, sequenceBytes);
    this.fillRandom(out, 0, length);
    if (type === PacketType.ConnectionRequest) {
      out[0] = 0;
      if (rng() < 0.7) {
        // Right version and protocol: the expiry, then the token, decide.
        out.set(VERSION_INFO, 1);
        writeU64(out, 1 + VERSION_INFO_BYTES, PROTOCOL_ID);
        writeU64(out, 1 + VERSION_INFO_BYTES + 8, this.unixNow() + randomInt(rng, 60) - 20);
      }
    } else out[0] = type | (sequenceBytes << 4);
    return out.subarray(0, length);
  }

  /** A mutation of captured `base` (of `type`) into this.out; sets this.op. */
  private mutate(base: Uint8Array, type: number): Uint8Array {
    const rng = this.rng;
    const r = rng();
    if (r < 0.1) {
      this.op = OP_REPLAY;
      return base;
    }
    if (r < 0.42) {
      this.op = OP_GENERIC;
      const [otherType, otherSlot] = this.pickCapture();
      this.other = this.captureBytes(otherType, otherSlot);
      return this.maker.mutate(rng, base, this.other);
    }
    const out = this.out;
    out.set(base);
    let length = base.length;
    const prefix = out[0];
    const width = prefix >>> 4;
    const isRequest = prefix === 0 && length === CONNECTION_REQUEST_BYTES;
    if (r < 0.5) {
      this.op = OP_TYPE;
      const t = rng() < 0.7 ? randomInt(rng, 7) : randomInt(rng, 16);
      out[0] = (prefix & 0xf0) | t;
      if (rng() < 0.4 && t <= PacketType.Disconnect && t !== PacketType.ConnectionRequest && width >= 1) {
        // Resize to the new type's body, so it reaches decryption.
        const want = this.framedLength(t, Math.min(width, 8));
        if (want > length) this.fillRandom(out, length, want);
        length = want;
      }
    } else if (r < 0.58) {
      this.op = OP_SEQUENCE_SIZE;
      const size = rng() < 0.85 ? 1 + randomInt(rng, 8) : randomInt(rng, 16);
      if (rng() < 0.5 && width >= 1 && width <= 8 && size >= 1 && size <= 8 && !isRequest) {
        // Re-lay the sequence out in `size` bytes (the same value when it fits), body after it.
        const body = base.subarray(1 + width);
        for (let i = 0; i < size; i++) out[1 + i] = i < width ? base[1 + i] : 0;
        out.set(body, 1 + size);
        length = 1 + size + body.length;
      }
      out[0] = (prefix & 0x0f) | (size << 4);
    } else if (r < 0.68) {
      this.op = OP_SEQUENCE;
      const w = width >= 1 && width <= 8 ? width : 1 + randomInt(rng, 8);
      const s = rng();
      if (s < 0.45) {
        // Plus or minus a little, or 256: carried through the sequence's bytes.
        const delta = (rng() < 0.5 ? -1 : 1) * (rng() < 0.7 ? 1 + randomInt(rng, 8) : 256);
        let carry = delta;
        for (let i = 0; i < w && carry !== 0; i++) {
          const v = out[1 + i] + carry;
          out[1 + i] = v & 0xff;
          carry = Math.floor(v / 256);
        }
      } else if (s < 0.6) out.fill(0, 1, 1 + w);
      else if (s < 0.75) out.fill(0xff, 1, 1 + w);
      else if (s < 0.85 && w === 8) {
        out[8] = 0x20 + randomInt(rng, 0xe0); // past 2^53: no real peer gets there
      } else this.fillRandom(out, 1, 1 + w);
    } else if (r < 0.76) {
      this.op = OP_LENGTH;
      const s = rng();
      if (s < 0.3) length = randomInt(rng, length);
      else if (s < 0.5) length = Math.max(0, length - 1 - randomInt(rng, 16));
      else if (s < 0.7) {
        const add = 1 + randomInt(rng, 16);
        this.fillRandom(out, length, length + add);
        length += add;
      } else {
        const want =
          s < 0.9
            ? this.framedLength(1 + randomInt(rng, 6), width >= 1 && width <= 8 ? width : 1)
            : MAX_PACKET_BYTES + 1 + randomInt(rng, 64);
        if (want > length) this.fillRandom(out, length, want);
        length = want;
      }
    } else if (r < 0.82) {
      this.op = OP_MAC;
      if (length >= MAC_BYTES) {
        const s = rng();
        const at = length - MAC_BYTES;
        if (s < 0.5) out[at + randomInt(rng, MAC_BYTES)] ^= 1 << randomInt(rng, 8);
        else if (s < 0.7) out.fill(0, at, length);
        else {
          const [t, k] = this.pickCapture();
          const other = this.captureBytes(t, k);
          this.other = other;
          if (other.length >= MAC_BYTES) out.set(other.subarray(other.length - MAC_BYTES), at);
        }
      }
    } else if (r < 0.9 && isRequest) {
      this.op = OP_REQUEST;
      const s = rng();
      const expireAt = 1 + VERSION_INFO_BYTES + 8;
      if (s < 0.15) out[1 + randomInt(rng, VERSION_INFO_BYTES)] ^= 1 << randomInt(rng, 8);
      else if (s < 0.3) out[1 + VERSION_INFO_BYTES + randomInt(rng, 8)] ^= 1 << randomInt(rng, 8);
      else if (s < 0.55) {
        const unix = this.unixNow();
        const pick = rng();
        const expire =
          pick < 0.3 ? unix - randomInt(rng, 100) : pick < 0.5 ? unix : pick < 0.7 ? unix + 1 : unix + 3600;
        writeU32(out, expireAt, expire >>> 0);
        writeU32(out, expireAt + 4, Math.floor(expire / 4294967296));
        if (rng() < 0.2) out.fill(0xff, expireAt, expireAt + 8);
      } else if (s < 0.7) out[expireAt + 8 + randomInt(rng, 24)] ^= 1 << randomInt(rng, 8);
      else out[expireAt + 32 + randomInt(rng, 1024)] ^= 1 << randomInt(rng, 8);
    } else {
      this.op = OP_SPLICE;
      // A header (prefix, sequence) from one capture, the body and MAC from another: same type
      // most of the time, so only the sequence or the key differs.
      let [t, k] = this.pickCapture();
      if (rng() < 0.7) {
        t = type;
        k = randomInt(rng, Math.min(this.captured[type], CAPTURE_SLOTS));
      }
      const other = this.captureBytes(t, k);
      this.other = other;
      const keepHeader = width >= 1 && width <= 8 ? 1 + width : 1;
      const otherWidth = other[0] >>> 4;
      const otherHeader = otherWidth >= 1 && otherWidth <= 8 ? 1 + otherWidth : 1;
      if (rng() < 0.5) {
        out.set(other.subarray(otherHeader), keepHeader);
        length = keepHeader + other.length - otherHeader;
      } else {
        out.set(other.subarray(0, otherHeader), 0);
        out.set(base.subarray(keepHeader), otherHeader);
        length = otherHeader + base.length - keepHeader;
      }
    }
    return out.subarray(0, length);
  }

  /** A captured handshake (request, then a few ticks later its response) from one spoofed address. */
  private replayHandshake(): void {
    if (this.pairs.length === 0 || this.pending.length >= MAX_PENDING_RESPONSES) return;
    const rng = this.rng;
    const pair = this.pairs[randomInt(rng, this.pairs.length)];
    const from =
      rng() < 0.5
        ? this.attackers[randomInt(rng, ATTACKERS)].localAddress
        : this.spoofPool[randomInt(rng, 64)];
    this.op = OP_HANDSHAKE;
    this.stats.handshakeReplays++;
    this.inject(
      from,
      SERVER_ADDRESS,
      pair.request,
      REPLAY,
      PacketType.ConnectionRequest,
      READER_SERVER_SPOOFED,
    );
    this.pending.push({ tick: this.tick + 1 + randomInt(rng, 10), from, response: pair.response });
  }

  private duePendingResponses(budget: number): number {
    let sent = 0;
    for (let i = 0; i < this.pending.length && sent < budget; ) {
      const p = this.pending[i];
      if (p.tick > this.tick) {
        i++;
        continue;
      }
      this.pending.splice(i, 1);
      this.op = OP_HANDSHAKE;
      this.inject(
        p.from,
        SERVER_ADDRESS,
        p.response,
        REPLAY,
        PacketType.ConnectionResponse,
        READER_SERVER_SPOOFED,
      );
      sent++;
    }
    return sent;
  }

  /** The control: a payload sealed with the real client's key, ahead of its sequence, wrong inside. */
  private forgeWithRealKey(): void {
    const real = this.real!;
    const rng = this.rng;
    const body = this.payload;
    let n = writePacketHeader(body, 0, randomInt(rng, 65536), randomInt(rng, 65536), 0);
    writeU32(body, n, 0);
    n += 4;
    this.fillRandom(body, n, n + 20);
    n += 20;
    const sequence = (real.client as unknown as ClientInternals).sequence + 1 + randomInt(rng, 200);
    const length = this.codec.writePayload(this.out, sequence, real.token.clientToServerKey, body, 0, n);
    this.op = OP_CONTROL;
    this.inject(
      REAL_ADDRESS,
      SERVER_ADDRESS,
      this.out.subarray(0, length),
      MUTATED,
      PacketType.Payload,
      READER_SERVER_PEER,
    );
  }

  /** A fresh connection request from an attacker address that will never answer its challenge. */
  private halfOpen(): void {
    const rng = this.rng;
    const r = rng();
    const variant =
      r < 0.8 ? (rng() < this.negativeTimeoutShare ? 1 : 0) : 2 + Math.min(3, Math.floor((r - 0.8) / 0.05));
    const id = this.nextHalfOpenId++;
    const bytes =
      variant === 0
        ? this.token(id)
        : variant === 1
          ? this.token(id, { timeoutSeconds: -1 })
          : variant === 2
            ? this.token(id, { serverAddresses: [toAddress('10.0.0.200:40000')] })
            : variant === 3
              ? this.token(id, { protocolId: OTHER_PROTOCOL_ID })
              : variant === 4
                ? this.token(id, { expireSeconds: 0 })
                : this.token(id, { privateKey: new Uint8Array(32).fill(9) });
    const read = readConnectToken(bytes);
    if (!read.ok) throw new Error(`netcode fuzz: a token of ours does not read: ${read.reason}`);
    const t = read.token;
    const codec = variant === 3 ? this.otherCodec : this.codec;
    const n = codec.writeConnectionRequest(this.out, t.expireTimestamp, t.nonce, t.privateData);
    this.stats.halfOpen[variant]++;
    if (this.halfOpenFreshAddressShare > 0 && rng() < this.halfOpenFreshAddressShare) {
      // From an address with no transport: its challenge goes nowhere, as a spoofed source's would.
      const dropped = this.serverTap.inner.stats.dropped;
      this.network.route(this.randomAddress(), SERVER_ADDRESS, this.out.subarray(0, n));
      this.tagged(this.serverTap, dropped, GENERATED);
      return;
    }
    this.attackers[randomInt(rng, ATTACKERS)].send(SERVER_ADDRESS, this.out.subarray(0, n));
  }

  // -------------------------------------------------------------------------------------------
  // The loop
  // -------------------------------------------------------------------------------------------

  private updateAll(): void {
    const now = this.now;
    try {
      this.server.update(now);
    } catch (error) {
      throw new ReaderCrash('Server.update', error);
    }
    if (this.real !== null) {
      try {
        this.real.client.update(now);
      } catch (error) {
        throw new ReaderCrash('Client.update (the real client)', error);
      }
    }
    for (const party of this.companions) {
      if (party !== null && !party.silent && !party.tap.closed) party.client.update(now);
    }
    if (this.filler !== null && !this.filler.tap.closed) this.filler.client.update(now);
    for (const attacker of this.attackers) attacker.receive(() => {}, 4096);
  }

  private advance(): void {
    this.tick++;
    this.now = this.tick * TICK_SECONDS;
  }

  /** Runs ticks until `done()` or `ticks` have passed; throws naming `what` when it never is. */
  private until(what: string, ticks: number, done: () => boolean): void {
    for (let i = 0; i < ticks; i++) {
      this.advance();
      this.updateAll();
      if (done()) return;
    }
    throw new Error(`netcode fuzz: prologue: ${what} did not happen in ${ticks} ticks`);
  }

  /**
   * The prologue: the companions and a filler fill the server; the real client is denied (its
   * denied packet is captured), the filler leaves, and the real client connects with the same token.
   */
  private prologue(): void {
    for (let k = 0; k < COMPANIONS; k++) this.startCompanion(k);
    const filler = this.startParty(ROLE_COMPANION, 'filler', FILLER_ID, '10.0.2.1:40000', 8);
    this.filler = filler;
    this.until('the server filling up', 120, () => this.server.connectedClients === MAX_CLIENTS);
    const real = this.startParty(ROLE_REAL, 'the real client', REAL_ID, REAL_ADDRESS, STREAM_REAL_UP);
    this.real = real;
    real.tap.tags = new TagRing();
    this.until('the real client being denied', 120, () => real.client.state === ClientState.ConnectionDenied);
    filler.client.disconnect();
    this.finishParty(filler);
    this.filler = null;
    this.until('the filler leaving', 30, () => this.server.connectedClients === MAX_CLIENTS - 1);
    // The same token again: denied before, accepted now there is room.
    real.client.connect(real.tokenBytes, this.now);
    this.until('the real client connecting', 120, () => real.client.state === ClientState.Connected);
    this.realIndex = real.serverIndex;
    if (this.realIndex < 0 || real.client.clientIndex !== this.realIndex)
      throw new Error('netcode fuzz: prologue: the real client has no slot');
  }

  private companionTick(k: number): void {
    const party = this.companions[k];
    const rng = this.rng;
    if (party === null) {
      if (this.tick >= this.companionNext[k]) this.startCompanion(k);
      return;
    }
    const state = party.client.state;
    const restart = (end: number) => {
      if (end >= 0) this.stats.companionEnds[end]++;
      this.finishParty(party);
      this.companions[k] = null;
      this.companionNext[k] = this.tick + 6 + randomInt(rng, 60);
    };
    if (party.silent) {
      if (party.serverIndex < 0 || this.tick > party.endTick + 600) restart(-1);
      return;
    }
    if (state === ClientState.ConnectionDenied) {
      restart(3);
      return;
    }
    if (state <= ClientState.Disconnected) {
      if (
        state === ClientState.ConnectionRequestTimedOut ||
        state === ClientState.ConnectionResponseTimedOut ||
        state === ClientState.ConnectTokenExpired
      )
        this.notJoined(party, describeClientState(state));
      // Kicked (counted by onDisconnect), or it ended some other way.
      restart(party.serverIndex < 0 && state === ClientState.Disconnected ? -1 : 4);
      return;
    }
    if (state !== ClientState.Connected) {
      if (this.tick - party.startTick > 600) {
        this.notJoined(party, `still ${describeClientState(state)} after 600 ticks`);
        restart(4);
      }
      return;
    }
    if (party.serverIndex >= 0) {
      if (rng() < 0.3) this.sendUp(party);
      if (rng() < 0.3) this.sendDown(party);
    }
    if (this.tick < party.endTick) return;
    if (party.endMode === END_DISCONNECT) {
      party.client.disconnect();
      restart(-1);
    } else if (party.endMode === END_KICK) {
      if (party.serverIndex >= 0) this.server.disconnect(party.serverIndex);
    } else party.silent = true;
  }

  private notJoined(party: Party, how: string): void {
    this.report.semanticChecks++;
    this.fail(
      NETCODE_CHECKS.joinable,
      `${party.name} (client ${party.clientId}, from tick ${party.startTick}): ${how}; server counters ${JSON.stringify(this.server.counters)}`,
    );
  }

  private step(inject: boolean): void {
    this.advance();
    const rng = this.rng;
    const real = this.real!;
    if (inject) {
      if (real.client.state === ClientState.Connected && rng() < 0.8) this.sendUp(real);
      if (this.server.isConnected(this.realIndex) && this.slots[this.realIndex] === real && rng() < 0.8)
        this.sendDown(real);
      for (let k = 0; k < COMPANIONS; k++) this.companionTick(k);
      let halfOpens = Math.floor(this.halfOpenChance);
      if (rng() < this.halfOpenChance - halfOpens) halfOpens++;
      for (let i = 0; i < halfOpens; i++) this.halfOpen();
      const remaining = () => this.options.datagrams - this.report.iterations;
      if (remaining() > 0) this.duePendingResponses(remaining());
      if (remaining() > 0 && rng() < this.handshakeChance) this.replayHandshake();
      if (this.options.forgeWithRealKey === true && remaining() > 0 && rng() < 0.1) this.forgeWithRealKey();
      const count = Math.min(this.injectionsPerTick, remaining());
      for (let i = 0; i < count; i++) this.injectOne();
    }
    this.updateAll();
    this.checkTick();
  }

  private checkTick(): void {
    const real = this.real!;
    const server = this.server;
    const ok =
      real.client.state === ClientState.Connected &&
      real.client.clientIndex === this.realIndex &&
      server.isConnected(this.realIndex) &&
      server.clientId(this.realIndex) === REAL_ID &&
      this.slots[this.realIndex] === real;
    this.report.semanticChecks++;
    if (!ok && !this.realLost) {
      this.realLost = true;
      this.fail(
        NETCODE_CHECKS.realConnected,
        `client state ${real.client.state}, index ${real.client.clientIndex}; server slot ${this.realIndex} ${server.isConnected(this.realIndex) ? `holds client ${server.clientId(this.realIndex)}` : 'is free'}`,
      );
    }
    let tracked = 0;
    for (const slot of this.slots) if (slot !== null) tracked++;
    const internals = this.internals;
    this.check(
      server.connectedClients === tracked && internals.byAddress.size === server.connectedClients,
      NETCODE_CHECKS.connectedCount,
      () =>
        `connectedClients ${server.connectedClients}, connections seen ${tracked}, byAddress ${internals.byAddress.size}`,
    );
    const pending = internals.pending.size;
    const tokens = internals.usedTokens.size;
    if (pending > this.stats.peakPending) this.stats.peakPending = pending;
    if (tokens > this.stats.peakTokensUsed) this.stats.peakTokensUsed = tokens;
    this.check(
      pending <= internals.pending.capacity && tokens <= internals.usedTokens.capacity,
      NETCODE_CHECKS.mapsBounded,
      () =>
        `pending handshakes ${pending} (max ${internals.pending.capacity}), used tokens ${tokens} (max ${internals.usedTokens.capacity})`,
    );
    if ((this.tick & 15) === 0) {
      let never = 0;
      for (const [address, m] of internals.pending.entries()) {
        if (m.timeout > 0 || m.expireTime >= 0) continue;
        never++;
        if (!this.reportedStuck.has(address) && this.reportedStuck.size < 1024) {
          this.reportedStuck.add(address);
          this.report.semanticChecks++;
          this.fail(
            NETCODE_CHECKS.mappingsExpire,
            `the mapping for ${address} has timeout ${m.timeout} and expire time ${m.expireTime}: it never expires`,
          );
        }
      }
      if (never > this.stats.peakNeverExpiring) this.stats.peakNeverExpiring = never;
      const bytes = this.serverTap.inner.queueStorageBytes + real.tap.inner.queueStorageBytes;
      if (bytes > this.stats.peakQueueBytes) this.stats.peakQueueBytes = bytes;
    }
  }

  run(): Omit<NetcodeFuzzReport, 'stats'> {
    const options = this.options;
    const report = this.report;
    const meter = runMeter(report, options.datagrams, options);
    try {
      this.prologue();
      this.main = true;
      while (report.iterations < options.datagrams) {
        this.step(true);
        if ((this.tick & 15) === 0) meter.update(report.iterations);
      }
      // Drain: no more sends or injections; every payload in flight arrives, every input is read.
      for (let i = 0; i < 90; i++) this.step(false);
      this.finish();
    } catch (error) {
      const crash = error instanceof ReaderCrash ? error : new ReaderCrash('(target harness)', error);
      const tag = this.crashTag;
      const r = Number.isNaN(tag) || tag < 0 ? -1 : tag % RECORD_RING;
      report.crash = {
        target: NETCODE_TARGET,
        reader: crash.reader,
        seed: report.seed,
        iteration: r < 0 ? Math.max(0, report.iterations - 1) : tag,
        mutated: r < 0 || this.recKind[r] !== RANDOM,
        inputHex: this.crashHex,
        error: `${crash.message}\n(${
          r < 0
            ? Number.isNaN(tag)
              ? 'not while reading a datagram'
              : 'while reading a real datagram'
            : `input ${tag}: ${KIND_NAMES[this.recKind[r]]}, ${OP_NAMES[this.recOp[r]]}, reader ${NETCODE_READERS[this.recReader[r]]}`
        }, tick ${this.tick})`,
      };
    }
    meter.finish();
    return report;
  }

  private finish(): void {
    const real = this.real!;
    const report = this.report;
    for (const d of [real.up, real.down]) {
      this.check(
        d.delivered === d.sent,
        NETCODE_CHECKS.allDelivered,
        () => `${d.name}: ${d.delivered} of ${d.sent} received`,
      );
    }
    const read = report.readerInputs.reduce((a, b) => a + b, 0);
    this.check(
      read === report.iterations,
      NETCODE_CHECKS.everyInputRead,
      () => `${read} of ${report.iterations} inputs read`,
    );
  }

  get result(): NetcodeFuzzStats {
    const s = this.stats;
    const real = this.real;
    const byOp: [string, number][] = [];
    s.byOp.forEach((count, k) => {
      if (count > 0) byOp.push([OP_NAMES[k], count]);
    });
    return {
      ticks: this.tick,
      simulatedSeconds: this.now,
      realToServer: s.realToServer,
      realToClient: s.realToClient,
      halfOpen: [...s.halfOpen],
      byKind: [...s.byKind],
      byOp,
      byBaseType: [...s.byBaseType],
      handshakeReplays: s.handshakeReplays,
      captured: [...this.captured],
      realConnectedThroughout: real !== null && !this.realLost,
      realUp: { sent: real?.up.sent ?? 0, delivered: real?.up.delivered ?? 0 },
      realDown: { sent: real?.down.sent ?? 0, delivered: real?.down.delivered ?? 0 },
      companionConnections: this.companionConnections,
      companionConnects: s.companionConnects,
      companionEnds: [...s.companionEnds],
      serverCounters: { ...this.server.counters },
      realConnects: s.realConnects,
      ghostConnects: s.ghostConnects,
      peakPending: s.peakPending,
      maxPending: this.internals.pending.capacity,
      peakTokensUsed: s.peakTokensUsed,
      maxTokensUsed: this.internals.usedTokens.capacity,
      peakNeverExpiring: s.peakNeverExpiring,
      peakQueueBytes: s.peakQueueBytes,
      queueDrops: s.queueDrops,
    };
  }
}

/** Runs the netcode fuzz. Never throws for a finding: crashes and failed checks are in the report. */
export function runNetcodeFuzz(options: NetcodeFuzzOptions): NetcodeFuzzReport {
  if (!(Number.isSafeInteger(options.datagrams) && options.datagrams >= 1))
    throw new RangeError('datagrams must be a positive integer');
  const fuzz = new NetcodeFuzz(options);
  const report = fuzz.run();
  return { ...report, stats: fuzz.result };
}

/** The target-specific lines of the report (traffic, inputs, counters, checks, memory). */
export function formatNetcodeDetails(report: NetcodeFuzzReport): string[] {
  const s = report.stats;
  const lines: string[] = [];
  lines.push(
    `  traffic: ${int(s.ticks)} ticks (${s.simulatedSeconds.toFixed(0)} s simulated); real datagrams read: ${int(s.realToServer)} by the server, ${int(s.realToClient)} by the real client; half-open requests ${HALF_OPEN_VARIANTS.map((v, k) => `${v} ${int(s.halfOpen[k])}`).join(', ')}`,
  );
  lines.push(
    `  real client: ${s.realConnectedThroughout ? 'connected throughout' : 'LOST ITS CONNECTION'}; payloads to the server ${int(s.realUp.delivered)}/${int(s.realUp.sent)} received intact, to the client ${int(s.realDown.delivered)}/${int(s.realDown.sent)}`,
  );
  lines.push(
    `  companions: ${int(s.companionConnections)} connection attempts, ${int(s.companionConnects)} connected; ended ${COMPANION_END_NAMES.map((n, k) => `${n} ${int(s.companionEnds[k])}`).join(', ')}`,
  );
  lines.push(
    `  injected ${int(report.iterations)}: ${KIND_NAMES.map((n, k) => `${n} ${int(s.byKind[k])}`).join(', ')} (${int(s.handshakeReplays)} whole handshakes); to the server ${int(report.readerInputs[0] + report.readerInputs[1])} (${pct(report.readerInputs[0], report.readerInputs[0] + report.readerInputs[1])} from a real client's address), to the client ${int(report.readerInputs[2] + report.readerInputs[3])} (${pct(report.readerInputs[2], report.readerInputs[2] + report.readerInputs[3])} from the server's)`,
  );
  lines.push(`  operations: ${s.byOp.map(([name, count]) => `${name} ${int(count)}`).join('; ')}`);
  lines.push(
    `  bases (captured / mutated or replayed): ${PACKET_NAMES.map((n, k) => `${n} ${int(s.captured[k])}/${int(s.byBaseType[k])}`).join(', ')}`,
  );
  const c = s.serverCounters;
  lines.push(
    `  server counters: ${(Object.keys(c) as (keyof ServerCounters)[]).map((k) => `${k} ${int(c[k])}`).join(', ')}`,
  );
  lines.push(
    `  server: ${int(s.realConnects)} connects after a real handshake, ${int(s.ghostConnects)} without; pending handshakes peak ${s.peakPending}/${s.maxPending} (never expiring: peak ${s.peakNeverExpiring}), used tokens peak ${s.peakTokensUsed}/${s.maxTokensUsed}; receive queues peak ${int(s.peakQueueBytes)} bytes, ${int(s.queueDrops)} drops`,
  );
  return lines;
}
