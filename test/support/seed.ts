/**
 * The seed for a randomised test file: GW_SEED when set (to replay a failure), else a fresh one.
 * It is printed so any failure can be replayed.
 */
export function testSeed(label: string): number {
  const seed =
    process.env.GW_SEED !== undefined
      ? Number(process.env.GW_SEED) >>> 0
      : (Date.now() ^ (process.pid << 16)) >>> 0;
  console.log(`${label}: seed ${seed} (replay with GW_SEED=${seed})`);
  return seed;
}
