/**
 * The netcode fuzz run's state: fields, construction and bookkeeping. The run is one class in layers,
 * each a file: state, world, accounting, inputs, loop (NetcodeFuzz).
 */

import type { Aead } from '../../src/connection/aead.js';
import { nobleAead } from '../../src/connection/aead.js';
import { MAX_PACKET_BYTES } from '../../src/connection/constants.js';
import { PacketCodec } from '../../src/connection/packets.js';
import { Server } from '../../src/connection/server.js';
import { prng, randomBytes, randomInt } from '../../src/random/prng.js';
import { type Address, type DatagramHandler, MemoryNetwork } from '../../src/transport/index.js';
import {
  InputMaker,
  newTargetReport,
  normalizeReason,
  type ReaderStats,
  recordFailure,
} from '../fuzz-core.js';
import { subSeed } from '../packet-soak-core.js';
import {
  ATTACKERS,
  CAPTURE_SLOTS,
  COMPANION_IDS,
  COMPANIONS,
  COUNTER_KEYS,
  GENERATED,
  HALF_OPEN_IDS,
  HALF_OPEN_VARIANTS,
  MAX_CLIENTS,
  MAX_REASONS,
  MUTATED,
  NETCODE_FUZZ_DEFAULTS,
  NETCODE_READERS,
  NETCODE_TARGET,
  type NetcodeFuzzOptions,
  OP_NAMES,
  OP_RANDOM,
  OTHER_PROTOCOL_ID,
  PROTOCOL_ID,
  RANDOM,
  REAL,
  RECORD_RING,
  ROLE_HALF_OPEN,
  ROLE_SERVER,
  SERVER_ADDRESS,
  type ServerInternals,
  SPOOF_POOL,
  TICK_SECONDS,
  UNIX_START,
} from './options.js';
import { LARGEST_PATTERN, type NetcodeFuzzReport, type Party, Pattern, TagRing, Tap } from './parts.js';

/** One run's state; the layers above add the world, the accounting, the inputs and the loop. */
export abstract class NetcodeFuzzState {
  protected readonly rng: () => number;
  /** Token keys and nonces, captures: their own streams, so traffic volume does not shift `rng`. */
  protected readonly tokenRng: () => number;
  protected readonly captureRng: () => number;
  protected readonly aead: Aead;
  protected readonly pattern: Pattern;
  protected readonly network: MemoryNetwork;
  protected readonly server: Server;
  protected readonly internals: ServerInternals;
  protected readonly serverTap: Tap;
  protected readonly codec: PacketCodec;
  protected readonly otherCodec: PacketCodec;
  protected readonly maker = new InputMaker(2 * MAX_PACKET_BYTES + 64);
  protected readonly out = new Uint8Array(2 * MAX_PACKET_BYTES + 64);
  protected readonly payload = new Uint8Array(LARGEST_PATTERN);
  protected readonly report: Omit<NetcodeFuzzReport, 'stats'>;
  protected readonly injectionsPerTick: number;
  protected readonly randomShare: number;
  protected readonly halfOpenChance: number;
  protected readonly negativeTimeoutShare: number;
  protected readonly halfOpenFreshAddressShare: number;
  protected readonly handshakeChance: number;

  // Parties.
  protected real: Party | null = null;
  protected filler: Party | null = null;
  protected realIndex = -1;
  protected readonly companions: (Party | null)[] = new Array(COMPANIONS).fill(null);
  protected readonly companionNext = new Float64Array(COMPANIONS);
  protected readonly attackers: Tap[] = [];
  /** Client ids of the current connection attempts, and where each sends from. */
  protected readonly attempts = new Map<bigint, Party>();
  /** Server slots: the party connected there, GHOST, or null. */
  protected readonly slots: (Party | 'ghost' | null)[] = new Array(MAX_CLIENTS).fill(null);
  /** For a slot a client holds without a handshake: the check its connect failed. */
  protected readonly ghostCheck: string[] = new Array(MAX_CLIENTS).fill('');
  protected readonly pastIds = new Map<bigint, Address>();
  protected readonly spoofPool: Address[] = [];
  protected companionConnections = 0;
  protected nextCompanionId = COMPANION_IDS;
  protected nextHalfOpenId = HALF_OPEN_IDS;

  // Captures.
  protected readonly captures: Uint8Array[][];
  protected readonly captureLengths: Int32Array[];
  protected readonly captureRoles: Int8Array[];
  protected readonly captured = new Array(7).fill(0);
  protected readonly pairs: { request: Uint8Array; response: Uint8Array }[] = [];
  protected pairCount = 0;
  protected readonly pending: { tick: number; from: Address; response: Uint8Array }[] = [];

  // Injected inputs in flight: a record per input, by iteration.
  protected readonly recKind = new Int8Array(RECORD_RING);
  protected readonly recOp = new Int8Array(RECORD_RING);
  protected readonly recType = new Int8Array(RECORD_RING);
  protected readonly recReader = new Int8Array(RECORD_RING);
  protected op = OP_RANDOM;
  /** The other capture a mutation drew from (splices, MACs), or null. */
  protected other: Uint8Array | null = null;

  // Per-datagram accounting.
  protected readonly before = new Float64Array(COUNTER_KEYS.length);
  protected connectCount = 0;
  protected crashTag = Number.NaN;
  protected crashHex = '';
  protected failureInput: Uint8Array = new Uint8Array(0);
  /** The injected input being read (its iteration), or -1. */
  protected failureTag = -1;

  // State of the run.
  protected tick = 0;
  protected now = 0;
  protected main = false;
  protected realLost = false;
  protected readonly reportedStuck = new Set<Address>();
  protected readonly stats = {
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

  constructor(protected readonly options: NetcodeFuzzOptions) {
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

  protected privateKey(): Uint8Array {
    return Uint8Array.from({ length: 32 }, (_, i) => (i * 29 + 7) & 0xff);
  }

  protected unixNow(): number {
    return UNIX_START + Math.floor(this.now);
  }

  protected randomAddress(): Address {
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

  protected fail(check: string, detail: string): void {
    const report = this.report;
    const iteration = this.failureTag >= 0 ? this.failureTag : Math.max(0, report.iterations - 1);
    recordFailure(report, check, `${detail} (tick ${this.tick})`, iteration, this.failureInput);
  }

  protected check(ok: boolean, check: string, detail: () => string): void {
    this.report.semanticChecks++;
    if (!ok) this.fail(check, detail());
  }

  protected outcome(reader: number, kind: number, accepted: boolean, reason: string): void {
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

  // Defined by the layers above.
  abstract onSend(tap: Tap, to: Address, data: Uint8Array): void;
  abstract onReceive(tap: Tap, handler: DatagramHandler, from: Address, data: Uint8Array): void;
  protected abstract onConnect(index: number, clientId: bigint): void;
  protected abstract onDisconnect(index: number, clientId: bigint, reason: string): void;
  protected abstract serverPayload(index: number, data: Uint8Array, offset: number, length: number): void;
}
