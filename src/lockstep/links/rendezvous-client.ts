import { readU64, writeU32 } from '../../connection/bytes.js';
import { ReplayProtection } from '../../connection/replay-protection.js';
import { NO_TIME_YET } from '../../time/check-time.js';
import type { Address } from '../../transport/address.js';
import type { DatagramTransport } from '../../transport/transport.js';
import type { PeerToken } from './peer-token.js';
import { sealRelayFrame } from './relay-frame.js';
import {
  CHANNEL_HEADER_BYTES,
  CHANNEL_MAC_BYTES,
  type ChannelCrypto,
  COOKIE_BYTES,
  HELLO_BYTES,
  HELLO_HEADER_BYTES,
  KEEP_ALIVE_BYTES,
  MAX_NOTICE_BODY_BYTES,
  type Notice,
  REFUSED_BYTES,
  RefusalReason,
  RendezvousKind,
  randomFirstSequence,
  readNotice,
  writeHello,
} from './rendezvous-wire.js';

/** Seconds between the first hellos until the rendezvous welcomes this peer; it doubles after the 4th, up to 2 s. */
const HELLO_INTERVAL = 0.25;
const MAX_HELLO_INTERVAL = 2;
/** Requests remembered to match a refusal against (a refusal echoes the request's sequence and MAC). */
const RECENT_REQUESTS = 4;

/**
 * Where this peer stands with the rendezvous: saying hello, registered, or stopped for good —
 * `refused` (its token was used already: get a new one), `expired` (no welcome while the token
 * could register), `lost` (the rendezvous forgot it: timed out or restarted; get a new token).
 * Peers already reached directly stay reachable; the relay and new introductions are gone.
 */
export type RendezvousState = 'registering' | 'registered' | 'refused' | 'expired' | 'lost';
/**
 * Seconds between keep-alives afterwards (at most; a third of the token's timeout when shorter):
 * they also keep this peer's NAT mapping to the relay open.
 */
const KEEP_ALIVE_INTERVAL = 1;

export type RendezvousRefusal =
  | 'rendezvousSize'
  | 'rendezvousMac'
  | 'rendezvousReplay'
  | 'rendezvousMalformed';

/**
 * The peer's side of the rendezvous: says hello with its token and local candidates until
 * welcomed, then keeps alive, acknowledging the notices (welcome, introductions, departures) it
 * took; the rendezvous sends each until acknowledged, and they are taken strictly in order.
 */
export class RendezvousClient {
  state: RendezvousState = 'registering';
  /** This peer's address as the rendezvous sees it, once welcomed. */
  reflexive: Address | null = null;
  /** Sends the transport refused (it threw): the datagram was dropped. */
  sendFailures = 0;
  /** Starts at random: a peer rebuilt with the same token must not repeat a nonce under its key. */
  private sequence: number;
  private cookie: Uint8Array = new Uint8Array(COOKIE_BYTES);
  /** Sequence (8) and MAC (16) of the last few hellos and keep-alives. */
  private readonly recent = new Uint8Array(RECENT_REQUESTS * 24);
  private recentAt = 0;
  private hellosSent = 0;
  private firstHello = NO_TIME_YET;
  private readonly lifetime: number;
  private readonly replay = new ReplayProtection();
  /** The notices taken, 1..noticesTaken (numbering starts at 1). */
  private noticesTaken = 0;
  private lastSent = NO_TIME_YET;
  private readonly hello = new Uint8Array(HELLO_BYTES);
  private readonly small = new Uint8Array(KEEP_ALIVE_BYTES);
  private readonly keepAliveInterval: number;

  constructor(
    private readonly token: PeerToken,
    private readonly transport: DatagramTransport,
    private readonly crypto: ChannelCrypto,
    candidates: readonly Address[],
    randomBytes: (length: number) => Uint8Array,
  ) {
    this.sequence = randomFirstSequence(randomBytes);
    this.lifetime = token.expireTimestamp - token.createTimestamp;
    this.keepAliveInterval = Math.min(KEEP_ALIVE_INTERVAL, token.timeoutSeconds / 3);
    writeHello(this.hello, token.expireTimestamp, token.nonce, token.privateData, candidates);
  }

  get address(): Address {
    return this.token.rendezvousAddress;
  }

  get welcomed(): boolean {
    return this.state === 'registered';
  }

  update(now: number): void {
    if (this.state === 'registering') {
      if (this.firstHello === NO_TIME_YET) this.firstHello = now;
      // Past the token's lifetime (and a second for the clocks) the rendezvous can only refuse it.
      if (now - this.firstHello > this.lifetime + 1) this.state = 'expired';
      else if (now - this.lastSent >= this.helloInterval()) this.sendHello(now);
    } else if (this.state === 'registered' && now - this.lastSent >= this.keepAliveInterval)
      this.sendKeepAlive(now);
  }

  private helloInterval(): number {
    return Math.min(MAX_HELLO_INTERVAL, HELLO_INTERVAL * 2 ** Math.max(0, this.hellosSent - 4));
  }

  /** Sends and remembers the request's sequence and MAC; a transport that throws drops it (counted). */
  private sendRequest(out: Uint8Array, seqOffset: number): void {
    const slot = (this.recentAt++ % RECENT_REQUESTS) * 24;
    this.recent.set(out.subarray(seqOffset, seqOffset + 8), slot);
    this.recent.set(out.subarray(out.length - CHANNEL_MAC_BYTES), slot + 8);
    this.send(out);
  }

  private send(out: Uint8Array): void {
    try {
      this.transport.send(this.address, out);
    } catch {
      this.sendFailures++;
    }
  }

  /**
   * A refusal from the rendezvous' address: true when it answers one of this peer's recent
   * requests (then the state changes), false when it does not (forged, stale, malformed).
   */
  refused(data: Uint8Array): boolean {
    if (data.length !== REFUSED_BYTES || this.state === 'refused' || this.state === 'expired') return false;
    let match = false;
    for (let slot = 0; slot < RECENT_REQUESTS * 24 && !match; slot += 24) {
      let diff = 0;
      for (let i = 0; i < 24; i++) diff |= this.recent[slot + i] ^ data[2 + i];
      match = diff === 0 && this.recentAt > slot / 24;
    }
    if (!match) return false;
    const reason = data[1];
    if (reason === RefusalReason.Unknown) {
      if (this.state !== 'registered') return false;
      this.state = 'lost';
    } else if (this.state !== 'registering') return false;
    else if (reason === RefusalReason.TokenUsed) this.state = 'refused';
    else if (reason === RefusalReason.Expired) this.state = 'expired';
    else if (reason !== RefusalReason.Full) return false; // full: it may have room later; keep trying
    return true;
  }

  private sendHello(now: number): void {
    const bodyLength = HELLO_BYTES - HELLO_HEADER_BYTES - CHANNEL_MAC_BYTES;
    // Sealing encrypts the body in place: seal a copy so the plaintext candidates stay for the next hello.
    const out = this.hello.slice();
    this.crypto.seal(
      out,
      HELLO_HEADER_BYTES - 8,
      HELLO_HEADER_BYTES,
      bodyLength,
      this.sequence++,
      this.token.peerToRendezvousKey,
    );
    this.sendRequest(out, HELLO_HEADER_BYTES - 8);
    this.hellosSent++;
    this.lastSent = now;
  }

  /** Acknowledges the notices taken so far; also answered with any the rendezvous still holds. */
  sendKeepAlive(now: number): void {
    const out = this.small;
    out[0] = RendezvousKind.KeepAlive;
    writeU32(out, CHANNEL_HEADER_BYTES, this.noticesTaken);
    out.set(this.cookie, CHANNEL_HEADER_BYTES + 4);
    const length = this.crypto.seal(
      out,
      1,
      CHANNEL_HEADER_BYTES,
      4 + COOKIE_BYTES,
      this.sequence++,
      this.token.peerToRendezvousKey,
    );
    this.sendRequest(out.subarray(0, length), 1);
    this.lastSent = now;
  }

  /** Frames the peer packet at out[RELAY_INNER_OFFSET, +innerLength) for the relay and sends it. */
  relay(out: Uint8Array, target: number, innerLength: number): void {
    const length = sealRelayFrame(
      this.crypto,
      out,
      target,
      innerLength,
      this.sequence++,
      this.token.peerToRendezvousKey,
    );
    this.send(out.subarray(0, length));
  }

  bye(): void {
    const out = this.small;
    out[0] = RendezvousKind.Bye;
    const length = this.crypto.seal(
      out,
      1,
      CHANNEL_HEADER_BYTES,
      0,
      this.sequence++,
      this.token.peerToRendezvousKey,
    );
    this.send(out.subarray(0, length));
  }

  /**
   * A datagram from the rendezvous' address with a notice kind: the next notice in order, null for
   * one already taken or ahead of a missing one (it comes again), or the reason it was refused.
   */
  take(data: Uint8Array): Notice | null | RendezvousRefusal {
    if (
      data.length < CHANNEL_HEADER_BYTES + 6 + CHANNEL_MAC_BYTES ||
      data.length > CHANNEL_HEADER_BYTES + MAX_NOTICE_BODY_BYTES + CHANNEL_MAC_BYTES
    )
      return 'rendezvousSize';
    const sequence = readU64(data, 1);
    if (this.replay.alreadyReceived(sequence)) return 'rendezvousReplay';
    if (!this.crypto.open(data, 1, CHANNEL_HEADER_BYTES, this.token.rendezvousToPeerKey))
      return 'rendezvousMac';
    this.replay.advance(sequence);
    const notice = readNotice(data);
    if (notice === null) return 'rendezvousMalformed';
    if (notice.number !== this.noticesTaken + 1) return null;
    this.noticesTaken = notice.number;
    if (notice.kind === 1) {
      if (this.state === 'registering') this.state = 'registered';
      this.reflexive = notice.reflexive;
      this.cookie = notice.cookie;
    }
    return notice;
  }
}
