/** Little-endian field access for netcode's fixed layouts (all integers on its wire are LE). */

export function writeU16(out: Uint8Array, offset: number, value: number): void {
  out[offset] = value & 0xff;
  out[offset + 1] = (value >>> 8) & 0xff;
}

export function writeU32(out: Uint8Array, offset: number, value: number): void {
  out[offset] = value & 0xff;
  out[offset + 1] = (value >>> 8) & 0xff;
  out[offset + 2] = (value >>> 16) & 0xff;
  out[offset + 3] = (value >>> 24) & 0xff;
}

/** A u64 given as a bigint, or as a non-negative safe integer. */
export function writeU64(out: Uint8Array, offset: number, value: bigint | number): void {
  const big = typeof value === 'bigint' ? value : BigInt(value);
  writeU32(out, offset, Number(big & 0xffffffffn));
  writeU32(out, offset + 4, Number((big >> 32n) & 0xffffffffn));
}

export function readU16(data: Uint8Array, offset: number): number {
  return data[offset] | (data[offset + 1] << 8);
}

export function readU32(data: Uint8Array, offset: number): number {
  return (data[offset] | (data[offset + 1] << 8) | (data[offset + 2] << 16) | (data[offset + 3] << 24)) >>> 0;
}

/** A u64 as a number: exact below 2^53, which timestamps and real sequences always are. */
export function readU64(data: Uint8Array, offset: number): number {
  return readU32(data, offset + 4) * 0x100000000 + readU32(data, offset);
}

export function readU64Big(data: Uint8Array, offset: number): bigint {
  return (BigInt(readU32(data, offset + 4)) << 32n) | BigInt(readU32(data, offset));
}

/** Constant-time equality of two byte ranges of the same length (for secrets such as keys). */
export function bytesEqual(
  a: Uint8Array,
  aOffset: number,
  b: Uint8Array,
  bOffset: number,
  length: number,
): boolean {
  let difference = 0;
  for (let i = 0; i < length; i++) difference |= a[aOffset + i] ^ b[bOffset + i];
  return difference === 0;
}
