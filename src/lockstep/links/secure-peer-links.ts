import { defaultAead } from '../../connection/aead.js';
import { checkTime, NO_TIME_YET } from '../../time/check-time.js';
import { type Address, parseAddress } from '../../transport/address.js';
import type { DatagramTransport } from '../../transport/transport.js';
import {
  DEFAULT_OPENER_ROUNDS,
  DEFAULT_OPENER_TTL,
  DEFAULT_PUNCH_INTERVAL,
  DEFAULT_PUNCH_TIMEOUT,
  type PunchOptions,
  punchStep,
  punchTtl,
  type TtlSender,
  ttlSender,
} from './hole-punch.js';
import { GOODBYE_COPIES, type PeerLinkEvent, type PeerLinks } from './peer-links.js';
import {
  isPeerPacketKind,
  MAX_PEER_PACKET_BYTES,
  MAX_PEER_PAYLOAD_BYTES,
  PEER_HEADER_BYTES,
  PEER_MAC_BYTES,
  PEER_OVERHEAD_BYTES,
  PeerPacketCrypto,
  PeerPacketKind,
  peerPacketSequence,
} from './peer-packet.js';
import { PeerPair, type PeerPath } from './peer-pair.js';
import { type PeerToken, readPeerToken } from './peer-token.js';
import { MAX_RELAY_FRAME_BYTES, RELAY_INNER_OFFSET } from './relay-frame.js';
import { RendezvousClient, type RendezvousState } from './rendezvous-client.js';
import {
  ChannelCrypto,
  MAX_CANDIDATES,
  MAX_LOCAL_CANDIDATES,
  type Notice,
  NoticeKind,
  RELAY_OVERHEAD_BYTES,
  RendezvousKind,
  usableCandidates,
} from './rendezvous-wire.js';
import {
  defaultCandidates,
  type SecurePeerLinksCounters,
  type SecurePeerLinksOptions,
} from './secure-peer-links-options.js';

export type { SecurePeerLinksCounters, SecurePeerLinksOptions } from './secure-peer-links-options.js';

/** Events kept unpolled at most per peer of the session (and a few more), oldest dropped beyond. */
const EVENTS_PER_PEER = 4;

/**
 * PeerLinks across the internet: each peer registers with the rendezvous using its token, is
 * introduced to the others of its session (their candidate addresses and a key per pair), punches
 * holes to them, and falls back to the relay where no direct path opens. Every peer datagram is
 * sealed under its pair's key with a per-direction sequence as nonce and replay protection, so
 * nobody outside the pair (the relay included) can read, forge or replay one.
 */
export class SecurePeerLinks implements PeerLinks {
  readonly self: number;
  readonly maxPeers: number;
  readonly maxPayloadBytes: number;
  private readonly counters: SecurePeerLinksCounters = {
    size: 0,
    unknownPair: 0,
    replay: 0,
    mac: 0,
    kind: 0,
    rendezvous: 0,
    unreachable: 0,
    relayed: 0,
    sendFailed: 0,
    eventsDropped: 0,
  };
  private readonly transport: DatagramTransport;
  private readonly token: PeerToken;
  private readonly rendezvous: RendezvousClient;
  private readonly crypto: PeerPacketCrypto;
  private readonly pairs: (PeerPair | null)[];
  private readonly events: PeerLinkEvent[] = [];
  private readonly out = new Uint8Array(MAX_RELAY_FRAME_BYTES);
  private readonly timeout: number;
  private readonly keepAliveInterval: number;
  private readonly punch: PunchOptions;
  private readonly ttl: TtlSender | null;
  /** The transport's address family: candidates of the other one cannot be reached from it. */
  private readonly family: 4 | 6 | null;
  /** Seconds without a direct packet after which a direct pair goes through the relay. */
  private readonly directSilence: number;
  private handler: ((peer: number, data: Uint8Array) => void) | null = null;
  private delivered = 0;
  private noticesTaken = false;
  private now = NO_TIME_YET;
  private closed = false;
  private readonly onDatagram = (from: Address, data: Uint8Array): void => this.datagram(from, data);

  constructor(options: SecurePeerLinksOptions) {
    const read = readPeerToken(options.token);
    if (!read.ok) throw new RangeError(`SecurePeerLinks: ${read.reason}`);
    this.token = read.token;
    this.transport = options.transport;
    this.self = this.token.peer;
    this.maxPeers = this.token.maxPeers;
    this.timeout = options.timeout ?? this.token.timeoutSeconds;
    this.keepAliveInterval = options.keepAliveInterval ?? 0.25;
    if (!(this.timeout > 0) || !Number.isFinite(this.timeout))
      throw new RangeError('SecurePeerLinks: timeout must be a positive number of seconds');
    if (!(this.keepAliveInterval > 0) || !(this.keepAliveInterval < this.timeout))
      throw new RangeError('SecurePeerLinks: keepAliveInterval must be positive and under timeout');
    this.punch = {
      punchInterval: options.punchInterval ?? DEFAULT_PUNCH_INTERVAL,
      punchTimeout: options.punchTimeout ?? DEFAULT_PUNCH_TIMEOUT,
      openerTtl: options.openerTtl ?? DEFAULT_OPENER_TTL,
      openerRounds: DEFAULT_OPENER_ROUNDS,
    };
    if (!Number.isInteger(this.punch.openerTtl) || this.punch.openerTtl < 0 || this.punch.openerTtl > 255)
      throw new RangeError('SecurePeerLinks: openerTtl must be an integer in [0, 255]');
    this.ttl = ttlSender(this.transport);
    if (
      !(this.punch.punchInterval > 0) ||
      !(this.punch.punchTimeout >= 0) ||
      !Number.isFinite(this.punch.punchTimeout)
    )
      throw new RangeError(
        'SecurePeerLinks: punchInterval must be positive and punchTimeout finite and >= 0',
      );
    const room = this.transport.maxDatagramSize - PEER_OVERHEAD_BYTES - RELAY_OVERHEAD_BYTES;
    if (room < 64) throw new RangeError('SecurePeerLinks: the transport carries too small datagrams');
    this.maxPayloadBytes = Math.min(MAX_PEER_PAYLOAD_BYTES, room);
    this.family = parseAddress(this.transport.localAddress)?.family ?? null;
    this.directSilence = Math.max(8 * this.keepAliveInterval, this.timeout / 4);
    const candidates = options.localCandidates ?? defaultCandidates(this.transport.localAddress);
    if (candidates.length > MAX_LOCAL_CANDIDATES)
      throw new RangeError(`SecurePeerLinks: at most ${MAX_LOCAL_CANDIDATES} local candidates`);
    for (const address of [...candidates, this.token.rendezvousAddress])
      if (usableCandidates([address], this.family, 1).length === 0)
        throw new RangeError(
          `SecurePeerLinks: ${JSON.stringify(address)} is not reachable from ${this.transport.localAddress} (port 0 or another address family)`,
        );
    const aead = options.aead ?? defaultAead();
    const randomBytes =
      options.randomBytes ?? ((n: number) => globalThis.crypto.getRandomValues(new Uint8Array(n)));
    this.crypto = new PeerPacketCrypto(aead, this.token.protocolId, this.token.sessionId);
    this.rendezvous = new RendezvousClient(
      this.token,
      this.transport,
      new ChannelCrypto(aead),
      candidates,
      randomBytes,
    );
    this.pairs = new Array<PeerPair | null>(this.maxPeers).fill(null);
  }

  /** What the links have counted (live: read it, copy it to keep a snapshot). */
  stats(): Readonly<SecurePeerLinksCounters> {
    return this.counters;
  }

  /** The path datagrams to `peer` take now: direct, through the relay, or none yet. */
  pathTo(peer: number): PeerPath | null {
    this.checkPeer('SecurePeerLinks.pathTo', peer);
    return this.pairs[peer]?.path ?? null;
  }

  /** True while the rendezvous holds this peer's registration. */
  get registered(): boolean {
    return this.rendezvous.welcomed;
  }

  /** Where this peer stands with the rendezvous; 'refused', 'expired' and 'lost' are final (get a new token). */
  get rendezvousState(): RendezvousState {
    return this.rendezvous.state;
  }

  /** Sends the transport refused (it threw, e.g. an address it cannot reach): counted, never thrown. */
  private transmit(to: Address, data: Uint8Array, ttl: number): void {
    try {
      if (ttl > 0 && this.ttl !== null) this.ttl.sendWithTtl(to, data, ttl);
      else this.transport.send(to, data);
    } catch {
      this.counters.sendFailed++;
    }
  }

  private pushEvent(event: PeerLinkEvent): void {
    if (this.events.length >= EVENTS_PER_PEER * this.maxPeers) {
      this.events.shift();
      this.counters.eventsDropped++;
    }
    this.events.push(event);
  }

  private checkPeer(where: string, peer: number): void {
    if (!Number.isInteger(peer) || peer < 0 || peer >= this.maxPeers || peer === this.self)
      throw new RangeError(
        `${where}: peer must be another peer's index in [0, ${this.maxPeers}), got ${peer}`,
      );
  }

  send(peer: number, data: Uint8Array): void {
    if (this.closed) throw new Error('SecurePeerLinks.send: closed');
    this.checkPeer('SecurePeerLinks.send', peer);
    if (!(data instanceof Uint8Array)) throw new TypeError('SecurePeerLinks.send: data must be a Uint8Array');
    if (data.length > this.maxPayloadBytes)
      throw new RangeError(`SecurePeerLinks.send: ${data.length} bytes is over ${this.maxPayloadBytes}`);
    const pair = this.pairs[peer];
    if (pair === null || pair.path === null) {
      this.counters.unreachable++;
      return;
    }
    this.sendOnPath(peer, pair, PeerPacketKind.Data, data);
  }

  private sendOnPath(peer: number, pair: PeerPair, kind: number, payload: Uint8Array | null): void {
    const key = pair.key;
    if (pair.path === 'direct' && pair.address !== null) {
      const length = this.crypto.seal(this.out, 0, kind, this.self, peer, pair.nextSequence(), payload, key);
      this.transmit(pair.address, this.out.subarray(0, length), 0);
    } else {
      const length = this.crypto.seal(
        this.out,
        RELAY_INNER_OFFSET,
        kind,
        this.self,
        peer,
        pair.nextSequence(),
        payload,
        key,
      );
      this.rendezvous.relay(this.out, peer, length);
      this.counters.relayed++;
    }
    pair.lastSent = this.now;
  }

  private sendTo(address: Address, peer: number, pair: PeerPair, kind: number, ttl = 0): void {
    const length = this.crypto.seal(this.out, 0, kind, this.self, peer, pair.nextSequence(), null, pair.key);
    this.transmit(address, this.out.subarray(0, length), ttl);
  }

  receive(handler: (peer: number, data: Uint8Array) => void): number {
    if (this.closed) return 0;
    this.handler = handler;
    this.delivered = 0;
    this.noticesTaken = false;
    try {
      this.transport.receive(this.onDatagram);
    } finally {
      this.handler = null;
    }
    // Acknowledge at once, so the rendezvous stops resending what this peer holds.
    if (this.noticesTaken) this.rendezvous.sendKeepAlive(this.now);
    return this.delivered;
  }

  private datagram(from: Address, data: Uint8Array): void {
    const kind = data.length > 0 ? data[0] : 0;
    const fromRendezvous = from === this.rendezvous.address;
    if (isPeerPacketKind(kind)) this.peerPacket(fromRendezvous ? null : from, data);
    else if (fromRendezvous && kind === RendezvousKind.Notice) this.rendezvousPacket(data);
    else if (fromRendezvous && kind === RendezvousKind.Refused) {
      if (!this.rendezvous.refused(data)) this.counters.rendezvous++;
    } else if (data.length === 0 || data.length > MAX_RELAY_FRAME_BYTES) this.counters.size++;
    else this.counters.kind++;
  }

  private rendezvousPacket(data: Uint8Array): void {
    const notice = this.rendezvous.take(data);
    if (typeof notice === 'string') {
      this.counters.rendezvous++;
      return;
    }
    this.noticesTaken = true;
    if (notice !== null) this.notice(notice);
  }

  /** A peer packet straight from `from`, or through the relay (from = null). */
  private peerPacket(from: Address | null, data: Uint8Array): void {
    if (data.length < PEER_OVERHEAD_BYTES || data.length > MAX_PEER_PACKET_BYTES) {
      this.counters.size++;
      return;
    }
    const sender = data[1];
    const pair = sender < this.maxPeers ? this.pairs[sender] : null;
    if (data[2] !== this.self || pair === null) {
      this.counters.unknownPair++;
      return;
    }
    const sequence = peerPacketSequence(data);
    if (pair.replay.alreadyReceived(sequence)) {
      this.counters.replay++;
      return;
    }
    if (!this.crypto.open(data, pair.key)) {
      this.counters.mac++;
      return;
    }
    pair.replay.advance(sequence);
    pair.heard(from, this.now, sequence);
    // The other side already gave up punching: meet it on the relay.
    if (from === null && pair.path === null) pair.path = 'relay';
    const kind = data[0];
    if (kind === PeerPacketKind.Goodbye) {
      this.pairs[sender] = null;
      if (pair.connected) this.pushEvent({ kind: 'left', peer: sender });
      return;
    }
    if (!pair.connected) {
      pair.connected = true;
      this.pushEvent({ kind: 'connected', peer: sender });
    }
    if (kind === PeerPacketKind.Punch && from !== null)
      this.sendTo(from, sender, pair, PeerPacketKind.PunchReply);
    else if (kind === PeerPacketKind.Data && this.handler !== null) {
      this.delivered++;
      this.handler(sender, data.subarray(PEER_HEADER_BYTES, data.length - PEER_MAC_BYTES));
    }
  }

  private notice(notice: Notice): void {
    if (notice.kind === NoticeKind.Welcome) return;
    const { peer } = notice;
    if (peer === this.self || peer >= this.maxPeers) {
      this.counters.rendezvous++;
      return;
    }
    const old = this.pairs[peer];
    if (old?.connected)
      this.pushEvent({
        kind: notice.kind === NoticeKind.Gone && notice.reason === 1 ? 'timedOut' : 'left',
        peer,
      });
    if (notice.kind === NoticeKind.Gone) {
      this.pairs[peer] = null;
      return;
    }
    const candidates = usableCandidates(notice.candidates, this.family, MAX_CANDIDATES);
    const pair = new PeerPair(notice.pairKey, candidates, this.now);
    this.pairs[peer] = pair;
    this.punchRound(peer, pair);
  }

  private punchRound(peer: number, pair: PeerPair): void {
    const ttl = punchTtl(pair, this.punch);
    for (const candidate of pair.candidates) this.sendTo(candidate, peer, pair, PeerPacketKind.Punch, ttl);
    pair.lastPunch = this.now;
    pair.punchRounds++;
  }

  pollEvent(): PeerLinkEvent | null {
    return this.events.shift() ?? null;
  }

  connectedPeers(): readonly number[] {
    const peers: number[] = [];
    for (let i = 0; i < this.maxPeers; i++) if (this.pairs[i]?.connected) peers.push(i);
    return peers;
  }

  update(now: number): void {
    this.now = checkTime('SecurePeerLinks.update', now, this.now);
    if (this.closed) return;
    this.transport.update(now);
    this.rendezvous.update(now);
    for (let peer = 0; peer < this.maxPeers; peer++) {
      const pair = this.pairs[peer];
      if (pair === null) continue;
      const step = punchStep(pair, now, this.punch);
      if (step === 'punch') this.punchRound(peer, pair);
      else if (step === 'relay') pair.path = 'relay';
      // A direct path gone silent (a NAT mapping dropped, a network change): try the relay.
      if (pair.path === 'direct' && now - pair.lastDirect > this.directSilence) pair.path = 'relay';
      if (pair.connected && now - pair.lastHeard > this.timeout) {
        pair.connected = false;
        this.pushEvent({ kind: 'timedOut', peer });
      }
      if (pair.path !== null && !(now - pair.lastSent < this.keepAliveInterval))
        this.sendOnPath(peer, pair, PeerPacketKind.KeepAlive, null);
    }
  }

  close(): void {
    if (this.closed) return;
    for (let copy = 0; copy < GOODBYE_COPIES; copy++)
      for (let peer = 0; peer < this.maxPeers; peer++) {
        const pair = this.pairs[peer];
        if (pair !== null && pair.path !== null) this.sendOnPath(peer, pair, PeerPacketKind.Goodbye, null);
      }
    if (this.rendezvous.welcomed) this.rendezvous.bye();
    this.closed = true;
  }
}
