/** Peak memory of a long run, and the heap settled by a collection, for the fuzz and soak reports. */
export interface MemoryPeaks {
  peakRss: number;
  peakHeapUsed: number;
}

export function memoryProbe(peaks: MemoryPeaks, gc?: () => void) {
  /** Records the current RSS and heap into the peaks; returns the heap used. */
  const sample = (): number => {
    const usage = process.memoryUsage();
    if (usage.rss > peaks.peakRss) peaks.peakRss = usage.rss;
    if (usage.heapUsed > peaks.peakHeapUsed) peaks.peakHeapUsed = usage.heapUsed;
    return usage.heapUsed;
  };
  /** The heap used after a full collection when one can be forced (--expose-gc). */
  const settled = (): number => {
    gc?.();
    return sample();
  };
  return { sample, settled };
}
