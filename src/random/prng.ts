/**
 * mulberry32: a tiny seedable PRNG. Tests, fuzzing, benchmarks and (later) the network simulator
 * need reproducible streams of numbers from a seed; Math.random cannot be replayed.
 */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** An integer in [0, n). */
export function randomInt(next: () => number, n: number): number {
  return Math.floor(next() * n);
}

/** `length` random bytes. */
export function randomBytes(next: () => number, length: number): Uint8Array {
  const out = new Uint8Array(length);
  for (let i = 0; i < length; i++) out[i] = (next() * 256) | 0;
  return out;
}
