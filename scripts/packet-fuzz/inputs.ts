/**
 * The packet fuzz's injected datagrams: random bytes, mutations, header-aware forgeries and
 * replays.
 */

import {
  FRAGMENT_HEADER_BYTES,
  MAX_PACKET_HEADER_BYTES,
  writeFragmentHeader,
  writePacketHeader,
} from '../../src/packet/header.js';
import { randomInt } from '../../src/random/prng.js';
import { sameBytes } from '../fuzz-core.js';
import { BAD_ARGUMENTS, CAPTURE_SLOTS, CRC_BYTES, FORGED, MUTATED, RANDOM, REPLAY } from './options.js';
import { fillRandom, randomAckBits, type Side, tweak16 } from './parts.js';
import { PacketFuzzWire } from './wire.js';

export abstract class PacketFuzzInputs extends PacketFuzzWire {
  // -------------------------------------------------------------------------------------------
  // Injected datagrams
  // -------------------------------------------------------------------------------------------

  /** An injected datagram into `side`, built from what the peer sent lately. */
  protected inject(side: Side): void {
    const rng = this.rng;
    const peer = this.sides[1 - side.index];
    const available = Math.min(peer.captures, CAPTURE_SLOTS);
    const out = this.injected;
    const r = rng();
    if (available === 0 || r < 0.2) {
      this.stats.injectedRandom++;
      const q = rng();
      const length =
        q < 0.05
          ? randomInt(rng, 9)
          : q < 0.08
            ? this.config.maxPacketSize +
              randomInt(rng, 2 * MAX_PACKET_HEADER_BYTES + FRAGMENT_HEADER_BYTES + 8)
            : randomInt(rng, 1100);
      fillRandom(rng, out, 0, length);
      this.feed(side, out.subarray(0, length), RANDOM);
      return;
    }
    const k = randomInt(rng, available);
    const base = peer.captured[k].subarray(0, peer.capturedLength[k]);
    if (r < 0.63) {
      this.stats.injectedMutated++;
      const m = randomInt(rng, available);
      const other = peer.captured[m].subarray(0, peer.capturedLength[m]);
      const mutated = this.maker.mutate(rng, base.subarray(CRC_BYTES), other.subarray(CRC_BYTES));
      out.set(base.subarray(0, CRC_BYTES), 0);
      out.set(mutated, CRC_BYTES);
      const input = out.subarray(0, CRC_BYTES + mutated.length);
      // A mutation can undo itself (a byte overwritten with its own value): that is a replay.
      this.feed(side, input, sameBytes(input, base) ? REPLAY : MUTATED);
      return;
    }
    if (r < 0.9) {
      this.stats.injectedForged++;
      const input = out.subarray(0, this.forge(side, base));
      this.feed(side, input, sameBytes(input, base) ? REPLAY : FORGED);
      return;
    }
    out.set(base, 0);
    if (r < 0.97) {
      this.stats.injectedReplays++;
      this.feed(side, out.subarray(0, base.length), REPLAY);
      return;
    }
    // A replay for the protected path; nonsense arguments for the victim.
    this.feed(side, out.subarray(0, base.length), BAD_ARGUMENTS);
  }

  /**
   * Header-aware forgeries of a captured datagram `base` (CRC included) into this.injected: the
   * sequence, ack, ack bits and reserved bits tweaked, fragment ids and counts changed, wild
   * fragments and well-formed regular packets made up. Returns the length.
   */
  protected forge(side: Side, base: Uint8Array): number {
    const rng = this.rng;
    const out = this.injected;
    out.set(base, 0);
    const p = CRC_BYTES;
    const fragment = (out[p] & 1) === 1;
    const sequence = out[p + 1] | (out[p + 2] << 8);
    // The regular header: the packet's own, or fragment 0's embedded one (none on later fragments).
    const h = fragment ? (out[p + 3] === 0 ? p + FRAGMENT_HEADER_BYTES : -1) : p;
    // Acks in packets reaching `side` are about the sequences it sent lately.
    const nearAck = (side.endpoint.nextSequence - 1 - randomInt(rng, 48)) & 0xffff;
    switch (randomInt(rng, 8)) {
      case 0: {
        const s = tweak16(rng, sequence);
        out[p + 1] = s & 0xff;
        out[p + 2] = s >>> 8;
        if (fragment && h > 0 && rng() < 0.7) {
          out[h + 1] = s & 0xff;
          out[h + 2] = s >>> 8;
        }
        break;
      }
      case 1: {
        if (h < 0 || base.length <= h + 4) return this.wildFragment(sequence, nearAck);
        if (out[h] & 0x20) out[h + 3] = rng() < 0.5 ? randomInt(rng, 256) : (sequence - nearAck) & 0xff;
        else {
          const ack = rng() < 0.5 ? randomInt(rng, 65536) : nearAck;
          out[h + 3] = ack & 0xff;
          out[h + 4] = ack >>> 8;
        }
        if (rng() < 0.3) out[h] ^= 0x20; // the one-byte-ack flag, without re-laying the header out
        break;
      }
      case 2: {
        if (h < 0) return this.wildFragment(sequence, nearAck);
        if (rng() < 0.4) out[h] ^= 1 << (1 + randomInt(rng, 4));
        else {
          let q = h + 3 + (out[h] & 0x20 ? 1 : 2);
          for (let bit = 1; bit <= 4; bit++) {
            if (!(out[h] & (1 << bit)) || q >= base.length) continue;
            const pick = rng();
            out[q++] = pick < 0.3 ? randomInt(rng, 256) : pick < 0.6 ? 0 : pick < 0.8 ? 0xfe : 0xff;
          }
        }
        break;
      }
      case 3:
        out[p] ^= [0x40, 0x80, 0x01][randomInt(rng, 3)];
        break;
      case 4:
        if (!fragment) return this.wildFragment(sequence, nearAck);
        if (rng() < 0.5) out[p + 3] = rng() < 0.5 ? randomInt(rng, 256) : (out[p + 3] + 1) & 0xff;
        else out[p + 4] = rng() < 0.5 ? randomInt(rng, 256) : (out[p + 4] + 1) & 0xff;
        break;
      case 5:
      case 6:
        return this.wildFragment(sequence, nearAck);
      default:
        return this.forgedRegular(sequence, nearAck);
    }
    return base.length;
  }

  /** A made-up fragment: sequence near `near`, ids and counts from valid to wild, sizes likewise. */
  protected wildFragment(near: number, nearAck: number): number {
    const rng = this.rng;
    const out = this.injected;
    const c = this.config;
    const p = CRC_BYTES;
    fillRandom(rng, out, 0, CRC_BYTES);
    const r = rng();
    const sequence =
      r < 0.3 ? near : r < 0.85 ? (near + randomInt(rng, 129) - 64) & 0xffff : randomInt(rng, 65536);
    const q = rng();
    const count =
      q < 0.45
        ? 1 + randomInt(rng, c.maxFragments)
        : q < 0.75
          ? 1 + randomInt(rng, 256)
          : q < 0.9
            ? 1
            : c.maxFragments + 1;
    const w = rng();
    const id = w < 0.4 ? randomInt(rng, count) : w < 0.6 ? 0 : w < 0.8 ? count - 1 : randomInt(rng, 256);
    writeFragmentHeader(out, p, sequence, id & 0xff, Math.min(count, 256));
    let at = p + FRAGMENT_HEADER_BYTES;
    if (id === 0) {
      const embedded = rng() < 0.9 ? sequence : randomInt(rng, 65536);
      at += writePacketHeader(out, at, embedded, nearAck, randomAckBits(rng));
      if (rng() < 0.05) out[p + FRAGMENT_HEADER_BYTES] |= 0x40;
    }
    const s = rng();
    const body =
      id !== count - 1 && s < 0.8
        ? c.fragmentSize
        : s < 0.9
          ? 1 + randomInt(rng, c.fragmentSize)
          : s < 0.95
            ? 0
            : c.fragmentSize + 1 + randomInt(rng, 16);
    fillRandom(rng, out, at, at + body);
    return at + body;
  }

  /** A well-formed regular packet with a made-up sequence, ack, ack bits and payload. */
  protected forgedRegular(near: number, nearAck: number): number {
    const rng = this.rng;
    const out = this.injected;
    fillRandom(rng, out, 0, CRC_BYTES);
    const r = rng();
    const sequence = r < 0.8 ? (near + randomInt(rng, 65) - 32) & 0xffff : randomInt(rng, 65536);
    const ack = rng() < 0.8 ? nearAck : randomInt(rng, 65536);
    const at = CRC_BYTES + writePacketHeader(out, CRC_BYTES, sequence, ack, randomAckBits(rng));
    const s = rng();
    const body =
      s < 0.1
        ? 0
        : s < 0.95
          ? 1 + randomInt(rng, 1100)
          : this.config.maxPacketSize - 4 + randomInt(rng, 2 * MAX_PACKET_HEADER_BYTES + 8);
    fillRandom(rng, out, at, at + body);
    return at + body;
  }
}
