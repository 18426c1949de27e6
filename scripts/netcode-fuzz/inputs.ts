/** The netcode fuzz's inputs: mutation operators, handshake replays, forged and half-open requests. */

import { writeU32, writeU64 } from '../../src/connection/bytes.js';
import { readConnectToken } from '../../src/connection/connect-token.js';
import {
  CONNECTION_REQUEST_BYTES,
  MAC_BYTES,
  MAX_PACKET_BYTES,
  MAX_PAYLOAD_BYTES,
  PacketType,
  VERSION_INFO,
  VERSION_INFO_BYTES,
} from '../../src/connection/constants.js';
import { writePacketHeader } from '../../src/packet/header.js';
import { randomInt } from '../../src/random/prng.js';
import { type Address, toAddress } from '../../src/transport/index.js';
import { sameBytes } from '../fuzz-core.js';
import { fillRandom } from '../packet-fuzz-core.js';
import { NetcodeFuzzAccounting } from './accounting.js';
import {
  ATTACKERS,
  BODY_BYTES,
  CAPTURE_SLOTS,
  type ClientInternals,
  COMPANIONS,
  GENERATED,
  MAX_PENDING_RESPONSES,
  MUTATED,
  OP_CONTROL,
  OP_FRAMED,
  OP_GENERIC,
  OP_HANDSHAKE,
  OP_LENGTH,
  OP_MAC,
  OP_RANDOM,
  OP_REPLAY,
  OP_REQUEST,
  OP_SEQUENCE,
  OP_SEQUENCE_SIZE,
  OP_SPLICE,
  OP_TYPE,
  OTHER_PROTOCOL_ID,
  PROTOCOL_ID,
  RANDOM,
  READER_CLIENT_PEER,
  READER_CLIENT_SPOOFED,
  READER_SERVER_PEER,
  READER_SERVER_SPOOFED,
  REAL_ADDRESS,
  RECORD_RING,
  REPLAY,
  ROLE_SERVER,
  SERVER_ADDRESS,
  SPOOF_POOL,
} from './options.js';

/** Inputs: random, mutated and replayed datagrams, handshake replays, forged and half-open requests. */
export abstract class NetcodeFuzzInputs extends NetcodeFuzzAccounting {
  // -------------------------------------------------------------------------------------------
  // Inputs
  // -------------------------------------------------------------------------------------------

  /** Queues `bytes` at `to` as if from `from` (any address: the network delivers what it is given). */
  protected inject(
    from: Address,
    to: Address,
    bytes: Uint8Array,
    kind: number,
    baseType: number,
    reader: number,
  ): void {
    const report = this.report;
    const tag = report.iterations++;
    const r = tag % RECORD_RING;
    this.recKind[r] = kind;
    this.recOp[r] = this.op;
    this.recType[r] = baseType;
    this.recReader[r] = reader;
    this.stats.byKind[kind]++;
    this.stats.byOp[this.op]++;
    if (baseType >= 0) this.stats.byBaseType[baseType]++;
    if (kind === RANDOM) report.randomInputs++;
    else report.mutatedInputs++;
    const dest = to === SERVER_ADDRESS ? this.serverTap : this.real!.tap;
    const dropped = dest.inner.stats.dropped;
    this.failureInput = bytes;
    this.network.route(from, to, bytes);
    this.tagged(dest, dropped, tag);
  }

  /** A source address for an input to the server; sets the reader. */
  protected serverSource(): [Address, number] {
    const rng = this.rng;
    const r = rng();
    if (r < 0.4) return [REAL_ADDRESS, READER_SERVER_PEER];
    if (r < 0.5) {
      const c = this.companions[randomInt(rng, COMPANIONS)];
      if (c !== null && !c.tap.closed) return [c.tap.localAddress, READER_SERVER_PEER];
      return [REAL_ADDRESS, READER_SERVER_PEER];
    }
    if (r < 0.75) return [this.attackers[randomInt(rng, ATTACKERS)].localAddress, READER_SERVER_SPOOFED];
    return [this.spoofed(), READER_SERVER_SPOOFED];
  }

  protected clientSource(): [Address, number] {
    const rng = this.rng;
    const r = rng();
    if (r < 0.8) return [SERVER_ADDRESS, READER_CLIENT_PEER];
    if (r < 0.85) return [REAL_ADDRESS, READER_CLIENT_SPOOFED];
    return [this.spoofed(), READER_CLIENT_SPOOFED];
  }

  protected spoofed(): Address {
    return this.rng() < 0.25 ? this.randomAddress() : this.spoofPool[randomInt(this.rng, SPOOF_POOL)];
  }

  protected pickCapture(): [number, number] {
    const rng = this.rng;
    let types = 0;
    for (let t = 0; t < 7; t++) if (this.captured[t] > 0) types++;
    let pick = randomInt(rng, types);
    let type = 0;
    for (; type < 7; type++) if (this.captured[type] > 0 && pick-- === 0) break;
    const slot = randomInt(rng, Math.min(this.captured[type], CAPTURE_SLOTS));
    return [type, slot];
  }

  protected captureBytes(type: number, slot: number): Uint8Array {
    return this.captures[type][slot].subarray(0, this.captureLengths[type][slot]);
  }

  protected injectOne(): void {
    const rng = this.rng;
    let total = 0;
    for (let t = 0; t < 7; t++) total += this.captured[t];
    if (rng() < this.randomShare || total === 0) {
      const toServer = rng() < 0.55;
      const bytes = this.randomInput();
      const [from, reader] = toServer ? this.serverSource() : this.clientSource();
      this.inject(from, toServer ? SERVER_ADDRESS : REAL_ADDRESS, bytes, RANDOM, -1, reader);
      return;
    }
    const [type, slot] = this.pickCapture();
    const base = this.captureBytes(type, slot);
    const serverBound = this.captureRoles[type][slot] !== ROLE_SERVER;
    const toServer = serverBound ? rng() < 0.8 : rng() < 0.2;
    this.other = null;
    const bytes = this.mutate(base, type);
    // A mutation can undo itself, or a splice give back the other packet whole: those are replays.
    const kind =
      this.op === OP_REPLAY || sameBytes(bytes, base) || (this.other !== null && sameBytes(bytes, this.other))
        ? REPLAY
        : MUTATED;
    const [from, reader] = toServer ? this.serverSource() : this.clientSource();
    this.inject(from, toServer ? SERVER_ADDRESS : REAL_ADDRESS, bytes, kind, type, reader);
  }

  protected fillRandom(out: Uint8Array, start: number, end: number): void {
    fillRandom(this.rng, out, start, end);
  }

  /** The length a packet of `type` with `sequenceBytes` has when its body is the right size. */
  protected framedLength(type: number, sequenceBytes: number): number {
    if (type === PacketType.ConnectionRequest) return CONNECTION_REQUEST_BYTES;
    const body = BODY_BYTES[type] === -1 ? 1 + randomInt(this.rng, MAX_PAYLOAD_BYTES) : BODY_BYTES[type];
    return 1 + sequenceBytes + body + MAC_BYTES;
  }

  protected randomInput(): Uint8Array {
    const rng = this.rng;
    const out = this.out;
    if (rng() < 0.5) {
      this.op = OP_RANDOM;
      const r = rng();
      const length =
        r < 0.3
          ? randomInt(rng, 41)
          : r < 0.9
            ? randomInt(rng, MAX_PACKET_BYTES + 1)
            : MAX_PACKET_BYTES + 1 + randomInt(rng, 200);
      this.fillRandom(out, 0, length);
      return out.subarray(0, length);
    }
    // Framed: a prefix and a length that pass the cheap checks, so the reader decrypts (or, for a
    // request, checks version, protocol and expiry and opens the token).
    this.op = OP_FRAMED;
    const type = randomInt(rng, 7);
    const sequenceBytes = 1 + randomInt(rng, 8);
    const length = this.framedLength(type, sequenceBytes);
    this.fillRandom(out, 0, length);
    if (type === PacketType.ConnectionRequest) {
      out[0] = 0;
      if (rng() < 0.7) {
        // Right version and protocol: the expiry, then the token, decide.
        out.set(VERSION_INFO, 1);
        writeU64(out, 1 + VERSION_INFO_BYTES, PROTOCOL_ID);
        writeU64(out, 1 + VERSION_INFO_BYTES + 8, this.unixNow() + randomInt(rng, 60) - 20);
      }
    } else out[0] = type | (sequenceBytes << 4);
    return out.subarray(0, length);
  }

  /** A mutation of captured `base` (of `type`) into this.out; sets this.op. */
  protected mutate(base: Uint8Array, type: number): Uint8Array {
    const rng = this.rng;
    const r = rng();
    if (r < 0.1) {
      this.op = OP_REPLAY;
      return base;
    }
    if (r < 0.42) {
      this.op = OP_GENERIC;
      const [otherType, otherSlot] = this.pickCapture();
      this.other = this.captureBytes(otherType, otherSlot);
      return this.maker.mutate(rng, base, this.other);
    }
    const out = this.out;
    out.set(base);
    let length = base.length;
    const prefix = out[0];
    const width = prefix >>> 4;
    const isRequest = prefix === 0 && length === CONNECTION_REQUEST_BYTES;
    if (r < 0.5) {
      this.op = OP_TYPE;
      const t = rng() < 0.7 ? randomInt(rng, 7) : randomInt(rng, 16);
      out[0] = (prefix & 0xf0) | t;
      if (rng() < 0.4 && t <= PacketType.Disconnect && t !== PacketType.ConnectionRequest && width >= 1) {
        // Resize to the new type's body, so it reaches decryption.
        const want = this.framedLength(t, Math.min(width, 8));
        if (want > length) this.fillRandom(out, length, want);
        length = want;
      }
    } else if (r < 0.58) {
      this.op = OP_SEQUENCE_SIZE;
      const size = rng() < 0.85 ? 1 + randomInt(rng, 8) : randomInt(rng, 16);
      if (rng() < 0.5 && width >= 1 && width <= 8 && size >= 1 && size <= 8 && !isRequest) {
        // Re-lay the sequence out in `size` bytes (the same value when it fits), body after it.
        const body = base.subarray(1 + width);
        for (let i = 0; i < size; i++) out[1 + i] = i < width ? base[1 + i] : 0;
        out.set(body, 1 + size);
        length = 1 + size + body.length;
      }
      out[0] = (prefix & 0x0f) | (size << 4);
    } else if (r < 0.68) {
      this.op = OP_SEQUENCE;
      const w = width >= 1 && width <= 8 ? width : 1 + randomInt(rng, 8);
      const s = rng();
      if (s < 0.45) {
        // Plus or minus a little, or 256: carried through the sequence's bytes.
        const delta = (rng() < 0.5 ? -1 : 1) * (rng() < 0.7 ? 1 + randomInt(rng, 8) : 256);
        let carry = delta;
        for (let i = 0; i < w && carry !== 0; i++) {
          const v = out[1 + i] + carry;
          out[1 + i] = v & 0xff;
          carry = Math.floor(v / 256);
        }
      } else if (s < 0.6) out.fill(0, 1, 1 + w);
      else if (s < 0.75) out.fill(0xff, 1, 1 + w);
      else if (s < 0.85 && w === 8) {
        out[8] = 0x20 + randomInt(rng, 0xe0); // past 2^53: no real peer gets there
      } else this.fillRandom(out, 1, 1 + w);
    } else if (r < 0.76) {
      this.op = OP_LENGTH;
      const s = rng();
      if (s < 0.3) length = randomInt(rng, length);
      else if (s < 0.5) length = Math.max(0, length - 1 - randomInt(rng, 16));
      else if (s < 0.7) {
        const add = 1 + randomInt(rng, 16);
        this.fillRandom(out, length, length + add);
        length += add;
      } else {
        const want =
          s < 0.9
            ? this.framedLength(1 + randomInt(rng, 6), width >= 1 && width <= 8 ? width : 1)
            : MAX_PACKET_BYTES + 1 + randomInt(rng, 64);
        if (want > length) this.fillRandom(out, length, want);
        length = want;
      }
    } else if (r < 0.82) {
      this.op = OP_MAC;
      if (length >= MAC_BYTES) {
        const s = rng();
        const at = length - MAC_BYTES;
        if (s < 0.5) out[at + randomInt(rng, MAC_BYTES)] ^= 1 << randomInt(rng, 8);
        else if (s < 0.7) out.fill(0, at, length);
        else {
          const [t, k] = this.pickCapture();
          const other = this.captureBytes(t, k);
          this.other = other;
          if (other.length >= MAC_BYTES) out.set(other.subarray(other.length - MAC_BYTES), at);
        }
      }
    } else if (r < 0.9 && isRequest) {
      this.op = OP_REQUEST;
      const s = rng();
      const expireAt = 1 + VERSION_INFO_BYTES + 8;
      if (s < 0.15) out[1 + randomInt(rng, VERSION_INFO_BYTES)] ^= 1 << randomInt(rng, 8);
      else if (s < 0.3) out[1 + VERSION_INFO_BYTES + randomInt(rng, 8)] ^= 1 << randomInt(rng, 8);
      else if (s < 0.55) {
        const unix = this.unixNow();
        const pick = rng();
        const expire =
          pick < 0.3 ? unix - randomInt(rng, 100) : pick < 0.5 ? unix : pick < 0.7 ? unix + 1 : unix + 3600;
        writeU32(out, expireAt, expire >>> 0);
        writeU32(out, expireAt + 4, Math.floor(expire / 4294967296));
        if (rng() < 0.2) out.fill(0xff, expireAt, expireAt + 8);
      } else if (s < 0.7) out[expireAt + 8 + randomInt(rng, 24)] ^= 1 << randomInt(rng, 8);
      else out[expireAt + 32 + randomInt(rng, 1024)] ^= 1 << randomInt(rng, 8);
    } else {
      this.op = OP_SPLICE;
      // A header (prefix, sequence) from one capture, the body and MAC from another: same type
      // most of the time, so only the sequence or the key differs.
      let [t, k] = this.pickCapture();
      if (rng() < 0.7) {
        t = type;
        k = randomInt(rng, Math.min(this.captured[type], CAPTURE_SLOTS));
      }
      const other = this.captureBytes(t, k);
      this.other = other;
      const keepHeader = width >= 1 && width <= 8 ? 1 + width : 1;
      const otherWidth = other[0] >>> 4;
      const otherHeader = otherWidth >= 1 && otherWidth <= 8 ? 1 + otherWidth : 1;
      if (rng() < 0.5) {
        out.set(other.subarray(otherHeader), keepHeader);
        length = keepHeader + other.length - otherHeader;
      } else {
        out.set(other.subarray(0, otherHeader), 0);
        out.set(base.subarray(keepHeader), otherHeader);
        length = otherHeader + base.length - keepHeader;
      }
    }
    return out.subarray(0, length);
  }

  /** A captured handshake (request, then a few ticks later its response) from one spoofed address. */
  protected replayHandshake(): void {
    if (this.pairs.length === 0 || this.pending.length >= MAX_PENDING_RESPONSES) return;
    const rng = this.rng;
    const pair = this.pairs[randomInt(rng, this.pairs.length)];
    const from =
      rng() < 0.5
        ? this.attackers[randomInt(rng, ATTACKERS)].localAddress
        : this.spoofPool[randomInt(rng, 64)];
    this.op = OP_HANDSHAKE;
    this.stats.handshakeReplays++;
    this.inject(
      from,
      SERVER_ADDRESS,
      pair.request,
      REPLAY,
      PacketType.ConnectionRequest,
      READER_SERVER_SPOOFED,
    );
    this.pending.push({ tick: this.tick + 1 + randomInt(rng, 10), from, response: pair.response });
  }

  protected duePendingResponses(budget: number): number {
    let sent = 0;
    for (let i = 0; i < this.pending.length && sent < budget; ) {
      const p = this.pending[i];
      if (p.tick > this.tick) {
        i++;
        continue;
      }
      this.pending.splice(i, 1);
      this.op = OP_HANDSHAKE;
      this.inject(
        p.from,
        SERVER_ADDRESS,
        p.response,
        REPLAY,
        PacketType.ConnectionResponse,
        READER_SERVER_SPOOFED,
      );
      sent++;
    }
    return sent;
  }

  /** The control: a payload sealed with the real client's key, ahead of its sequence, wrong inside. */
  protected forgeWithRealKey(): void {
    const real = this.real!;
    const rng = this.rng;
    const body = this.payload;
    // The packet sequence the server's endpoint takes as new (a random one was stale about half
    // the time, so on some seeds every forgery was dropped before the pattern check, e.g. 1401243497).
    const next = real.client.endpoint?.nextSequence ?? randomInt(rng, 65536);
    let n = writePacketHeader(body, 0, (next + randomInt(rng, 16)) & 0xffff, randomInt(rng, 65536), 0);
    writeU32(body, n, 0);
    n += 4;
    this.fillRandom(body, n, n + 20);
    n += 20;
    const sequence = (real.client as unknown as ClientInternals).sequence + 1 + randomInt(rng, 200);
    const length = this.codec.writePayload(this.out, sequence, real.token.clientToServerKey, body, 0, n);
    this.op = OP_CONTROL;
    this.inject(
      REAL_ADDRESS,
      SERVER_ADDRESS,
      this.out.subarray(0, length),
      MUTATED,
      PacketType.Payload,
      READER_SERVER_PEER,
    );
  }

  /** A fresh connection request from an attacker address that will never answer its challenge. */
  protected halfOpen(): void {
    const rng = this.rng;
    const r = rng();
    const variant =
      r < 0.8 ? (rng() < this.negativeTimeoutShare ? 1 : 0) : 2 + Math.min(3, Math.floor((r - 0.8) / 0.05));
    const id = this.nextHalfOpenId++;
    const bytes =
      variant === 0
        ? this.token(id)
        : variant === 1
          ? this.token(id, { timeoutSeconds: -1 })
          : variant === 2
            ? this.token(id, { serverAddresses: [toAddress('10.0.0.200:40000')] })
            : variant === 3
              ? this.token(id, { protocolId: OTHER_PROTOCOL_ID })
              : variant === 4
                ? this.token(id, { expireSeconds: 0 })
                : this.token(id, { privateKey: new Uint8Array(32).fill(9) });
    const read = readConnectToken(bytes);
    if (!read.ok) throw new Error(`netcode fuzz: a token of ours does not read: ${read.reason}`);
    const t = read.token;
    const codec = variant === 3 ? this.otherCodec : this.codec;
    const n = codec.writeConnectionRequest(this.out, t.expireTimestamp, t.nonce, t.privateData);
    this.stats.halfOpen[variant]++;
    if (this.halfOpenFreshAddressShare > 0 && rng() < this.halfOpenFreshAddressShare) {
      // From an address with no transport: its challenge goes nowhere, as a spoofed source's would.
      const dropped = this.serverTap.inner.stats.dropped;
      this.network.route(this.randomAddress(), SERVER_ADDRESS, this.out.subarray(0, n));
      this.tagged(this.serverTap, dropped, GENERATED);
      return;
    }
    this.attackers[randomInt(rng, ATTACKERS)].send(SERVER_ADDRESS, this.out.subarray(0, n));
  }
}
