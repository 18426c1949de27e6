import { readNetcodeAddress, writeNetcodeAddress } from '../../connection/address-codec.js';
import type { Aead } from '../../connection/aead.js';
import { readU32, readU64, writeU32 } from '../../connection/bytes.js';
import { type Address, parseAddress } from '../../transport/address.js';
import { writeSequence } from './peer-packet.js';
import { copyOf, PEER_TOKEN_NONCE_BYTES, PEER_TOKEN_PRIVATE_BYTES } from './peer-token.js';

/**
 * Datagrams between a peer and the rendezvous, sealed under the token's per-direction keys
 * (ChaCha20-Poly1305, nonce = sequence u64 · 4 zero bytes, AD = the cleartext header). The keys
 * are random per token, so a header needs no session or peer fields: the key is the binding.
 *
 *   hello      0x20 · expire u64 · nonce (24) · private part (128) · seq u64 · [candidates] · MAC
 *   keep-alive 0x21 · seq u64 · [acked notice u32 · cookie (8)] · MAC
 *   relay      0x22 · seq u64 · target u8 · peer packet · MAC (authenticates all, encrypts nothing)
 *   bye        0x23 · seq u64 · MAC
 *   refused    0x24 · reason u8 · the refused request's seq u64 and MAC (16)  (rendezvous → peer)
 *   notice     0x30 · seq u64 · [number u32 · kind u8 · fields] · MAC      (rendezvous → peer)
 * Peer packets (0x10..0x14) relayed to a peer come from the rendezvous' address unchanged.
 * Both ends start their sequences at a random point (below 2^48), so a token used again (a peer
 * rebuilt with the same token, a rendezvous restarted) does not repeat a nonce under its keys.
 */
export const RendezvousKind = {
  Hello: 0x20,
  KeepAlive: 0x21,
  Relay: 0x22,
  Bye: 0x23,
  Refused: 0x24,
  Notice: 0x30,
} as const;

/**
 * Why the rendezvous refused a hello or keep-alive. The refusal echoes the request's sequence and
 * MAC, which only the sender and whoever is on its path saw, so nobody else can forge one; it is
 * shorter than any request, so it amplifies nothing.
 */
export const RefusalReason = { Unknown: 1, TokenUsed: 2, Expired: 3, Full: 4 } as const;
export const REFUSED_BYTES = 1 + 1 + 8 + 16;
/** The welcome's random cookie, echoed in keep-alives to prove the peer receives at its address. */
export const COOKIE_BYTES = 8;

export const CHANNEL_HEADER_BYTES = 9;
export const CHANNEL_MAC_BYTES = 16;
/** Local addresses a peer may report in its hello. */
export const MAX_LOCAL_CANDIDATES = 4;
/** Addresses an introduction carries: the reflexive one and the reported ones. */
export const MAX_CANDIDATES = MAX_LOCAL_CANDIDATES + 1;
const ADDRESS_BYTES = 19;
export const HELLO_HEADER_BYTES = 1 + 8 + PEER_TOKEN_NONCE_BYTES + PEER_TOKEN_PRIVATE_BYTES + 8;
const HELLO_BODY_BYTES = 80;
/**
 * Hellos are all this long. Until a peer echoes its welcome's cookie, the rendezvous sends its
 * address no more bytes than it received from there, so a hello with a spoofed source (even one
 * with a valid token) is not amplified; afterwards it sends notices on a timer, never in answer
 * to each datagram.
 */
export const HELLO_BYTES = HELLO_HEADER_BYTES + HELLO_BODY_BYTES + CHANNEL_MAC_BYTES;
export const KEEP_ALIVE_BYTES = CHANNEL_HEADER_BYTES + 4 + COOKIE_BYTES + CHANNEL_MAC_BYTES;
export const BYE_BYTES = CHANNEL_HEADER_BYTES + CHANNEL_MAC_BYTES;
export const RELAY_HEADER_BYTES = CHANNEL_HEADER_BYTES + 1;
export const RELAY_OVERHEAD_BYTES = RELAY_HEADER_BYTES + CHANNEL_MAC_BYTES;
export const MAX_NOTICE_BODY_BYTES = 4 + 1 + 1 + 32 + 1 + MAX_CANDIDATES * ADDRESS_BYTES;

export const NoticeKind = { Welcome: 1, Introduce: 2, Gone: 3 } as const;
export const GoneReason = { Left: 0, TimedOut: 1 } as const;

/** A notice as the peer reads it. */
export type Notice =
  | { kind: 1; number: number; reflexive: Address; cookie: Uint8Array }
  | { kind: 2; number: number; peer: number; pairKey: Uint8Array; candidates: Address[] }
  | { kind: 3; number: number; peer: number; reason: 0 | 1 };

/** Seals and opens channel datagrams; keeps its nonce scratch. */
export class ChannelCrypto {
  private readonly nonce = new Uint8Array(12);

  constructor(private readonly aead: Aead) {}

  /**
   * Writes `sequence` at out[seqOffset..+8) and seals out[bodyStart, +bodyLength) with
   * out[0, bodyStart) as AD; returns the datagram's length (the MAC follows the body).
   */
  seal(
    out: Uint8Array,
    seqOffset: number,
    bodyStart: number,
    bodyLength: number,
    sequence: number,
    key: Uint8Array,
  ): number {
    writeSequence(out, seqOffset, sequence);
    writeSequence(this.nonce, 0, sequence);
    this.aead.encrypt(out, bodyStart, bodyLength, out.subarray(0, bodyStart), this.nonce, key);
    return bodyStart + bodyLength + CHANNEL_MAC_BYTES;
  }

  /** Verifies and decrypts in place data[bodyStart..) (MAC last) under `key`; false when it does not verify. */
  open(data: Uint8Array, seqOffset: number, bodyStart: number, key: Uint8Array): boolean {
    if (data.length < bodyStart + CHANNEL_MAC_BYTES) return false;
    const sequence = readU64(data, seqOffset);
    if (!(sequence < 2 ** 53)) return false;
    writeSequence(this.nonce, 0, sequence);
    return this.aead.decrypt(
      data,
      bodyStart,
      data.length - bodyStart,
      data.subarray(0, bodyStart),
      this.nonce,
      key,
    );
  }
}

/** A random first sequence in [0, 2^48): far below the 2^53 a sequence may reach. */
export function randomFirstSequence(randomBytes: (length: number) => Uint8Array): number {
  const b = randomBytes(6);
  return b[0] + b[1] * 2 ** 8 + b[2] * 2 ** 16 + b[3] * 2 ** 24 + b[4] * 2 ** 32 + b[5] * 2 ** 40;
}

/**
 * Candidates worth sending to: of `family` (a socket of the other family cannot reach them) and
 * not port 0 (no socket can), at most `max` of them. Anything else would only make sends throw.
 */
export function usableCandidates(
  candidates: readonly Address[],
  family: 4 | 6 | null,
  max: number,
): Address[] {
  const usable: Address[] = [];
  for (const candidate of candidates) {
    const parsed = parseAddress(candidate);
    if (parsed === null || parsed.port === 0 || (family !== null && parsed.family !== family)) continue;
    if (usable.length < max && !usable.includes(candidate)) usable.push(candidate);
  }
  return usable;
}

/** Writes a hello's cleartext token fields and its candidate body (unsealed) into `out` (HELLO_BYTES). */
export function writeHello(
  out: Uint8Array,
  expireTimestamp: number,
  nonce: Uint8Array,
  privateData: Uint8Array,
  candidates: readonly Address[],
): void {
  out.fill(0);
  out[0] = RendezvousKind.Hello;
  writeSequence(out, 1, expireTimestamp);
  out.set(nonce, 9);
  out.set(privateData, 9 + PEER_TOKEN_NONCE_BYTES);
  out[HELLO_HEADER_BYTES] = candidates.length;
  let o = HELLO_HEADER_BYTES + 1;
  for (const address of candidates) o += writeNetcodeAddress(out, o, address);
}

/** The token fields of a hello whose length was checked (views into `data`). */
export function helloToken(data: Uint8Array): {
  expireTimestamp: number;
  nonce: Uint8Array;
  privateData: Uint8Array;
} {
  return {
    expireTimestamp: readU64(data, 1),
    nonce: data.subarray(9, 9 + PEER_TOKEN_NONCE_BYTES),
    privateData: data.subarray(
      9 + PEER_TOKEN_NONCE_BYTES,
      9 + PEER_TOKEN_NONCE_BYTES + PEER_TOKEN_PRIVATE_BYTES,
    ),
  };
}

/** The candidates of an opened hello's body; null when malformed. */
export function helloCandidates(data: Uint8Array): Address[] | null {
  const count = data[HELLO_HEADER_BYTES];
  if (count > MAX_LOCAL_CANDIDATES) return null;
  const end = HELLO_HEADER_BYTES + HELLO_BODY_BYTES;
  const candidates: Address[] = [];
  let o = HELLO_HEADER_BYTES + 1;
  for (let i = 0; i < count; i++) {
    const read = readNetcodeAddress(data, o, end);
    if (read === null) return null;
    candidates.push(read.address);
    o += read.bytes;
  }
  return candidates;
}

/** Writes a notice's body at out[CHANNEL_HEADER_BYTES..); returns the body's length. */
export function writeNotice(out: Uint8Array, notice: Notice): number {
  const o = CHANNEL_HEADER_BYTES;
  out[0] = RendezvousKind.Notice;
  writeU32(out, o, notice.number);
  out[o + 4] = notice.kind;
  if (notice.kind === NoticeKind.Welcome) {
    const length = 5 + writeNetcodeAddress(out, o + 5, notice.reflexive);
    out.set(notice.cookie, o + length);
    return length + COOKIE_BYTES;
  }
  out[o + 5] = notice.peer;
  if (notice.kind === NoticeKind.Gone) {
    out[o + 6] = notice.reason;
    return 7;
  }
  out.set(notice.pairKey, o + 6);
  out[o + 38] = notice.candidates.length;
  let length = 39;
  for (const address of notice.candidates) length += writeNetcodeAddress(out, o + length, address);
  return length;
}

/** Reads an opened notice (data = header · body · MAC); null when malformed. */
export function readNotice(data: Uint8Array): Notice | null {
  const o = CHANNEL_HEADER_BYTES;
  const end = data.length - CHANNEL_MAC_BYTES;
  if (end - o < 6) return null;
  const number = readU32(data, o);
  const kind = data[o + 4];
  if (kind === NoticeKind.Welcome) {
    const read = readNetcodeAddress(data, o + 5, end);
    const at = o + 5 + (read?.bytes ?? 0);
    if (read === null || end - at < COOKIE_BYTES) return null;
    return { kind, number, reflexive: read.address, cookie: copyOf(data, at, at + COOKIE_BYTES) };
  }
  const peer = data[o + 5];
  if (kind === NoticeKind.Gone) {
    const reason = data[o + 6];
    return end - o >= 7 && (reason === 0 || reason === 1) ? { kind, number, peer, reason } : null;
  }
  if (kind !== NoticeKind.Introduce || end - o < 39) return null;
  const count = data[o + 38];
  if (count < 1 || count > MAX_CANDIDATES) return null;
  const candidates: Address[] = [];
  let at = o + 39;
  for (let i = 0; i < count; i++) {
    const read = readNetcodeAddress(data, at, end);
    if (read === null) return null;
    candidates.push(read.address);
    at += read.bytes;
  }
  return { kind, number, peer, pairKey: copyOf(data, o + 6, o + 38), candidates };
}
