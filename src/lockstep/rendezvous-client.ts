import { readU64, writeU32 } from '../connection/bytes.js';
import { ReplayProtection } from '../connection/replay-protection.js';
import { NO_TIME_YET } from '../time/check-time.js';
import type { Address } from '../transport/address.js';
import type { DatagramTransport } from '../transport/transport.js';
import type { PeerToken } from './peer-token.js';
import { sealRelayFrame } from './relay-frame.js';
import {
  CHANNEL_HEADER_BYTES,
  CHANNEL_MAC_BYTES,
  type ChannelCrypto,
  HELLO_BYTES,
  HELLO_HEADER_BYTES,
  KEEP_ALIVE_BYTES,
  MAX_NOTICE_BODY_BYTES,
  type Notice,
  RendezvousKind,
  readNotice,
  writeHello,
} from './rendezvous-wire.js';

/** Seconds between hellos until the rendezvous welcomes this peer. */
const HELLO_INTERVAL = 0.25;
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
  welcomed = false;
  /** This peer's address as the rendezvous sees it, once welcomed. */
  reflexive: Address | null = null;
  private sequence = 0;
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
  ) {
    this.keepAliveInterval = Math.min(KEEP_ALIVE_INTERVAL, token.timeoutSeconds / 3);
    writeHello(this.hello, token.expireTimestamp, token.nonce, token.privateData, candidates);
  }

  get address(): Address {
    return this.token.rendezvousAddress;
  }

  update(now: number): void {
    if (!this.welcomed) {
      if (now - this.lastSent >= HELLO_INTERVAL) this.sendHello(now);
    } else if (now - this.lastSent >= this.keepAliveInterval) this.sendKeepAlive(now);
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
    this.transport.send(this.address, out);
    this.lastSent = now;
  }

  /** Acknowledges the notices taken so far; also answered with any the rendezvous still holds. */
  sendKeepAlive(now: number): void {
    const out = this.small;
    out[0] = RendezvousKind.KeepAlive;
    writeU32(out, CHANNEL_HEADER_BYTES, this.noticesTaken);
    const length = this.crypto.seal(
      out,
      1,
      CHANNEL_HEADER_BYTES,
      4,
      this.sequence++,
      this.token.peerToRendezvousKey,
    );
    this.transport.send(this.address, out.subarray(0, length));
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
    this.transport.send(this.address, out.subarray(0, length));
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
    this.transport.send(this.address, out.subarray(0, length));
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
      this.welcomed = true;
      this.reflexive = notice.reflexive;
    }
    return notice;
  }
}
