import type { Aead } from './aead.js';
import { readU32, readU64, writeU32, writeU64 } from './bytes.js';
import {
  CHALLENGE_TOKEN_BYTES,
  CONNECT_TOKEN_NONCE_BYTES,
  CONNECTION_REQUEST_BYTES,
  MAC_BYTES,
  MAX_PAYLOAD_BYTES,
  PacketType,
  VERSION_INFO,
  VERSION_INFO_BYTES,
} from './constants.js';
import type { ReplayProtection } from './replay-protection.js';

/**
 * netcode 1.02 packets. The connection request travels in the clear (its token is sealed for
 * the server); every other packet is
 *
 *   prefix u8 (type | sequence bytes << 4) | sequence, LE, 1..8 bytes | body, sealed | MAC 16
 *
 * with ChaCha20-Poly1305, nonce u32 0 || sequence u64 LE, associated data
 * version_info || protocol_id u64 LE || prefix.
 */

/** Fields of a packet read; one reused object, so reading allocates nothing. */
export interface PacketView {
  type: number;
  /** The sequence, exact below 2^53 (its two 32-bit halves are exact always). */
  sequence: number;
  sequenceLow: number;
  sequenceHigh: number;
  /** Challenge and response: the challenge token's sequence and where its 300 bytes are. */
  challengeSequence: number;
  challengeTokenOffset: number;
  /** Keep-alive. */
  clientIndex: number;
  maxClients: number;
  /** Payload: where the payload bytes are (inside the decrypted input). */
  payloadOffset: number;
  payloadLength: number;
  /** Why the last read failed. */
  reason: string;
}

export function packetView(): PacketView {
  return {
    type: 0,
    sequence: 0,
    sequenceLow: 0,
    sequenceHigh: 0,
    challengeSequence: 0,
    challengeTokenOffset: 0,
    clientIndex: 0,
    maxClients: 0,
    payloadOffset: 0,
    payloadLength: 0,
    reason: '',
  };
}

/** Allowed-type masks for reading. */
export const typeMask = (...types: PacketType[]): number =>
  types.reduce<number>((mask, t) => mask | (1 << t), 0);

/** Body length each encrypted type must have (-1: payload, 1..1200). */
const BODY_BYTES = [-2, 0, 8 + CHALLENGE_TOKEN_BYTES, 8 + CHALLENGE_TOKEN_BYTES, 8, -1, 0];

/** Bytes of the minimal little-endian encoding of a u64 sequence, 1..8 (0 takes one byte). */
function sequenceBytes(sequence: number | bigint): number {
  let bytes = 1;
  if (typeof sequence === 'bigint') {
    for (let v = sequence >> 8n; v > 0n; v >>= 8n) bytes++;
  } else {
    for (let v = Math.floor(sequence / 256); v > 0; v = Math.floor(v / 256)) bytes++;
  }
  return bytes;
}

export class PacketCodec {
  private readonly ad = new Uint8Array(VERSION_INFO_BYTES + 8 + 1);
  private readonly nonce = new Uint8Array(12);

  constructor(
    readonly protocolId: bigint,
    readonly aead: Aead,
  ) {
    this.ad.set(VERSION_INFO, 0);
    writeU64(this.ad, VERSION_INFO_BYTES, protocolId);
  }

  /** The 1078-byte connection request carrying a token's sealed private part. */
  writeConnectionRequest(
    out: Uint8Array,
    expireTimestamp: number,
    tokenNonce: Uint8Array,
    privateData: Uint8Array,
  ): number {
    out[0] = PacketType.ConnectionRequest;
    out.set(VERSION_INFO, 1);
    writeU64(out, 1 + VERSION_INFO_BYTES, this.protocolId);
    writeU64(out, 1 + VERSION_INFO_BYTES + 8, expireTimestamp);
    out.set(tokenNonce, 1 + VERSION_INFO_BYTES + 16);
    out.set(privateData, 1 + VERSION_INFO_BYTES + 16 + CONNECT_TOKEN_NONCE_BYTES);
    return CONNECTION_REQUEST_BYTES;
  }

  /**
   * Checks a connection request's framing (length, version, protocol id); returns the offset of
   * its expire timestamp, or -1. The server then checks expiry and opens the private part.
   */
  readConnectionRequest(data: Uint8Array, length: number): number {
    if (length !== CONNECTION_REQUEST_BYTES || data[0] !== PacketType.ConnectionRequest) return -1;
    for (let i = 0; i < VERSION_INFO_BYTES; i++) if (data[1 + i] !== VERSION_INFO[i]) return -1;
    const protocol = 1 + VERSION_INFO_BYTES;
    for (let i = 0; i < 8; i++) if (data[protocol + i] !== this.ad[VERSION_INFO_BYTES + i]) return -1;
    return protocol + 8;
  }

  /** Starts an encrypted packet: writes prefix and sequence, returns the body's offset. */
  private begin(out: Uint8Array, type: PacketType, sequence: number | bigint): number {
    const bytes = sequenceBytes(sequence);
    out[0] = type | (bytes << 4);
    if (typeof sequence === 'bigint') {
      for (let i = 0; i < bytes; i++) out[1 + i] = Number((sequence >> BigInt(8 * i)) & 0xffn);
    } else {
      let v = sequence;
      for (let i = 0; i < bytes; i++) {
        out[1 + i] = v % 256;
        v = Math.floor(v / 256);
      }
    }
    return 1 + bytes;
  }

  /** Seals the body at out[bodyOffset, + bodyBytes) and returns the packet's length. */
  private seal(out: Uint8Array, bodyOffset: number, bodyBytes: number, key: Uint8Array): number {
    this.ad[VERSION_INFO_BYTES + 8] = out[0];
    const nonce = this.nonce;
    nonce.fill(0);
    for (let i = 1; i < bodyOffset; i++) nonce[4 + i - 1] = out[i];
    this.aead.encrypt(out, bodyOffset, bodyBytes, this.ad, nonce, key);
    return bodyOffset + bodyBytes + MAC_BYTES;
  }

  writeDenied(out: Uint8Array, sequence: number | bigint, key: Uint8Array): number {
    return this.seal(out, this.begin(out, PacketType.ConnectionDenied, sequence), 0, key);
  }

  writeDisconnect(out: Uint8Array, sequence: number | bigint, key: Uint8Array): number {
    return this.seal(out, this.begin(out, PacketType.Disconnect, sequence), 0, key);
  }

  /** Challenge (server) or response (client): the challenge sequence and the sealed 300-byte token. */
  writeChallengeOrResponse(
    out: Uint8Array,
    type: typeof PacketType.ConnectionChallenge | typeof PacketType.ConnectionResponse,
    sequence: number | bigint,
    key: Uint8Array,
    challengeSequence: number | bigint,
    challengeToken: Uint8Array,
    challengeTokenOffset = 0,
  ): number {
    const body = this.begin(out, type, sequence);
    writeU64(out, body, challengeSequence);
    out.set(
      challengeToken.subarray(challengeTokenOffset, challengeTokenOffset + CHALLENGE_TOKEN_BYTES),
      body + 8,
    );
    return this.seal(out, body, 8 + CHALLENGE_TOKEN_BYTES, key);
  }

  writeKeepAlive(
    out: Uint8Array,
    sequence: number | bigint,
    key: Uint8Array,
    clientIndex: number,
    maxClients: number,
  ): number {
    const body = this.begin(out, PacketType.KeepAlive, sequence);
    writeU32(out, body, clientIndex);
    writeU32(out, body + 4, maxClients);
    return this.seal(out, body, 8, key);
  }

  /** A payload of 1..1200 bytes; a size outside that throws. */
  writePayload(
    out: Uint8Array,
    sequence: number | bigint,
    key: Uint8Array,
    payload: Uint8Array,
    offset = 0,
    length = payload.length - offset,
  ): number {
    if (!(length >= 1 && length <= MAX_PAYLOAD_BYTES)) {
      throw new RangeError(`netcode payload must be 1..${MAX_PAYLOAD_BYTES} bytes, got ${length}`);
    }
    const body = this.begin(out, PacketType.Payload, sequence);
    out.set(
      length === payload.length && offset === 0 ? payload : payload.subarray(offset, offset + length),
      body,
    );
    return this.seal(out, body, length, key);
  }

  /**
   * Reads an encrypted packet of one of the `allowed` types (see typeMask) at data[0, length),
   * decrypting it in place. Everything cheap (type, sequence size, body length) is checked before
   * any decryption. Returns false with `view.reason` set; never throws.
   */
  readEncrypted(
    data: Uint8Array,
    length: number,
    key: Uint8Array,
    allowed: number,
    view: PacketView,
    replay?: ReplayProtection,
  ): boolean {
    if (length < 1) return this.reject(view, 'empty packet');
    const prefix = data[0];
    const type = prefix & 0xf;
    const bytes = prefix >>> 4;
    if (type === 0 || type > PacketType.Disconnect) return this.reject(view, 'invalid packet type');
    if ((allowed & (1 << type)) === 0) return this.reject(view, 'packet type not expected here');
    if (bytes < 1 || bytes > 8) return this.reject(view, 'invalid sequence size');
    const bodyOffset = 1 + bytes;
    const bodyBytes = length - bodyOffset - MAC_BYTES;
    const expected = BODY_BYTES[type];
    if (expected === -1 ? !(bodyBytes >= 1 && bodyBytes <= MAX_PAYLOAD_BYTES) : bodyBytes !== expected) {
      return this.reject(view, 'wrong packet size for its type');
    }
    let low = 0;
    let high = 0;
    for (let i = 0; i < bytes; i++) {
      if (i < 4) low += data[1 + i] * 2 ** (8 * i);
      else high += data[1 + i] * 2 ** (8 * (i - 4));
    }
    const sequence = high * 0x100000000 + low;
    // Keep-alive, payload and disconnect are replay-protected: a repeat costs no decryption, and
    // the window only moves for packets that authenticate.
    const protectedType = type >= PacketType.KeepAlive;
    if (replay !== undefined && protectedType && replay.alreadyReceived(sequence)) {
      return this.reject(view, 'replayed packet');
    }
    const nonce = this.nonce;
    nonce.fill(0);
    for (let i = 0; i < bytes; i++) nonce[4 + i] = data[1 + i];
    this.ad[VERSION_INFO_BYTES + 8] = prefix;
    if (!this.aead.decrypt(data, bodyOffset, bodyBytes + MAC_BYTES, this.ad, nonce, key)) {
      return this.reject(view, 'packet failed authentication');
    }
    if (replay !== undefined && protectedType) replay.advance(sequence);
    view.type = type;
    view.sequenceLow = low;
    view.sequenceHigh = high;
    view.sequence = sequence;
    if (type === PacketType.ConnectionChallenge || type === PacketType.ConnectionResponse) {
      view.challengeSequence = readU64(data, bodyOffset);
      view.challengeTokenOffset = bodyOffset + 8;
    } else if (type === PacketType.KeepAlive) {
      view.clientIndex = readU32(data, bodyOffset);
      view.maxClients = readU32(data, bodyOffset + 4);
    } else if (type === PacketType.Payload) {
      view.payloadOffset = bodyOffset;
      view.payloadLength = bodyBytes;
    }
    view.reason = '';
    return true;
  }

  private reject(view: PacketView, reason: string): false {
    view.reason = reason;
    return false;
  }
}
