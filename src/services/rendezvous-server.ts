import { type Aead, defaultAead } from '../connection/aead.js';
import { readU32, readU64 } from '../connection/bytes.js';
import { isPeerPacketKind } from '../lockstep/peer-packet.js';
import { openPeerTokenPrivate } from '../lockstep/peer-token.js';
import {
  BYE_BYTES,
  CHANNEL_HEADER_BYTES,
  CHANNEL_MAC_BYTES,
  ChannelCrypto,
  COOKIE_BYTES,
  GoneReason,
  HELLO_BYTES,
  HELLO_HEADER_BYTES,
  helloCandidates,
  helloToken,
  KEEP_ALIVE_BYTES,
  MAX_NOTICE_BODY_BYTES,
  type Notice,
  NoticeKind,
  REFUSED_BYTES,
  RefusalReason,
  RendezvousKind,
  randomFirstSequence,
  writeNotice,
} from '../lockstep/rendezvous-wire.js';
import { checkTime, NO_TIME_YET } from '../time/check-time.js';
import type { Address } from '../transport/address.js';
import type { DatagramTransport } from '../transport/transport.js';
import { RateLimiter } from './backend-rate-limit.js';
import { Registration } from './rendezvous-registration.js';
import { Relay } from './rendezvous-relay.js';
import {
  checkRendezvousOptions,
  copyBytes,
  equalBytes,
  type NoticeBody,
  type RendezvousCounters,
  type RendezvousServerOptions,
  toHex,
} from './rendezvous-server-options.js';
import { TokenTable } from './rendezvous-tokens.js';

export type { RendezvousCounters, RendezvousServerOptions } from './rendezvous-server-options.js';

/** Seconds between resends of the notices a registration has not acknowledged. */
const RESEND_INTERVAL = 0.25;
/** Notices resent at most per round: the peer takes them in order, so the first ones matter. */
const RESEND_WINDOW = 16;

/**
 * The rendezvous and relay of peer-to-peer sessions, over any datagram transport (UDP in
 * production). Peers say hello with their backend-issued token: the rendezvous checks it (sealed
 * under the shared key, unexpired, not in use from another address), learns the peer's reflexive
 * address and reported local ones, gives each new pair of peers of a session a random key, and
 * introduces them to each other — candidates and pair key, sealed to each under its own key. It
 * tells the others when a peer leaves or times out, and relays sealed peer packets between
 * registered peers whose direct path did not open. Bad input is counted, never thrown.
 */
export class RendezvousServer {
  readonly counters: RendezvousCounters;
  private readonly transport: DatagramTransport;
  private readonly protocolId: bigint;
  private readonly privateKey: Uint8Array;
  private readonly unixTime: () => number;
  private readonly randomBytes: (length: number) => Uint8Array;
  private readonly aead: Aead;
  private readonly crypto: ChannelCrypto;
  private readonly relay: Relay;
  private readonly limiter: RateLimiter;
  private readonly maxRegistrations: number;
  private readonly byAddress = new Map<Address, Registration>();
  private readonly sessions = new Map<string, (Registration | undefined)[]>();
  private readonly tokens: TokenTable;
  private readonly out = new Uint8Array(CHANNEL_HEADER_BYTES + MAX_NOTICE_BODY_BYTES + 16);
  private readonly refusal = new Uint8Array(REFUSED_BYTES);
  private readonly onDatagram = (from: Address, data: Uint8Array): void => this.datagram(from, data);
  private now = NO_TIME_YET;

  constructor(options: RendezvousServerOptions) {
    if (!(options.privateKey instanceof Uint8Array) || options.privateKey.length !== 32)
      throw new RangeError('RendezvousServer: privateKey must be 32 bytes');
    checkRendezvousOptions(options);
    this.transport = options.transport;
    this.protocolId = options.protocolId;
    this.privateKey = options.privateKey;
    this.unixTime = options.unixTime ?? (() => Math.floor(Date.now() / 1000));
    this.randomBytes =
      options.randomBytes ?? ((n) => globalThis.crypto.getRandomValues(new Uint8Array(n)) as Uint8Array);
    this.aead = options.aead ?? defaultAead();
    this.crypto = new ChannelCrypto(this.aead);
    this.maxRegistrations = options.maxRegistrations ?? 4096;
    this.tokens = new TokenTable(4 * this.maxRegistrations);
    const helloPerSecond = options.helloPerSecond ?? 20;
    this.limiter = new RateLimiter({
      perSecond: helloPerSecond,
      burst: 2 * helloPerSecond,
      maxAddresses: 65536,
    });
    const relayPerSecond = options.relayPerSecond ?? 1000;
    this.relay = new Relay(this.transport, this.crypto, {
      packetsPerSecond: relayPerSecond,
      burst: Math.max(200, relayPerSecond / 5),
    });
    this.counters = {
      registered: 0,
      introductions: 0,
      left: 0,
      timedOut: 0,
      size: 0,
      unknownAddress: 0,
      kind: 0,
      expired: 0,
      forged: 0,
      tokenReplayed: 0,
      tokensFull: 0,
      noticeOverflow: 0,
      refusalsSent: 0,
      unprovenHeld: 0,
      mac: 0,
      replay: 0,
      malformed: 0,
      full: 0,
      rateLimited: 0,
      relay: this.relay.counters,
    };
  }

  get localAddress(): Address {
    return this.transport.localAddress;
  }

  /** Peers registered now in `sessionId`'s session, by index. */
  sessionPeers(sessionId: bigint): number[] {
    const session = this.sessions.get(sessionId.toString()) ?? [];
    return session.flatMap((r, i) => (r === undefined ? [] : [i]));
  }

  /** Takes every datagram waiting, then times out silent peers. Call it often (every few ms to 50 ms). */
  update(now: number): void {
    this.now = checkTime('RendezvousServer.update', now, this.now);
    this.transport.update(now);
    while (this.transport.receive(this.onDatagram) > 0) {}
    for (const registration of this.byAddress.values()) {
      if (now - registration.lastHeard > registration.key.timeoutSeconds)
        this.remove(registration, GoneReason.TimedOut);
      else if (registration.pending.length > 0 && now - registration.lastFlush >= RESEND_INTERVAL)
        this.flush(registration);
    }
  }

  close(): void {
    this.transport.close();
  }

  private datagram(from: Address, data: Uint8Array): void {
    const registration = this.byAddress.get(from);
    const kind = data.length > 0 ? data[0] : 0;
    // Relay frames have their own budget (charged once authenticated); everything else this one.
    if (registration !== undefined && kind === RendezvousKind.Relay) {
      const session = this.sessions.get(registration.sessionKey) ?? [];
      this.relay.forward(registration, data, session, this.now);
      return;
    }
    if (this.limiter.take(from, this.now * 1000) !== 0) {
      this.counters.rateLimited++;
      return;
    }
    if (registration !== undefined && (kind === RendezvousKind.KeepAlive || kind === RendezvousKind.Bye))
      this.control(registration, kind, data);
    else if (kind === RendezvousKind.Hello) this.hello(from, data, registration);
    else if (kind === RendezvousKind.KeepAlive) {
      // Tell a peer this rendezvous forgot (timed out, restarted) so it stops keeping alive in vain.
      this.counters.unknownAddress++;
      if (data.length === KEEP_ALIVE_BYTES) this.refuse(from, data, 1, RefusalReason.Unknown);
    } else if (kind === RendezvousKind.Bye || kind === RendezvousKind.Relay) this.counters.unknownAddress++;
    else if (isPeerPacketKind(kind) || kind === RendezvousKind.Notice || data.length > 0)
      this.counters.kind++;
    else this.counters.size++;
  }

  /** Opens a channel datagram from a registration; false (counted) when it is refused. */
  private open(registration: Registration, data: Uint8Array, seqOffset: number, bodyStart: number): boolean {
    const sequence = readU64(data, seqOffset);
    if (registration.replay.alreadyReceived(sequence)) {
      this.counters.replay++;
      return false;
    }
    if (!this.crypto.open(data, seqOffset, bodyStart, registration.key.peerToRendezvousKey)) {
      this.counters.mac++;
      return false;
    }
    registration.replay.advance(sequence);
    registration.lastHeard = this.now;
    return true;
  }

  private control(registration: Registration, kind: number, data: Uint8Array): void {
    if (data.length !== (kind === RendezvousKind.Bye ? BYE_BYTES : KEEP_ALIVE_BYTES)) {
      this.counters.size++;
      return;
    }
    if (!this.open(registration, data, 1, CHANNEL_HEADER_BYTES)) return;
    if (kind === RendezvousKind.Bye) {
      this.remove(registration, GoneReason.Left);
      return;
    }
    registration.acknowledge(readU32(data, CHANNEL_HEADER_BYTES));
    if (!registration.proven) {
      registration.credit += data.length;
      // Proven once: send what the credit held back now rather than at the next resend.
      if (equalBytes(data, CHANNEL_HEADER_BYTES + 4, registration.cookie)) {
        registration.proven = true;
        this.flush(registration);
      }
    }
  }

  /** Answers a refused request with its sequence and MAC (REFUSED_BYTES, shorter than any request). */
  private refuse(to: Address, request: Uint8Array, seqOffset: number, reason: number): void {
    const out = this.refusal;
    out[0] = RendezvousKind.Refused;
    out[1] = reason;
    out.set(request.subarray(seqOffset, seqOffset + 8), 2);
    out.set(request.subarray(request.length - CHANNEL_MAC_BYTES), 10);
    this.transport.send(to, out);
    this.counters.refusalsSent++;
  }

  private hello(from: Address, data: Uint8Array, existing: Registration | undefined): void {
    if (data.length !== HELLO_BYTES) {
      this.counters.size++;
      return;
    }
    const token = helloToken(data);
    const tokenId = toHex(data, HELLO_HEADER_BYTES - 8 - 16, 16); // the private part's MAC
    if (existing !== undefined && existing.tokenId === tokenId) {
      // Its hello again: the welcome was lost. It is resent on the timer, within the credit.
      if (this.open(existing, data, HELLO_HEADER_BYTES - 8, HELLO_HEADER_BYTES) && !existing.proven)
        existing.credit += data.length;
      return;
    }
    const unix = this.unixTime();
    const helloSeq = HELLO_HEADER_BYTES - 8;
    if (token.expireTimestamp < unix) {
      this.counters.expired++;
      this.refuse(from, data, helloSeq, RefusalReason.Expired);
      return;
    }
    const key = openPeerTokenPrivate(
      token.privateData,
      this.protocolId,
      token.expireTimestamp,
      token.nonce,
      this.privateKey,
      this.aead,
    );
    if (key === null) {
      this.counters.forged++;
      return;
    }
    if (!this.crypto.open(data, helloSeq, HELLO_HEADER_BYTES, key.peerToRendezvousKey)) {
      this.counters.mac++;
      return;
    }
    const local = helloCandidates(data);
    if (local === null) {
      this.counters.malformed++;
      return;
    }
    const sessionKey = key.sessionId.toString();
    let session = this.sessions.get(sessionKey);
    if (
      (session !== undefined && key.peer >= session.length) ||
      (existing === undefined && this.byAddress.size >= this.maxRegistrations)
    ) {
      this.counters.full++;
      this.refuse(from, data, helloSeq, RefusalReason.Full);
      return;
    }
    const claim = this.tokens.claim(tokenId, token.expireTimestamp, unix);
    if (claim !== 'ok') {
      if (claim === 'used') this.counters.tokenReplayed++;
      else this.counters.tokensFull++;
      this.refuse(from, data, helloSeq, claim === 'used' ? RefusalReason.TokenUsed : RefusalReason.Full);
      return;
    }
    if (existing !== undefined) this.remove(existing, GoneReason.Left);
    const replaced = session?.[key.peer];
    if (replaced !== undefined) this.remove(replaced, GoneReason.Left);
    session = this.sessions.get(sessionKey);
    if (session === undefined) {
      session = new Array<Registration | undefined>(key.maxPeers).fill(undefined);
      this.sessions.set(sessionKey, session);
    }
    const registration = new Registration(
      key,
      sessionKey,
      from,
      tokenId,
      local,
      this.now,
      200,
      randomFirstSequence(this.randomBytes),
      copyBytes(this.randomBytes(COOKIE_BYTES), COOKIE_BYTES),
    );
    registration.replay.advance(readU64(data, helloSeq));
    registration.credit = data.length;
    session[key.peer] = registration;
    this.byAddress.set(from, registration);
    this.counters.registered++;
    this.notify(registration, { kind: NoticeKind.Welcome, reflexive: from, cookie: registration.cookie });
    for (const other of session) {
      if (other === undefined || other === registration) continue;
      const pairKey = copyBytes(this.randomBytes(32), 32);
      this.counters.introductions++;
      this.notify(other, {
        kind: NoticeKind.Introduce,
        peer: key.peer,
        pairKey,
        candidates: registration.candidates,
      });
      this.notify(registration, {
        kind: NoticeKind.Introduce,
        peer: other.peer,
        pairKey,
        candidates: other.candidates,
      });
    }
  }

  /**
   * Queues a notice and sends it at once (within the credit). A registration with too many
   * unacknowledged is not listening: it is dropped (counted) rather than miss a notice.
   */
  private notify(registration: Registration, body: NoticeBody): void {
    if (this.byAddress.get(registration.address) !== registration) return;
    if (!registration.queue(body)) {
      this.counters.noticeOverflow++;
      this.remove(registration, GoneReason.TimedOut);
      return;
    }
    this.send(registration, registration.pending[registration.pending.length - 1]);
  }

  /** Resends the first notices `registration` has not acknowledged, each under a fresh sequence. */
  private flush(registration: Registration): void {
    registration.lastFlush = this.now;
    const count = Math.min(RESEND_WINDOW, registration.pending.length);
    for (let i = 0; i < count; i++) if (!this.send(registration, registration.pending[i])) return;
  }

  /** Seals and sends one notice; false when held back for want of credit (unproven address). */
  private send(registration: Registration, notice: Notice): boolean {
    const bodyLength = writeNotice(this.out, notice);
    const length = CHANNEL_HEADER_BYTES + bodyLength + CHANNEL_MAC_BYTES;
    if (!registration.proven) {
      if (registration.credit < length) {
        this.counters.unprovenHeld++;
        return false;
      }
      registration.credit -= length;
    }
    this.crypto.seal(
      this.out,
      1,
      CHANNEL_HEADER_BYTES,
      bodyLength,
      registration.sendSequence++,
      registration.key.rendezvousToPeerKey,
    );
    this.transport.send(registration.address, this.out.subarray(0, length));
    return true;
  }

  private remove(registration: Registration, reason: 0 | 1): void {
    if (this.byAddress.get(registration.address) !== registration) return;
    this.byAddress.delete(registration.address);
    const session = this.sessions.get(registration.sessionKey);
    if (session === undefined || session[registration.peer] !== registration) return;
    session[registration.peer] = undefined;
    if (reason === GoneReason.Left) this.counters.left++;
    else this.counters.timedOut++;
    let empty = true;
    for (const other of session) {
      if (other === undefined) continue;
      empty = false;
      this.notify(other, { kind: NoticeKind.Gone, peer: registration.peer, reason });
    }
    if (empty) this.sessions.delete(registration.sessionKey);
  }
}
