/** Bits needed to send an integer in [min, max]: 0 when min == max (the serialize STANDARD rule). */
export function bitsRequired(min: number, max: number): number {
  return min === max ? 0 : 32 - Math.clz32(max - min);
}

/** 64-bit form of {@link bitsRequired}, for int64 / uint64 ranges. */
export function bitsRequired64(min: bigint, max: bigint): number {
  if (min === max) return 0;
  let diff = BigInt.asUintN(64, max - min);
  let bits = 0;
  if (diff >> 32n !== 0n) {
    bits = 32;
    diff >>= 32n;
  }
  return bits + 32 - Math.clz32(Number(diff));
}
