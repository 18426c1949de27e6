/**
 * Bytes allocated per iteration, from V8's sampling heap profiler with collected objects kept in
 * the samples: unlike heap growth, it still counts what a young-generation collection freed, so
 * code that allocates a little per call cannot hide behind a scavenge.
 */
import { Session } from 'node:inspector/promises';

export async function allocatedPerIteration(
  run: (iterations: number) => void,
  iterations: number,
  samplingIntervalBytes = 128,
): Promise<number> {
  run(Math.min(iterations, 50_000)); // warm up: optimised code, grown buffers
  const session = new Session();
  session.connect();
  try {
    await session.post('HeapProfiler.startSampling', {
      samplingInterval: samplingIntervalBytes,
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: true,
    });
    run(iterations);
    const { profile } = await session.post('HeapProfiler.stopSampling');
    let total = 0;
    const stack = [profile.head];
    while (stack.length > 0) {
      const node = stack.pop()!;
      total += node.selfSize;
      stack.push(...node.children);
    }
    return total / iterations;
  } finally {
    session.disconnect();
  }
}
