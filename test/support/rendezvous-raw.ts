import { defaultAead } from '../../src/connection/aead.js';
import { writeU32 } from '../../src/connection/bytes.js';
import { type PeerToken, readPeerToken } from '../../src/lockstep/links/peer-token.js';
import {
  CHANNEL_HEADER_BYTES,
  CHANNEL_MAC_BYTES,
  ChannelCrypto,
  COOKIE_BYTES,
  HELLO_BYTES,
  HELLO_HEADER_BYTES,
  KEEP_ALIVE_BYTES,
  NoticeKind,
  RendezvousKind,
  readNotice,
  writeHello,
} from '../../src/lockstep/links/rendezvous-wire.js';
import { type Address, parseAddress } from '../../src/transport/address.js';
import type { DatagramTransport } from '../../src/transport/transport.js';

/**
 * A peer that speaks to the rendezvous by hand, as a misbehaving one could: hellos with any
 * candidates, keep-alives acknowledging anything, never reading what it is sent.
 */
export class RawRendezvousPeer {
  readonly token: PeerToken;
  private readonly crypto = new ChannelCrypto(defaultAead());
  sequence = 1;
  sentBytes = 0;
  /** The welcome's cookie once `prove` read it (zero before: keep-alives then prove nothing). */
  cookie: Uint8Array = new Uint8Array(COOKIE_BYTES);

  constructor(
    token: Uint8Array,
    readonly transport: DatagramTransport,
  ) {
    const read = readPeerToken(token);
    if (!read.ok) throw new Error(read.reason);
    this.token = read.token;
  }

  hello(candidates: readonly Address[] = []): Uint8Array {
    const out = new Uint8Array(HELLO_BYTES);
    const t = this.token;
    writeHello(out, t.expireTimestamp, t.nonce, t.privateData, candidates);
    this.crypto.seal(
      out,
      HELLO_HEADER_BYTES - 8,
      HELLO_HEADER_BYTES,
      HELLO_BYTES - HELLO_HEADER_BYTES - CHANNEL_MAC_BYTES,
      this.sequence++,
      t.peerToRendezvousKey,
    );
    this.send(out);
    return out;
  }

  keepAlive(acked: number): void {
    const out = new Uint8Array(KEEP_ALIVE_BYTES);
    out[0] = RendezvousKind.KeepAlive;
    writeU32(out, CHANNEL_HEADER_BYTES, acked);
    out.set(this.cookie, CHANNEL_HEADER_BYTES + 4);
    const body = KEEP_ALIVE_BYTES - CHANNEL_HEADER_BYTES - CHANNEL_MAC_BYTES;
    this.crypto.seal(out, 1, CHANNEL_HEADER_BYTES, body, this.sequence++, this.token.peerToRendezvousKey);
    this.send(out);
  }

  bye(): void {
    const out = new Uint8Array(CHANNEL_HEADER_BYTES + CHANNEL_MAC_BYTES);
    out[0] = RendezvousKind.Bye;
    this.crypto.seal(out, 1, CHANNEL_HEADER_BYTES, 0, this.sequence++, this.token.peerToRendezvousKey);
    this.send(out);
  }

  /**
   * Reads what waits for it (the rest is discarded) and, once a welcome came, echoes its cookie in
   * a keep-alive acknowledging nothing: the peer proves it receives at its address. True when it did.
   */
  prove(): boolean {
    let welcomed = false;
    this.transport.receive((from, data) => {
      if (from !== this.token.rendezvousAddress || data[0] !== RendezvousKind.Notice) return;
      const copy = Uint8Array.from(data);
      if (!this.crypto.open(copy, 1, CHANNEL_HEADER_BYTES, this.token.rendezvousToPeerKey)) return;
      const notice = readNotice(copy);
      if (notice?.kind !== NoticeKind.Welcome) return;
      this.cookie = notice.cookie;
      welcomed = true;
    });
    if (welcomed) this.keepAlive(0);
    return welcomed;
  }

  send(data: Uint8Array): void {
    this.sentBytes += data.length;
    this.transport.send(this.token.rendezvousAddress, data);
  }

  /** Bytes waiting for it from the rendezvous (read and discarded, as everything else waiting). */
  drainBytes(): number {
    let bytes = 0;
    this.transport.receive((from, data) => {
      if (from === this.token.rendezvousAddress) bytes += data.length;
    });
    return bytes;
  }
}

/** A transport that refuses, as a UDP socket does, to send to port 0 or to the other address family. */
export function strictFamily(inner: DatagramTransport): DatagramTransport {
  const family = parseAddress(inner.localAddress)?.family;
  const strict: DatagramTransport = Object.create(inner);
  strict.send = (to, data) => {
    const parsed = parseAddress(to);
    if (parsed === null || parsed.port === 0 || parsed.family !== family)
      throw new RangeError(`strictFamily: cannot send to ${to}`);
    inner.send(to, data);
  };
  strict.receive = (handler, max) => inner.receive(handler, max);
  strict.update = (now) => inner.update(now);
  return strict;
}
