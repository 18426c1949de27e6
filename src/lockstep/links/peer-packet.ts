import type { Aead } from '../../connection/aead.js';
import { readU64, writeU32, writeU64 } from '../../connection/bytes.js';

/**
 * The peer-to-peer datagram: kind u8 · sender u8 · receiver u8 · sequence u64 LE · ciphertext · MAC.
 * Sealed with ChaCha20-Poly1305 under the pair's key, nonce sequence u64 · sender · receiver · 0 · 0
 * (the pair's two directions differ in sender, so they never share a nonce under the key) and
 * associated data protocolId u64 · sessionId u64 · kind · sender · receiver, so a packet cannot
 * be moved to another protocol, session, pair, direction or kind without failing its MAC.
 */
export const PeerPacketKind = {
  /** Opens NAT mappings; sent to every candidate of the other peer. Empty. */
  Punch: 0x10,
  /** The answer to a punch, to the address it came from. Empty. */
  PunchReply: 0x11,
  Data: 0x12,
  KeepAlive: 0x13,
  Goodbye: 0x14,
} as const;

export const PEER_HEADER_BYTES = 11;
export const PEER_MAC_BYTES = 16;
export const PEER_OVERHEAD_BYTES = PEER_HEADER_BYTES + PEER_MAC_BYTES;
/** The largest payload a peer packet carries: every datagram, relayed too, stays within 1280 bytes. */
export const MAX_PEER_PAYLOAD_BYTES = 1200;
export const MAX_PEER_PACKET_BYTES = MAX_PEER_PAYLOAD_BYTES + PEER_OVERHEAD_BYTES;

/** True when `kind` is a peer-to-peer packet kind (the rest of the first-byte space is the rendezvous'). */
export function isPeerPacketKind(kind: number): boolean {
  return kind >= PeerPacketKind.Punch && kind <= PeerPacketKind.Goodbye;
}

/** Writes a sequence (a safe integer) as u64 LE without going through a bigint. */
export function writeSequence(out: Uint8Array, offset: number, sequence: number): void {
  writeU32(out, offset, sequence >>> 0);
  writeU32(out, offset + 4, Math.floor(sequence / 0x1_0000_0000) >>> 0);
}

/** The sequence of a peer packet whose length was checked. */
export function peerPacketSequence(data: Uint8Array): number {
  return readU64(data, 3);
}

/** Seals and opens peer packets of one session; keeps its nonce and AD scratch (no allocation per packet). */
export class PeerPacketCrypto {
  private readonly nonce = new Uint8Array(12);
  private readonly ad = new Uint8Array(19);

  constructor(
    private readonly aead: Aead,
    protocolId: bigint,
    sessionId: bigint,
  ) {
    writeU64(this.ad, 0, protocolId);
    writeU64(this.ad, 8, sessionId);
  }

  private prepare(kind: number, sender: number, receiver: number, sequence: number): void {
    writeSequence(this.nonce, 0, sequence);
    this.nonce[8] = sender;
    this.nonce[9] = receiver;
    this.ad[16] = kind;
    this.ad[17] = sender;
    this.ad[18] = receiver;
  }

  /**
   * Writes a sealed packet at out[offset..) carrying `payload` (may be empty); returns its length.
   * `out` must have room for the payload and PEER_OVERHEAD_BYTES.
   */
  seal(
    out: Uint8Array,
    offset: number,
    kind: number,
    sender: number,
    receiver: number,
    sequence: number,
    payload: Uint8Array | null,
    key: Uint8Array,
  ): number {
    const length = payload === null ? 0 : payload.length;
    out[offset] = kind;
    out[offset + 1] = sender;
    out[offset + 2] = receiver;
    writeSequence(out, offset + 3, sequence);
    if (payload !== null) out.set(payload, offset + PEER_HEADER_BYTES);
    this.prepare(kind, sender, receiver, sequence);
    this.aead.encrypt(out, offset + PEER_HEADER_BYTES, length, this.ad, this.nonce, key);
    return length + PEER_OVERHEAD_BYTES;
  }

  /**
   * Verifies and decrypts in place a packet whose header was read (length in
   * [PEER_OVERHEAD_BYTES, MAX_PEER_PACKET_BYTES]); false when it does not verify under `key`.
   */
  open(data: Uint8Array, key: Uint8Array): boolean {
    // A sequence past 2^53 reads inexactly here; replay protection refuses it anyway.
    this.prepare(data[0], data[1], data[2], readU64(data, 3));
    return this.aead.decrypt(
      data,
      PEER_HEADER_BYTES,
      data.length - PEER_HEADER_BYTES,
      this.ad,
      this.nonce,
      key,
    );
  }
}
