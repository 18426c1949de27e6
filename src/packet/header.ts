/**
 * The reliable packet header (reliable 1.4.0, 4..9 bytes):
 *
 *   prefix u8 | sequence u16 LE | ack: u8 (sequence - ack) if prefix bit 5, else u16 LE |
 *   ack_bits bytes 0..3 LE, each present only if its prefix bit (1..4) is set (that byte != 0xFF)
 *
 * Prefix bit 0 is 0 (1 marks a fragment); bits 6-7 are 0. Bit i of ack_bits means sequence
 * (ack - i) was received: bit 0 is ack itself (the reference code's rule, which the vectors follow).
 */
export const MAX_PACKET_HEADER_BYTES = 9;
export const FRAGMENT_HEADER_BYTES = 5;

/** Fields a header read fills (one reused object: reading allocates nothing). */
export interface PacketHeader {
  sequence: number;
  ack: number;
  ackBits: number;
}

/** Writes the canonical header at `offset`; returns its length. */
export function writePacketHeader(
  out: Uint8Array,
  offset: number,
  sequence: number,
  ack: number,
  ackBits: number,
): number {
  let prefix = 0;
  if ((ackBits & 0xff) !== 0xff) prefix |= 1 << 1;
  if ((ackBits & 0xff00) !== 0xff00) prefix |= 1 << 2;
  if ((ackBits & 0xff0000) !== 0xff0000) prefix |= 1 << 3;
  if (ackBits >>> 24 !== 0xff) prefix |= 1 << 4; // `& 0xff000000` would be a negative int32
  const difference = (sequence - ack) & 0xffff;
  if (difference <= 255) prefix |= 1 << 5;
  let p = offset;
  out[p++] = prefix;
  out[p++] = sequence & 0xff;
  out[p++] = sequence >>> 8;
  if (difference <= 255) out[p++] = difference;
  else {
    out[p++] = ack & 0xff;
    out[p++] = ack >>> 8;
  }
  if (prefix & (1 << 1)) out[p++] = ackBits & 0xff;
  if (prefix & (1 << 2)) out[p++] = (ackBits >>> 8) & 0xff;
  if (prefix & (1 << 3)) out[p++] = (ackBits >>> 16) & 0xff;
  if (prefix & (1 << 4)) out[p++] = ackBits >>> 24;
  return p - offset;
}

/**
 * Reads a regular packet header from data[offset, offset + length) into `out`; returns its
 * length, or -1 when it is truncated, marked as a fragment, has reserved prefix bits set, or is
 * not the canonical encoding (an ack that fits a byte sent as two, an ack_bits byte of 0xFF sent
 * at all): a reference writer never produces those, so they are corruption or forgery.
 */
export function readPacketHeader(
  data: Uint8Array,
  offset: number,
  length: number,
  out: PacketHeader,
): number {
  if (length < 4) return -1;
  const prefix = data[offset];
  if ((prefix & 0xc1) !== 0) return -1;
  let p = offset + 1;
  const sequence = data[p] | (data[p + 1] << 8);
  p += 2;
  let ack: number;
  if (prefix & (1 << 5)) {
    ack = (sequence - data[p++]) & 0xffff;
  } else {
    if (length < 5) return -1;
    ack = data[p] | (data[p + 1] << 8);
    p += 2;
    if (((sequence - ack) & 0xffff) <= 255) return -1;
  }
  let present = 0;
  for (let bit = 1; bit <= 4; bit++) if (prefix & (1 << bit)) present++;
  if (p - offset + present > length) return -1;
  let ackBits = 0xffffffff;
  for (let i = 0; i < 4; i++) {
    if (prefix & (1 << (i + 1))) {
      const byte = data[p++];
      if (byte === 0xff) return -1;
      ackBits = (ackBits & ~(0xff << (8 * i))) | (byte << (8 * i));
    }
  }
  out.sequence = sequence;
  out.ack = ack;
  out.ackBits = ackBits >>> 0;
  return p - offset;
}

/** Fields a fragment header read fills. */
export interface FragmentHeader extends PacketHeader {
  fragmentId: number;
  numFragments: number;
  /** Bytes of fragment data after the header(s). */
  fragmentBytes: number;
  /** Length of the fragment header plus, on fragment 0, the embedded packet header. */
  headerBytes: number;
}

/** Writes the 5-byte fragment header: prefix 1 | sequence u16 LE | fragment id | fragments - 1. */
export function writeFragmentHeader(
  out: Uint8Array,
  offset: number,
  sequence: number,
  fragmentId: number,
  numFragments: number,
): number {
  out[offset] = 1;
  out[offset + 1] = sequence & 0xff;
  out[offset + 2] = sequence >>> 8;
  out[offset + 3] = fragmentId;
  out[offset + 4] = numFragments - 1;
  return FRAGMENT_HEADER_BYTES;
}

/**
 * Reads a fragment header (and on fragment 0 the embedded packet header, which must be canonical
 * and carry the same sequence); checks the fragment count against `maxFragments` and the data
 * size against `fragmentSize` (every fragment but the last is exactly fragmentSize). Returns
 * false on any violation.
 */
export function readFragmentHeader(
  data: Uint8Array,
  offset: number,
  length: number,
  maxFragments: number,
  fragmentSize: number,
  out: FragmentHeader,
): boolean {
  if (length < FRAGMENT_HEADER_BYTES || data[offset] !== 1) return false;
  const sequence = data[offset + 1] | (data[offset + 2] << 8);
  const fragmentId = data[offset + 3];
  const numFragments = data[offset + 4] + 1;
  if (numFragments > maxFragments || fragmentId >= numFragments) return false;
  let headerBytes = FRAGMENT_HEADER_BYTES;
  out.ack = 0;
  out.ackBits = 0;
  if (fragmentId === 0) {
    const embedded = readPacketHeader(
      data,
      offset + FRAGMENT_HEADER_BYTES,
      length - FRAGMENT_HEADER_BYTES,
      out,
    );
    if (embedded < 0 || out.sequence !== sequence) return false;
    headerBytes += embedded;
  }
  const fragmentBytes = length - headerBytes;
  if (fragmentBytes > fragmentSize) return false;
  if (fragmentId !== numFragments - 1 && fragmentBytes !== fragmentSize) return false;
  if (fragmentBytes <= 0) return false; // a sender never sends an empty fragment
  out.sequence = sequence;
  out.fragmentId = fragmentId;
  out.numFragments = numFragments;
  out.fragmentBytes = fragmentBytes;
  out.headerBytes = headerBytes;
  return true;
}
