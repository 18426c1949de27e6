import { defineMessage, MessageFactory } from '../../channels/message.js';
import { checkInputSchema } from '../../latency/input-copier.js';
import { type Codec, compile } from '../../schema/codec.js';
import { t } from '../../schema/schema.js';
import { checkTime, NO_TIME_YET } from '../../time/check-time.js';
import { PeerConnection } from '../links/peer-connection.js';
import type { PeerLinks } from '../links/peer-links.js';
import { ChecksumLedger } from './checksum-ledger.js';
import { FrameAdvantage } from './frame-advantage.js';
import { PacketRateLimit } from './packet-rate-limit.js';
import { PeerInputs } from './peer-inputs.js';
import {
  type PeerPacket,
  type RefusalReason,
  RollbackChannel,
  type RollbackChannelHost,
} from './rollback-channel.js';
import { RollbackDepartures } from './rollback-departures.js';
import {
  type ResolvedRollbackOptions,
  type RollbackGame,
  type RollbackSessionOptions,
  resolveRollbackOptions,
} from './rollback-options.js';
import {
  type AdvanceResult,
  type RollbackEvent,
  type RollbackState,
  type RollbackStats,
  zeroStats,
} from './rollback-stats.js';

/** The connections carry no messages, only the rollback entry; a factory needs one type. */
const factory = new MessageFactory([defineMessage('rollback-unused', t.bool())]);
const MAX_EVENTS = 256;
const NO_ROLLBACK = Number.POSITIVE_INFINITY;

/** Each session's channel host, for benchmarks that feed a session packets directly. */
const channelHosts = new WeakMap<object, RollbackChannelHost<unknown>>();

/**
 * What a session's peer channels read and report (internal: not exported from the package; a
 * benchmark uses it to hand a session packets without a network).
 */
export function rollbackChannelHost<I>(session: RollbackSession<I, unknown>): RollbackChannelHost<I> {
  return channelHosts.get(session) as RollbackChannelHost<I>;
}

/**
 * Rollback (GGPO's model) between 2 to 64 peers: each frame, every peer's input is either known
 * or predicted (the peer's last input repeated); the game runs ahead on predictions, and when a
 * real input differs from what was predicted the session loads the state saved at that frame and
 * runs the game again to the present with the real inputs. Local inputs apply `inputDelay` frames
 * after they are added, which hides that much of the latency without rolling back. Nothing the
 * network or a peer does throws: stalls, desyncs, disconnects and refused packets are reported.
 *
 * Each tick: `addLocalInput(input)`, `advanceFrame()`, `update(now)` (receives, then sends this
 * frame's input). See docs/lockstep.md for timing and what the game must keep deterministic.
 */
export class RollbackSession<I, S> {
  readonly self: number;
  readonly maxPeers: number;
  readonly options: ResolvedRollbackOptions;
  private readonly counters: RollbackStats;
  private readonly codec: Codec<I>;
  private readonly local: PeerInputs<I>;
  private readonly checksumInterval: number;
  private readonly links: PeerLinks;
  private readonly game: RollbackGame<I, S>;
  private readonly queues: PeerInputs<I>[] = [];
  private readonly connections: (PeerConnection | null)[] = [];
  private readonly advantages: (FrameAdvantage | null)[] = [];
  private readonly connected: boolean[];
  private readonly saved: (S | undefined)[];
  private readonly savedFrames: Float64Array;
  private readonly frameInputs: I[] = [];
  private readonly frameGone: boolean[];
  private readonly departures: RollbackDepartures;
  private readonly initialInput: I;
  private readonly ledger: ChecksumLedger;
  private readonly events: RollbackEvent[] = [];
  private readonly limit: PacketRateLimit;
  private readonly pendingInput: Uint8Array;
  private pendingLength = -1;
  private sessionState: RollbackState = 'synchronizing';
  private current = 0;
  private firstIncorrect = NO_ROLLBACK;
  private waitsOwed = 0;
  private stalled = false;
  private resimulatingNow = false;
  private nextChecksum = 0;
  private now: number;
  private readonly waiting: number[] = [];

  constructor(options: RollbackSessionOptions<I, S>) {
    this.options = resolveRollbackOptions(options);
    const { links, game } = options;
    const { inputDelay, maxPrediction, checksumInterval, packetBudgetBytes } = this.options;
    this.links = links;
    this.game = game;
    this.self = links.self;
    this.maxPeers = links.maxPeers;
    this.checksumInterval = checksumInterval;
    this.codec = compile(options.input);
    checkInputSchema('RollbackSession', this.codec);
    const start = options.now ?? 0;
    this.now = checkTime('RollbackSession', start, NO_TIME_YET);
    for (let p = 0; p < this.maxPeers; p++) {
      // Every queue starts with the initial input up to the input delay (throws on a bad one).
      this.queues.push(new PeerInputs(this.codec, options.initialInput, inputDelay));
      this.frameInputs.push(this.queues[p].valueAt(0));
    }
    this.local = this.queues[this.self];
    // The channels' callbacks live in this object, not on the session: they are not for users.
    const host: RollbackChannelHost<I> = {
      codec: this.codec,
      local: this.local,
      checksumInterval: this.checksumInterval,
      maxPeers: this.maxPeers,
      departureReports: () => this.departures.reports,
      currentFrame: () => this.current,
      horizon: () => this.horizon(),
      remote: (peer) => this.queues[peer],
      advantageOver: (peer) => this.advantages[peer]?.latest ?? 0,
      checksumsAfter: (after, frames, sums) =>
        this.checksumInterval === 0 ? 0 : this.ledger.after(after, frames, sums),
      refused: (peer, reason) => this.refused(peer, reason),
      received: (peer, packet) => this.received(peer, packet),
    };
    channelHosts.set(this, host as RollbackChannelHost<unknown>);
    for (let p = 0; p < this.maxPeers; p++) {
      if (p === this.self) {
        this.connections.push(null);
        this.advantages.push(null);
        continue;
      }
      const channel = new RollbackChannel(host, p);
      this.connections.push(
        new PeerConnection(links, p, { factory, channels: [channel.config()], packetBudgetBytes }, start),
      );
      this.advantages.push(new FrameAdvantage());
    }
    this.connected = new Array(this.maxPeers).fill(false);
    this.frameGone = new Array(this.maxPeers).fill(false);
    this.departures = new RollbackDepartures(this.maxPeers, this.self);
    this.initialInput = options.initialInput;
    // A departure may roll back to the frame after the lowest last frame any survivor held: up to
    // two prediction windows and the input delay behind the present (docs/lockstep.md).
    const kept = 2 * maxPrediction + inputDelay + 4;
    this.saved = new Array(kept).fill(undefined);
    this.savedFrames = new Float64Array(kept).fill(-1);
    // Ours and a peer's checksum of one frame come at most the prediction window plus the frames
    // it may run ahead of us (and the input delay) apart.
    const horizon = 2 * maxPrediction + inputDelay + 8;
    this.ledger = new ChecksumLedger(
      this.maxPeers,
      Math.max(1, checksumInterval),
      horizon,
      (peer, frame, l, r) => this.compared(peer, frame, l, r),
    );
    this.limit = new PacketRateLimit(this.maxPeers, this.options.maxPacketsPerSecond, start);
    this.pendingInput = new Uint8Array(Math.ceil(this.codec.maxBits / 8) + 8);
    this.counters = zeroStats(this.maxPeers, maxPrediction);
  }

  /** The session's counters and per-peer figures (live: read it, copy it to keep a snapshot). */
  stats(): Readonly<RollbackStats> {
    return this.counters;
  }

  /** 'synchronizing' until every peer is connected, then 'running'; 'closed' after close(). */
  get state(): RollbackState {
    return this.sessionState;
  }

  /** The next frame to run. */
  get frame(): number {
    return this.current;
  }

  /** Every peer's input is known up to this frame. */
  get confirmedFrame(): number {
    let confirmed = Number.POSITIVE_INFINITY;
    for (let p = 0; p < this.maxPeers; p++)
      if (!this.departures.departed[p] && this.queues[p].last < confirmed) confirmed = this.queues[p].last;
    return confirmed;
  }

  /** True while a rollback runs the game again (skip sounds and effects already played). */
  get resimulating(): boolean {
    return this.resimulatingNow;
  }

  /**
   * Per peer: the last frame of its own inputs once the peers agreed it is gone (it runs with the
   * initial input after it), else undefined.
   */
  departedAfter(peer: number): number | undefined {
    this.checkPeer('RollbackSession.departedAfter', peer);
    return this.departures.departed[peer] ? this.departures.lastFrame[peer] : undefined;
  }

  /** Peers whose late inputs stalled the last `advanceFrame` (empty when it was not stalled). */
  get waitingFor(): readonly number[] {
    return this.waiting;
  }

  /**
   * The confirmed input of `peer` at `frame` (for replays and checks), or undefined when the frame
   * is not confirmed or no longer held (the newest 256 frames are). The session's copy: do not keep it.
   */
  confirmedInput(frame: number, peer: number): I | undefined {
    this.checkPeer('RollbackSession.confirmedInput', peer);
    if (!Number.isInteger(frame) || frame < 0 || frame > this.confirmedFrame) return undefined;
    const q = this.queues[peer];
    return q.holds(frame) ? q.valueAt(frame) : undefined;
  }

  /**
   * This peer's input for the frame `advanceFrame` runs next (it applies `inputDelay` frames
   * later). Once per frame: a second call before advanceFrame throws, as does a value outside the
   * schema. If advanceFrame then does not run the frame (stalled, waiting), the input is dropped.
   */
  addLocalInput(input: I): void {
    if (this.sessionState === 'closed') throw new RangeError('RollbackSession.addLocalInput: closed');
    if (this.pendingLength >= 0)
      throw new RangeError(
        `RollbackSession.addLocalInput: an input was already added for frame ${this.current}; call advanceFrame first`,
      );
    const encoded = this.local.encode(input); // a value outside the schema throws here
    this.pendingInput.set(encoded);
    this.pendingLength = encoded.length;
  }

  /**
   * Runs the next frame: first a rollback when real inputs differ from the predictions (load,
   * then save and advance each frame again), then this frame with the newest inputs and
   * predictions. Needs addLocalInput first. Never throws for what peers do: see the result.
   */
  advanceFrame(): AdvanceResult {
    if (this.sessionState === 'closed') throw new RangeError('RollbackSession.advanceFrame: closed');
    if (this.pendingLength < 0)
      throw new RangeError(`RollbackSession.advanceFrame: addLocalInput first (frame ${this.current})`);
    const length = this.pendingLength;
    this.pendingLength = -1;
    if (this.sessionState === 'synchronizing') return 'synchronizing';
    if (this.firstIncorrect < this.current) this.rollback();
    this.checksums();
    if (this.isStalled()) {
      this.counters.stalledFrames++;
      return 'stalled';
    }
    if (this.shouldWait()) {
      this.counters.waitedFrames++;
      return 'waiting';
    }
    this.local.pushEncoded(this.pendingInput.subarray(0, length));
    this.runFrame(this.current);
    this.current++;
    this.counters.frame = this.current;
    this.counters.confirmedFrame = this.confirmedFrame;
    this.checksums();
    return 'advanced';
  }

  private runFrame(frame: number): void {
    const slot = frame % this.saved.length;
    this.saved[slot] = this.game.save(frame, this.saved[slot]);
    this.savedFrames[slot] = frame;
    for (let p = 0; p < this.maxPeers; p++) {
      this.frameInputs[p] = this.queues[p].valueAt(frame);
      this.frameGone[p] = frame > this.departures.lastFrame[p];
    }
    this.game.advance(this.frameInputs, frame, this.frameGone);
  }

  private rollback(): void {
    const from = this.firstIncorrect;
    this.firstIncorrect = NO_ROLLBACK;
    const slot = from % this.saved.length;
    // Unreachable while the stall bound holds: a frame is never predicted more than maxPrediction ahead.
    if (this.savedFrames[slot] !== from) throw new Error(`RollbackSession: no saved state for frame ${from}`);
    this.resimulatingNow = true;
    try {
      this.game.load(this.saved[slot] as S, from);
      for (let f = from; f < this.current; f++) this.runFrame(f);
    } finally {
      this.resimulatingNow = false;
    }
    const depth = this.current - from;
    const s = this.counters;
    s.rollbacks++;
    s.framesResimulated += depth;
    if (depth > s.maxRollbackDepth) s.maxRollbackDepth = depth;
    s.rollbackDepths[Math.min(depth, s.rollbackDepths.length - 1)]++;
  }

  private isStalled(): boolean {
    if (this.waiting.length > 0) this.waiting.length = 0;
    for (let p = 0; p < this.maxPeers; p++)
      if (this.current - this.queues[p].last > this.options.maxPrediction && !this.departures.departed[p])
        this.waiting.push(p);
    const stalled = this.waiting.length > 0;
    if (stalled && !this.stalled)
      this.report({ kind: 'stalled', frame: this.current, waitingFor: this.waiting.slice() });
    this.stalled = stalled;
    return stalled;
  }

  private shouldWait(): boolean {
    if (this.waitsOwed > 0) {
      this.waitsOwed--;
      return true;
    }
    let wait = 0;
    for (let p = 0; p < this.maxPeers; p++) {
      const a = this.advantages[p];
      if (a !== null && this.connected[p]) wait = Math.max(wait, a.recommendedWait());
    }
    if (wait < this.options.balanceThreshold) return false;
    this.waitsOwed = Math.min(Math.round(wait), this.options.maxPrediction) - 1;
    for (const a of this.advantages) a?.reset();
    return true;
  }

  /** Checksums of checksum frames whose state is final (every input before them confirmed). */
  private checksums(): void {
    const interval = this.checksumInterval;
    if (interval === 0) return;
    const limit = Math.min(this.confirmedFrame + 1, this.current - 1);
    for (; this.nextChecksum <= limit; this.nextChecksum += interval) {
      const slot = this.nextChecksum % this.saved.length;
      if (this.savedFrames[slot] !== this.nextChecksum) continue; // overwritten meanwhile: skipped
      this.ledger.recordLocal(this.nextChecksum, this.game.checksum(this.saved[slot] as S) >>> 0);
    }
    this.counters.checksumsSkipped = this.ledger.skipped;
  }

  private compared(peer: number, frame: number, local: number, remote: number): void {
    const { inputDelay, maxPrediction } = this.options;
    if (this.departures.clouded(frame, 2 * maxPrediction + 2 * inputDelay + 4)) return;
    this.counters.checksumsCompared++;
    if (local === remote) return;
    this.counters.desyncs++;
    this.report({ kind: 'desync', frame, peer, local, remote });
  }

  /**
   * Receives what the peers sent (inputs, checksums, connects and disconnects), then sends each
   * peer this peer's unacknowledged inputs. Once per tick, after advanceFrame; `now` in seconds,
   * never backwards.
   */
  update(now: number): void {
    this.now = checkTime('RollbackSession.update', now, this.now);
    if (this.sessionState === 'closed') return;
    const links = this.links;
    links.update(now);
    this.limit.refill(now);
    links.receive((peer, data) => this.datagram(peer, data));
    for (let e = links.pollEvent(); e !== null; e = links.pollEvent()) {
      const peerStats = this.counters.peers[e.peer];
      if (e.kind === 'connected') {
        this.connected[e.peer] = peerStats.connected = true;
        this.report({ kind: 'connected', peer: e.peer });
      } else {
        this.connected[e.peer] = peerStats.connected = false;
        this.report({ kind: 'disconnected', peer: e.peer, reason: e.kind });
        this.departures.noteLocal(e.peer, this.queues[e.peer].last);
      }
    }
    this.agree();
    if (this.sessionState === 'synchronizing' && this.allConnected()) {
      this.sessionState = 'running';
      this.report({ kind: 'running' });
    }
    for (let p = 0; p < this.maxPeers; p++) {
      const c = this.connections[p];
      if (c === null) continue;
      c.update(now);
      this.counters.peers[p].rttMs = c.rttMs;
      this.counters.peers[p].packetsInvalid = c.endpoint.stats().packetsInvalid;
    }
  }

  /** Settles every departure all the remaining peers reported: rolls back to the frame after it. */
  private agree(): void {
    for (let k = 0; k < this.maxPeers; k++) {
      const last = this.departures.agreed(k);
      // A frame we can no longer roll back to cannot be agreed (no honest peer reports one): stall.
      if (
        last === null ||
        (last + 1 < this.current && this.savedFrames[(last + 1) % this.saved.length] !== last + 1)
      )
        continue;
      this.departures.settle(k, last);
      const queue = this.queues[k];
      queue.truncate(last);
      if (queue.last === last) queue.push(this.initialInput);
      if (last + 1 < this.current && last + 1 < this.firstIncorrect) this.firstIncorrect = last + 1;
      this.report({ kind: 'departed', peer: k, lastFrame: last });
    }
  }

  private allConnected(): boolean {
    for (let p = 0; p < this.maxPeers; p++) if (p !== this.self && !this.connected[p]) return false;
    return true;
  }

  private datagram(peer: number, data: Uint8Array): void {
    const c = this.connections[peer];
    if (c === null || c === undefined || this.departures.gone[peer]) return;
    if (!this.limit.take(peer)) {
      this.counters.peers[peer].refused.flood++;
      return;
    }
    c.receivePacket(data);
  }

  /** Takes the next event, or null. */
  pollEvent(): RollbackEvent | null {
    return this.events.shift() ?? null;
  }

  private report(event: RollbackEvent): void {
    if (this.events.length >= MAX_EVENTS) {
      this.events.shift();
      this.counters.eventsDropped++;
    }
    this.events.push(event);
  }

  /** Ends the session: says goodbye to every peer and closes the links. Idempotent. */
  close(): void {
    if (this.sessionState === 'closed') return;
    this.sessionState = 'closed';
    for (const c of this.connections) c?.close();
    this.links.close();
  }

  private checkPeer(where: string, peer: number): void {
    if (!Number.isInteger(peer) || peer < 0 || peer >= this.maxPeers)
      throw new RangeError(`${where}: peer must be an index in [0, ${this.maxPeers}), got ${peer}`);
  }

  // What the peer channels report, through the host object built in the constructor.

  private horizon(): number {
    const { inputDelay, maxPrediction } = this.options;
    return this.current + 2 * inputDelay + maxPrediction + 2;
  }

  private refused(peer: number, reason: RefusalReason): void {
    this.counters.peers[peer].refused[reason]++;
  }

  private received(peer: number, packet: PeerPacket): void {
    const peerStats = this.counters.peers[peer];
    peerStats.packetsReceived++;
    const advantage = this.advantages[peer] as FrameAdvantage;
    const rtt = (this.connections[peer] as PeerConnection).rttMs / 1000;
    advantage.sample(this.current, packet.frame, rtt, this.options.frameRate, packet.advantage);
    peerStats.advantage = advantage.latest;
    peerStats.remoteAdvantage = advantage.reported;
    const queue = this.queues[peer];
    for (let k = 0; k < packet.inputCount; k++) {
      const encoded = packet.inputs[k].subarray(0, packet.inputLengths[k]);
      const frame = queue.last + 1;
      // The frame ran with the previous input repeated; a different one means it ran wrong.
      if (frame < this.current && frame < this.firstIncorrect && !queue.equals(frame - 1, encoded))
        this.firstIncorrect = frame;
      queue.pushEncoded(encoded);
    }
    peerStats.lastInputFrame = queue.last;
    for (let i = 0; i < packet.departureCount; i++)
      this.departures.noteRemote(peer, packet.departurePeers[i], packet.departureFrames[i]);
    if (packet.departureCount > 0) this.agree();
    for (let i = 0; i < packet.checksumCount; i++)
      this.ledger.recordRemote(peer, packet.checksumFrames[i], packet.checksums[i]);
    this.counters.checksumsSkipped = this.ledger.skipped;
  }
}
