import { type Aead, defaultAead } from '../connection/aead.js';
import { readU32, readU64 } from '../connection/bytes.js';
import { UsedTokens } from '../connection/used-tokens.js';
import { isPeerPacketKind } from '../lockstep/links/peer-packet.js';
import {
  BYE_BYTES,
  CHANNEL_HEADER_BYTES,
  CHANNEL_MAC_BYTES,
  ChannelCrypto,
  COOKIE_BYTES,
  GoneReason,
  HELLO_BYTES,
  HELLO_HEADER_BYTES,
  KEEP_ALIVE_BYTES,
  MAX_NOTICE_BODY_BYTES,
  type Notice,
  NoticeKind,
  REFUSED_BYTES,
  RefusalReason,
  RendezvousKind,
  randomFirstSequence,
  writeNotice,
} from '../lockstep/links/rendezvous-wire.js';
import { checkTime, NO_TIME_YET } from '../time/check-time.js';
import type { Address } from '../transport/address.js';
import { hostKey } from '../transport/address-key.js';
import type { DatagramTransport } from '../transport/transport.js';
import { RateLimiter } from './backend-rate-limiter.js';
import { openHello } from './rendezvous-hello.js';
import { PendingRegistrations } from './rendezvous-pending-registrations.js';
import { Registration } from './rendezvous-registration.js';
import { Relay } from './rendezvous-relay.js';
import {
  checkRendezvousOptions,
  copyBytes,
  equalBytes,
  type NoticeBody,
  newRendezvousCounters,
  type RendezvousCounters,
  type RendezvousServerOptions,
  toHex,
} from './rendezvous-server-options.js';
import { RendezvousSessions } from './rendezvous-sessions.js';

export type { RendezvousCounters, RendezvousServerOptions } from './rendezvous-server-options.js';

/** Seconds between resends of the notices a registration has not acknowledged. */
const RESEND_INTERVAL = 0.25;
/** Notices resent at most per round: the peer takes them in order, so the first ones matter. */
const RESEND_WINDOW = 16;

/**
 * The rendezvous and relay of peer-to-peer sessions, over any datagram transport (UDP in
 * production). Peers say hello with their backend-issued token: the rendezvous checks it (sealed
 * under the shared key, unexpired, not in use from another address, not of an older generation
 * than its slot took), learns the peer's reflexive address and reported local ones, and welcomes
 * it with a cookie. Only once the cookie comes back from that address (it receives there) does
 * the peer take its slot: the rendezvous then gives each new pair of peers of a session a random key, and
 * introduces them to each other — candidates and pair key, sealed to each under its own key. It
 * tells the others when a peer leaves or times out, and relays sealed peer packets between
 * registered peers whose direct path did not open. Bad input is counted, never thrown.
 */
export class RendezvousServer {
  private readonly counters: RendezvousCounters;
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
  /** Proven registrations: each holds its slot and was introduced to its session. */
  private readonly byAddress = new Map<Address, Registration>();
  private readonly pending: PendingRegistrations;
  private readonly sessions: RendezvousSessions;
  private readonly tokens: UsedTokens;
  private purgedAt = -1;
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
    // Sized like the connection layer's tables (docs/lockstep.md, "The token table"), and the same
    // tables: neither ever refuses a new token. A hello's token is tied to its address until its
    // registration is proven (the cookie came back), then completed: a peer token registers once,
    // from anywhere, which `hasCompleted` checks before the address rule.
    this.pending = new PendingRegistrations(Math.max(1024, this.maxRegistrations));
    this.tokens = new UsedTokens(2 * this.pending.capacity, Math.max(4096, 4 * this.maxRegistrations));
    this.sessions = new RendezvousSessions(this.maxRegistrations);
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
    this.counters = newRendezvousCounters(this.relay.counters);
  }

  /** What the server has counted: registrations, refusals, relayed bytes (live: read it, copy it to keep a snapshot). */
  stats(): Readonly<RendezvousCounters> {
    return this.counters;
  }

  get localAddress(): Address {
    return this.transport.localAddress;
  }

  /** Peers registered now in `sessionId`'s session, by index. */
  sessionPeers(sessionId: bigint): number[] {
    const session = this.sessions.get(sessionId.toString())?.slots ?? [];
    return session.flatMap((r, i) => (r === undefined ? [] : [i]));
  }

  /** Takes every datagram waiting, then times out silent peers. Call it often (every few ms to 50 ms). */
  update(now: number): void {
    this.now = checkTime('RendezvousServer.update', now, this.now);
    this.transport.update(now);
    while (this.transport.receive(this.onDatagram) > 0) {}
    for (const registration of this.byAddress.values()) this.tend(registration, now);
    for (const registration of this.pending.values()) this.tend(registration, now);
    const unix = this.unixTime();
    if (unix !== this.purgedAt) {
      this.purgedAt = unix;
      this.sessions.purge(unix);
    }
  }

  close(): void {
    this.transport.close();
  }

  /** Drops a registration silent past its timeout; else resends its unacknowledged notices when due. */
  private tend(registration: Registration, now: number): void {
    if (now - registration.lastHeard > registration.key.timeoutSeconds) {
      this.pending.delete(registration);
      this.remove(registration, GoneReason.TimedOut);
    } else if (registration.pending.length > 0 && now - registration.lastFlush >= RESEND_INTERVAL)
      this.flush(registration);
  }

  private datagram(from: Address, data: Uint8Array): void {
    const registration = this.byAddress.get(from);
    const kind = data.length > 0 ? data[0] : 0;
    // Relay frames have their own budget (charged once authenticated); everything else this one.
    if (registration !== undefined && kind === RendezvousKind.Relay) {
      const session = this.sessions.get(registration.sessionKey)?.slots ?? [];
      this.relay.forward(registration, data, session, this.now);
      return;
    }
    // An unproven sender is keyed by host: a source port is its free choice, so ip:port would be no
    // limit at all. A proven registration (its address echoed the cookie) keeps a budget of its own,
    // so players behind one NAT do not share one once registered.
    const rateKey = registration !== undefined ? from : hostKey(from);
    if (this.limiter.take(rateKey, this.now * 1000) !== 0) {
      this.counters.rateLimited++;
      return;
    }
    const unproven = this.pending.get(from);
    if ((kind === RendezvousKind.KeepAlive || kind === RendezvousKind.Bye) && (registration ?? unproven)) {
      // The address's newer, unproven registration first: a MAC that fails writes nothing, so the
      // datagram is still whole for the proven one it may belong to. A failure counts once.
      if (unproven !== undefined && this.control(unproven, kind, data, registration === undefined)) return;
      if (registration !== undefined) this.control(registration, kind, data, true);
      return;
    }
    if (kind === RendezvousKind.Hello) this.hello(from, data, registration, unproven);
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
  private open(
    registration: Registration,
    data: Uint8Array,
    seqOffset: number,
    bodyStart: number,
    count = true,
  ): boolean {
    const sequence = readU64(data, seqOffset);
    if (registration.replay.alreadyReceived(sequence)) {
      if (count) this.counters.replay++;
      return false;
    }
    if (!this.crypto.open(data, seqOffset, bodyStart, registration.key.peerToRendezvousKey)) {
      if (count) this.counters.mac++;
      return false;
    }
    registration.replay.advance(sequence);
    registration.lastHeard = this.now;
    return true;
  }

  /** A keep-alive or bye from `registration`'s address; false when it does not open under its key. */
  private control(registration: Registration, kind: number, data: Uint8Array, count: boolean): boolean {
    if (data.length !== (kind === RendezvousKind.Bye ? BYE_BYTES : KEEP_ALIVE_BYTES)) {
      this.counters.size++;
      return true;
    }
    if (!this.open(registration, data, 1, CHANNEL_HEADER_BYTES, count)) return false;
    if (kind === RendezvousKind.Bye) {
      this.pending.delete(registration);
      this.remove(registration, GoneReason.Left);
      return true;
    }
    registration.acknowledge(readU32(data, CHANNEL_HEADER_BYTES));
    if (!registration.proven) {
      registration.credit += data.length;
      // Proven: it receives at its address. Only now does it take its slot and meet the others.
      if (equalBytes(data, CHANNEL_HEADER_BYTES + 4, registration.cookie)) {
        registration.proven = true;
        this.admit(registration, data);
      }
    }
    return true;
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

  private hello(
    from: Address,
    data: Uint8Array,
    proven: Registration | undefined,
    unproven: Registration | undefined,
  ): void {
    if (data.length !== HELLO_BYTES) {
      this.counters.size++;
      return;
    }
    const tokenId = toHex(data, HELLO_HEADER_BYTES - 8 - 16, 16); // the private part's MAC
    const again = unproven?.tokenId === tokenId ? unproven : proven?.tokenId === tokenId ? proven : undefined;
    if (again !== undefined) {
      // Its hello again: the welcome was lost. It is resent on the timer, within the credit.
      if (this.open(again, data, HELLO_HEADER_BYTES - 8, HELLO_HEADER_BYTES) && !again.proven) {
        again.credit += data.length;
        this.pending.set(again);
      }
      return;
    }
    const unix = this.unixTime();
    const helloSeq = HELLO_HEADER_BYTES - 8;
    const opened = openHello(data, unix, this.protocolId, this.privateKey, this.aead, this.crypto);
    if (typeof opened === 'string') {
      this.counters[opened]++;
      if (opened === 'expired') this.refuse(from, data, helloSeq, RefusalReason.Expired);
      return;
    }
    const { key, expires, local } = opened;
    const refusal = this.sessions.refusal(key.sessionId.toString(), key.peer, key.generation ?? 0);
    // Full now: the peer keeps saying hello (a peer refused full once welcomed would be lost).
    if (
      refusal === RefusalReason.Full ||
      (proven === undefined && this.byAddress.size >= this.maxRegistrations)
    ) {
      this.counters.full++;
      this.refuse(from, data, helloSeq, RefusalReason.Full);
      return;
    }
    if (
      refusal !== 0 ||
      this.tokens.hasCompleted(tokenId, unix) ||
      this.tokens.heldElsewhere(tokenId, from, unix)
    ) {
      if (refusal !== 0) this.counters.tokenStale++;
      else this.counters.tokenReplayed++;
      this.refuse(from, data, helloSeq, RefusalReason.TokenUsed);
      return;
    }
    if (this.tokens.see(tokenId, from, expires, unix)) this.counters.tokensEvicted++;
    const registration = new Registration(
      key,
      key.sessionId.toString(),
      from,
      tokenId,
      local,
      this.now,
      200,
      randomFirstSequence(this.randomBytes),
      copyBytes(this.randomBytes(COOKIE_BYTES), COOKIE_BYTES),
    );
    registration.tokenExpires = expires;
    registration.replay.advance(readU64(data, helloSeq));
    registration.credit = data.length;
    if (this.pending.set(registration)) this.counters.pendingEvicted++;
    this.notify(registration, { kind: NoticeKind.Welcome, reflexive: from, cookie: registration.cookie });
  }

  /** A registration proved its address (`request` carried the cookie): it takes its slot and meets its session. */
  private admit(registration: Registration, request: Uint8Array): void {
    this.pending.delete(registration);
    const { key, address } = registration;
    const unix = this.unixTime();
    const existing = this.byAddress.get(address);
    const refusal = this.sessions.refusal(registration.sessionKey, key.peer, key.generation ?? 0);
    const full =
      refusal === RefusalReason.Full ||
      (existing === undefined && this.byAddress.size >= this.maxRegistrations);
    if (full || refusal !== 0) {
      if (full) this.counters.full++;
      else this.counters.tokenStale++;
      this.refuse(address, request, 1, full ? RefusalReason.Full : RefusalReason.TokenUsed);
      return;
    }
    if (this.tokens.complete(registration.tokenId, address, registration.tokenExpires, unix))
      this.counters.tokensEvicted++;
    if (existing !== undefined) this.remove(existing, GoneReason.Left);
    const replaced = this.sessions.get(registration.sessionKey)?.slots[key.peer];
    if (replaced !== undefined) this.remove(replaced, GoneReason.Left);
    const session = this.sessions.open(registration.sessionKey, key.maxPeers);
    session.slots[key.peer] = registration;
    session.generations[key.peer] = key.generation ?? 0;
    session.keepUntil = Math.max(session.keepUntil, registration.tokenExpires);
    this.byAddress.set(address, registration);
    this.counters.registered++;
    // What the credit held back (the welcome) goes now rather than at the next resend.
    this.flush(registration);
    for (const other of session.slots) {
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
    const at = registration.proven ? this.byAddress : this.pending;
    if (at.get(registration.address) !== registration) return;
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
    if (session === undefined || session.slots[registration.peer] !== registration) return;
    session.slots[registration.peer] = undefined;
    if (reason === GoneReason.Left) this.counters.left++;
    else this.counters.timedOut++;
    let empty = true;
    for (const other of session.slots) {
      if (other === undefined) continue;
      empty = false;
      this.notify(other, { kind: NoticeKind.Gone, peer: registration.peer, reason });
    }
    if (empty && this.sessions.emptied(registration.sessionKey, this.unixTime()))
      this.counters.sessionsForgotten++;
  }
}
