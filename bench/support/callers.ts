/**
 * Concurrent callers for the services benches: `callers` loops at once, each awaiting `each`
 * operations in turn; the rate over all and each operation's latency (its queueing included).
 */

export interface CallerFigures {
  perSecond: number;
  /** Milliseconds. */
  p50: number;
  p99: number;
}

/** The `p`th percentile (0–100) of sorted values. */
export function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))];
}

export async function runCallers(
  callers: number,
  each: number,
  op: (caller: number, i: number) => Promise<void>,
): Promise<CallerFigures> {
  const latencies: number[] = [];
  const started = performance.now();
  await Promise.all(
    Array.from({ length: callers }, async (_, caller) => {
      for (let i = 0; i < each; i++) {
        const t = performance.now();
        await op(caller, i);
        latencies.push(performance.now() - t);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    perSecond: latencies.length / seconds,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
  };
}
