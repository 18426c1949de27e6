/**
 * Handoff latency end to end, as a zone thread measures it for the entities handed to its zone:
 * from the tick the source zone decided the handoff (it released the entity at the end of tick
 * T-1 for a handoff at T) to the tick the destination first stepped the entity, in ticks, and in
 * milliseconds from the moment the decision tick was due on the world's clock (originMs +
 * (T-1) × 1000 / tickRate ms) to the end of that step. 1 tick is the least: the destination steps T one tick after
 * T-1. Kept as cumulative counts in fixed bins, so recording allocates nothing and a reader takes
 * two reports' difference for a window of its own.
 */

/** Tick bins: 0..62 ticks each their own, the last one 63 ticks or more. */
export const LATENCY_TICK_BINS = 64;
/** Milliseconds per millisecond bin. */
export const LATENCY_MS_BIN_WIDTH = 2;
/** Millisecond bins: [0, 2), [2, 4)… the last one 2046 ms or more. */
export const LATENCY_MS_BINS = 1024;

/** Handoffs counted per latency bin, since the zone thread started its zone. */
export interface HandoffLatencyCounts {
  /** byTicks[i]: handed-off entities first stepped i ticks after the decision tick. */
  byTicks: number[];
  /** byMs[i]: … between i × LATENCY_MS_BIN_WIDTH and (i + 1) × LATENCY_MS_BIN_WIDTH ms. */
  byMs: number[];
}

export class HandoffLatency {
  private readonly byTicks = new Uint32Array(LATENCY_TICK_BINS);
  private readonly byMs = new Uint32Array(LATENCY_MS_BINS);

  /** One handoff's latency; a negative one (a clock stepped back) counts in the first bin. */
  record(ticks: number, ms: number): void {
    this.byTicks[bin(ticks, 1, LATENCY_TICK_BINS)]++;
    this.byMs[bin(ms, LATENCY_MS_BIN_WIDTH, LATENCY_MS_BINS)]++;
  }

  counts(): HandoffLatencyCounts {
    return { byTicks: Array.from(this.byTicks), byMs: Array.from(this.byMs) };
  }
}

function bin(value: number, width: number, bins: number): number {
  if (!(value > 0)) return 0;
  return Math.min(bins - 1, Math.floor(value / width));
}

/**
 * The bin that holds the `p` quantile (0..1) of the counted values, or -1 when nothing was
 * counted: for ticks the bin is the number of ticks; for milliseconds, `(bin + 1) ×
 * LATENCY_MS_BIN_WIDTH` bounds the quantile from above.
 */
export function quantileBin(counts: ArrayLike<number>, p: number): number {
  let total = 0;
  for (let i = 0; i < counts.length; i++) total += counts[i];
  if (total === 0) return -1;
  const rank = Math.max(1, Math.ceil(p * total));
  let seen = 0;
  for (let i = 0; i < counts.length; i++) {
    seen += counts[i];
    if (seen >= rank) return i;
  }
  return counts.length - 1;
}
