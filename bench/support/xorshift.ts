/** The workloads' generator (W1.md): xorshift32 from a seed, and floats drawn from it as float32. */
export function xorshift32(seed: number): { next(): number; float(a: number, b: number): number } {
  let x = seed >>> 0;
  const next = (): number => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x;
  };
  return { next, float: (a, b) => Math.fround(a + (b - a) * (next() / 2 ** 32)) };
}
