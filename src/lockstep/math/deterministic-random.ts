/**
 * The PRNG every peer of a session shares: the same seed gives the same stream on every engine,
 * because it uses only 32-bit integer operations (Math.imul, shifts, xor) whose results
 * JavaScript defines exactly. Its whole state is one 32-bit number, so a game saves it with its
 * state (`state`), restores it on rollback or from a late joiner's snapshot (`state = saved`),
 * and includes it in its checksum. (mulberry32; a game needing more period keeps several.)
 */
export class DeterministicRandom {
  private s: number;

  constructor(seed: number) {
    if (!Number.isInteger(seed) || seed < 0 || seed > 0xffffffff)
      throw new RangeError(`DeterministicRandom: seed must be an integer in [0, 2^32), got ${seed}`);
    this.s = seed;
  }

  /** The whole state, a uint32: save it with the game state. */
  get state(): number {
    return this.s;
  }

  set state(value: number) {
    if (!Number.isInteger(value) || value < 0 || value > 0xffffffff)
      throw new RangeError(`DeterministicRandom: state must be an integer in [0, 2^32), got ${value}`);
    this.s = value;
  }

  /** The next uint32. */
  nextUint32(): number {
    const a = (this.s + 0x6d2b79f5) >>> 0;
    this.s = a;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  }

  /** An integer in [0, n), n an integer in [1, 2^32). Exact: no floating point involved. */
  nextInt(n: number): number {
    if (!Number.isInteger(n) || n < 1 || n > 0xffffffff)
      throw new RangeError(`DeterministicRandom.nextInt: n must be an integer in [1, 2^32), got ${n}`);
    // Rejection keeps it unbiased; a uint32 at or over the largest multiple of n is drawn again.
    const limit = 0x100000000 - (0x100000000 % n);
    for (;;) {
      const x = this.nextUint32();
      if (x < limit) return x % n;
    }
  }

  /** A float in [0, 1): a uint32 divided by 2^32, exact in every engine. */
  nextFloat(): number {
    return this.nextUint32() / 0x100000000;
  }
}
