/**
 * The seed for a randomised test file: GW_SEED when set (to replay a failure), else a fresh one.
 * It is printed so any failure can be replayed. It is any uint32: a seed derived from it for one
 * part of a file must be made a uint32 again (`(SEED ^ 3) >>> 0`, `(SEED + i) >>> 0`) before it
 * reaches an API that takes a seed, since from 2^31 up `SEED ^ 3` is negative and `SEED + i` can
 * pass 2^32 (`npm run sweep -- --edges` runs those seeds).
 */
export function testSeed(label: string): number {
  const seed =
    process.env.GW_SEED !== undefined
      ? Number(process.env.GW_SEED) >>> 0
      : (Date.now() ^ (process.pid << 16)) >>> 0;
  console.log(`${label}: seed ${seed} (replay with GW_SEED=${seed})`);
  return seed;
}
