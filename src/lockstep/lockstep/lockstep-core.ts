import type { AnyMessageType, MessageType } from '../../channels/message.js';
import { type Codec, compile } from '../../schema/codec.js';
import { crc32 } from '../../serialize/crc32.js';
import { ReadStream } from '../../serialize/read-stream.js';
import { WriteStream } from '../../serialize/write-stream.js';
import { PeerConnection } from '../links/peer-connection.js';
import { DeterministicRandom } from '../math/deterministic-random.js';
import { stateChecksum } from '../math/state-checksum.js';
import { controlFactory } from './control-messages.js';
import type { WelcomeValue } from './late-join.js';
import {
  type LockstepEvent,
  type LockstepSessionOptions,
  type LockstepState,
  type ResolvedLockstepOptions,
  resolveLockstepOptions,
} from './lockstep-options.js';
import { Membership, NEVER } from './membership.js';
import { PeerTraffic } from './peer-traffic.js';
import { ACCEPT, STALE, TOO_FAR, TurnChannel, type TurnChannelHost } from './turn-channel.js';
import { type TurnList, TurnListCodec } from './turn-list.js';
import { TURN_RING, TurnStore } from './turn-store.js';
import { TurnTiming } from './turn-timing.js';

/** Unpolled events kept (as the rollback session). */
export const MAX_EVENTS = 256;

/** Lists accepted ahead of the last turn run: an honest peer is at most 2 × delay ahead (a joiner 3 ×). */
const aheadLimit = (delay: number) => 4 * delay + 8;

/**
 * The state a lockstep session's parts share (the turn runner, late joins, departures, the public
 * class): the links and one PeerConnection per other peer (channel 0 reliable-ordered for control
 * messages, channel 1 the turn lists), every peer's lists, the membership table, pacing, and the
 * events waiting to be polled.
 */
export class LockstepCore<T> implements TurnChannelHost<T> {
  readonly options: ResolvedLockstepOptions;
  readonly self: number;
  readonly maxPeers: number;
  readonly traffic: PeerTraffic;
  readonly codec: Codec<T>;
  readonly lists: TurnListCodec<T>;
  readonly store: TurnStore<T>;
  readonly membership: Membership;
  readonly timing: TurnTiming;
  readonly random: DeterministicRandom;
  readonly connections: (PeerConnection | null)[];
  readonly channels: (TurnChannel<T> | null)[];
  readonly Forward: MessageType<{ peer: number; turn: number; list: Uint8Array }, string>;
  /** Events waiting to be polled: at most MAX_EVENTS, read from `eventHead`. */
  private readonly events: LockstepEvent[] = [];
  private eventHead = 0;
  /** Events dropped because the caller did not poll (the oldest go first). */
  eventsDropped = 0;
  /** Control messages not sent because the peer's reliable queue was full (it does not ack). */
  messagesDropped = 0;
  state: LockstepState;
  /** The last turn run (-1 before any). */
  executed = -1;
  /** The time of the update in progress, s. */
  now = 0;
  newestOwn = -1;
  /** Per peer: lists past this turn are not taken (a departure is being agreed); NEVER when not frozen. */
  readonly frozen: number[];
  /** This peer's checksum after each recent turn. */
  readonly checksums = new Uint32Array(TURN_RING);
  readonly checksumTurns = new Int32Array(TURN_RING).fill(-1);
  /** A list was sealed in this update: send it at once. */
  sealed = false;
  lastRefusal: string | null = null;
  /** Host: peers that asked to join, to be scheduled in the next list it seals. */
  readonly joinRequests = new Set<number>();
  /** Joiner: the Welcome received, until its snapshot block arrives. */
  welcome: { from: number; value: WelcomeValue } | null = null;

  constructor(readonly o: LockstepSessionOptions<T>) {
    this.options = resolveLockstepOptions(o as LockstepSessionOptions<unknown>);
    const links = o.links;
    this.self = links.self;
    this.maxPeers = links.maxPeers;
    if (this.maxPeers > 64) throw new RangeError(`LockstepSession: at most 64 peers, got ${this.maxPeers}`);
    this.traffic = new PeerTraffic(links, this.options.maxDatagramsPerSecond);
    this.codec = compile(o.command);
    this.lists = new TurnListCodec(this.codec, this.options.maxCommandsPerTurn, this.maxPeers);
    const budget = Math.min(1150, links.maxPayloadBytes - 16);
    const maxListBytes = Math.ceil(this.lists.maxBits / 8);
    if (maxListBytes + 40 > budget)
      throw new RangeError(
        `LockstepSession: a full turn (maxCommandsPerTurn × the command's ${this.codec.maxBits} bits) takes up to ${maxListBytes} bytes, over a packet (${budget - 40}); lower maxCommandsPerTurn`,
      );
    const { factory, Forward } = controlFactory(maxListBytes);
    this.Forward = Forward;
    this.store = new TurnStore<T>(this.maxPeers);
    this.membership = new Membership(this.maxPeers);
    this.timing = new TurnTiming(this.options, this.maxPeers);
    this.random = new DeterministicRandom(o.seed);
    this.frozen = new Array(this.maxPeers).fill(NEVER);
    const members =
      o.joining === true ? [] : (o.members ?? Array.from({ length: this.maxPeers }, (_, i) => i));
    for (const p of members) {
      if (!Number.isInteger(p) || p < 0 || p >= this.maxPeers)
        throw new RangeError(
          `LockstepSession: members must be peer indices in [0, ${this.maxPeers}), got ${p}`,
        );
      // Nobody could queue before the first turn, so lists count from turn `delay`.
      this.membership.join(p, this.options.delay);
    }
    this.state = this.membership.isCurrent(this.self) ? 'running' : 'joining';
    this.channels = new Array(this.maxPeers).fill(null);
    this.connections = new Array(this.maxPeers).fill(null);
    for (let p = 0; p < this.maxPeers; p++) {
      if (p === this.self) continue;
      const channel = new TurnChannel<T>(this, p);
      this.channels[p] = channel;
      this.connections[p] = new PeerConnection(
        this.traffic,
        p,
        {
          factory,
          channels: [
            { kind: 'reliable-ordered', priority: 1 },
            { kind: 'custom', priority: 2, create: () => channel },
          ],
        },
        0,
      );
      if (this.state === 'running' && this.membership.isCurrent(p)) channel.sendFromTurn(this.options.delay);
    }
  }

  get delay(): number {
    return this.options.delay;
  }

  isHostNow(): boolean {
    return this.membership.acting() === this.self;
  }

  judge(peer: number, turn: number): number {
    if (this.state === 'joining') return turn < 0x7fffffff ? ACCEPT : TOO_FAR;
    if (turn <= this.executed || turn > this.frozen[peer] || turn > this.membership.leaveAfter[peer])
      return STALE;
    return turn > this.executed + aheadLimit(this.delay) ? TOO_FAR : ACCEPT;
  }

  arrived(_peer: number, turn: number): void {
    const own = this.store.get(this.self, turn);
    if (own !== null) this.timing.lateness((this.now - own.sealedAt) * 1000);
  }

  stale(peer: number, count: number): void {
    this.traffic.peers[peer].staleLists += count;
  }

  /** Stores a list that came by a control message (a departure's), if new and not yet run. */
  storeForwarded(peer: number, turn: number, bytes: Uint8Array, scratch: { list: TurnList<T> }): boolean {
    if (turn <= this.executed || this.store.has(peer, turn) || turn > this.executed + TURN_RING / 2)
      return false;
    const rs = scratchReader;
    rs.reset(bytes);
    if (!this.lists.read(rs, turn, scratch.list)) {
      this.lastRefusal = `forwarded list: ${rs.error}`;
      return false;
    }
    scratch.list = this.store.swapIn(peer, scratch.list);
    return true;
  }

  /** Encodes a held list for a control message. */
  encodeList(peer: number, turn: number): Uint8Array | null {
    const list = this.store.get(peer, turn);
    if (list === null) return null;
    const ws = scratchWriter;
    ws.reset();
    this.lists.write(ws, list);
    return ws.finish().slice();
  }

  /**
   * Queues a control message; false (counted) when the peer's reliable queue is full — a peer that
   * never acks must not make a send throw, and everything sent here is sent again or not needed.
   */
  send<M extends AnyMessageType>(
    peer: number,
    type: M,
    value: M extends MessageType<infer V> ? V : never,
  ): boolean {
    const channels = this.connections[peer]!.channels;
    if (!channels.hasRoom(0)) {
      this.messagesDropped++;
      return false;
    }
    channels.send(0, type, value as never);
    return true;
  }

  /** Counts a refusal of something `peer` sent, and says why. */
  refuse(peer: number, reason: string): void {
    this.traffic.peers[peer].refused++;
    this.lastRefusal = reason;
  }

  /** Queues an event for pollEvent; past MAX_EVENTS unpolled, the oldest is dropped (counted). */
  pushEvent(event: LockstepEvent): void {
    if (this.events.length - this.eventHead >= MAX_EVENTS) {
      this.eventHead++;
      this.eventsDropped++;
    }
    this.events.push(event);
    // Compacted now and then so the array does not grow with the polled ones.
    if (this.eventHead >= MAX_EVENTS) {
      this.events.splice(0, this.eventHead);
      this.eventHead = 0;
    }
  }

  pollEvent(): LockstepEvent | null {
    if (this.eventHead >= this.events.length) return null;
    const event = this.events[this.eventHead]!;
    this.events[this.eventHead++] = undefined as never;
    if (this.eventHead === this.events.length) {
      this.events.length = 0;
      this.eventHead = 0;
    }
    return event;
  }

  /** A turn whose commands no peer holds (checksum ring: this peer's own after `turn`). */
  checksumAt(turn: number): number | null {
    const slot = turn & (TURN_RING - 1);
    return this.checksumTurns[slot] === turn ? this.checksums[slot] : null;
  }

  recordChecksum(turn: number, value: number): void {
    const slot = turn & (TURN_RING - 1);
    this.checksumTurns[slot] = turn;
    this.checksums[slot] = value >>> 0;
  }

  /** CRC-32 of a list's encoding (as it travels): what a peer ran, to compare after a desync. */
  listDigest(list: TurnList<T>): number {
    const ws = scratchWriter;
    ws.reset();
    this.lists.write(ws, list);
    return crc32(ws.finish()) >>> 0;
  }

  /** The game's checksum of its state now, as a uint32. */
  checksumNow(): number {
    const c = this.o.game.checksum();
    return typeof c === 'number' ? c >>> 0 : stateChecksum(c);
  }

  /** The current peers other than this one. */
  others(): number[] {
    return this.membership.current().filter((p) => p !== this.self);
  }
}

const scratchReader = new ReadStream();
const scratchWriter = new WriteStream(2048);
