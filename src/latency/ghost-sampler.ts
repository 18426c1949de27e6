import type { EntityHistory } from '../replication/entity-history.js';
import type { Interpolator } from './interpolation.js';

/**
 * Showing one remote entity at a fractional server tick (the estimated server tick − the
 * interpolation delay) from the states its ghost received: interpolated between the two around it,
 * shown as it stopped when later snapshots brought no change, extrapolated a bounded number of
 * ticks when the snapshots themselves are late, then held. Keep one sampler per ghost shown:
 * it remembers the last tick rendered so that the displayed time never goes back.
 */

export interface GhostSamplerOptions {
  /** How far past the newest state floats may be extrapolated, in ticks (default 2); then held. */
  maxExtrapolationTicks?: number;
}

/**
 * How the last sample was made. 'resting': past the newest state, with snapshots received up to
 * the render tick that brought none newer: the entity did not change, so it is shown as it stopped.
 */
export type SampleMode = 'interpolated' | 'extrapolated' | 'held' | 'resting' | 'oldest' | 'empty';

/** Fiedler's rule of thumb: show remote entities about three packet intervals in the past. */
export function interpolationDelayTicks(packetIntervalTicks: number, packets = 3): number {
  if (!(packetIntervalTicks > 0 && Number.isFinite(packetIntervalTicks)))
    throw new RangeError(
      `interpolationDelayTicks: packet interval must be > 0 ticks, got ${packetIntervalTicks}`,
    );
  if (!(packets > 0 && Number.isFinite(packets)))
    throw new RangeError(`interpolationDelayTicks: packets must be > 0, got ${packets}`);
  return packetIntervalTicks * packets;
}

export class GhostSampler<T> {
  readonly maxExtrapolationTicks: number;
  /** The object samples are written into: the interpolator's own, made by the first sample. */
  private out: T | undefined = undefined;
  /** The latest render tick asked for (−Infinity before the first): later requests never go below it. */
  lastTick = Number.NEGATIVE_INFINITY;
  /** The server tick the value shows (the render tick, or less when held or clamped). */
  shownTick = Number.NEGATIVE_INFINITY;
  mode: SampleMode = 'empty';
  /** Samples past the newest state (the buffer ran dry), and of those, the ones held beyond the bound. */
  starved = 0;
  held = 0;
  /** Two dequantized states, kept while their ticks stay in use (a new state each tick or so). */
  private older: T;
  private newer: T;
  private olderTick = -1;
  private newerTick = -1;
  private history: EntityHistory | null = null;

  constructor(
    readonly interpolator: Interpolator<T>,
    options: GhostSamplerOptions = {},
  ) {
    const max = options.maxExtrapolationTicks ?? 2;
    if (!(max >= 0 && Number.isFinite(max)))
      throw new RangeError(`GhostSampler: maxExtrapolationTicks must be finite and >= 0, got ${max}`);
    this.maxExtrapolationTicks = max;
    this.older = {} as T;
    this.newer = {} as T;
  }

  /**
   * The value shown, rebuilt in place by each sample (one object from the first sample on; the
   * interpolator makes it, so its floats are stored unboxed). Empty before the first sample.
   */
  get value(): T {
    return this.out ?? ({} as T);
  }

  /** Forgets the ghost (a new one is shown with this sampler): time may start anew. */
  reset(): void {
    this.lastTick = Number.NEGATIVE_INFINITY;
    this.shownTick = Number.NEGATIVE_INFINITY;
    this.mode = 'empty';
    this.history = null;
    this.olderTick = -1;
    this.newerTick = -1;
  }

  /**
   * The ghost as of `renderTick` (fractional server tick), written into `value` and returned; null
   * when the history holds nothing. A render tick below the last one is raised to it.
   * `receivedTick` is the newest server tick the client has heard of (LatencyClient's
   * `newestServerTick`): past the ghost's newest state but within it, the ghost did not change and
   * is shown where it stopped ('resting'); only beyond it (the packets are late) is it extrapolated.
   * Without it every tick past the newest state counts as late.
   */
  sample(history: EntityHistory, renderTick: number, receivedTick = Number.NEGATIVE_INFINITY): T | null {
    if (!Number.isFinite(renderTick))
      throw new RangeError(`GhostSampler.sample: renderTick must be finite, got ${renderTick}`);
    if (Number.isNaN(receivedTick))
      throw new RangeError('GhostSampler.sample: receivedTick must be a tick, got NaN');
    if (history.layout.schema !== (this.interpolator.schema as unknown))
      throw new TypeError("GhostSampler.sample: the history's schema is not the interpolator's");
    if (history !== this.history) {
      this.history = history;
      this.olderTick = -1;
      this.newerTick = -1;
    }
    const size = history.size;
    if (size === 0) {
      this.mode = 'empty';
      return null;
    }
    const tick = Math.max(renderTick, this.lastTick);
    this.lastTick = tick;
    // k: the newest state stamped at or before `tick`.
    let k = 0;
    while (k < size && history.tickAt(k) > tick) k++;
    if (k === size) {
      // Before everything held (the delay reaches past the history): show the oldest.
      this.load(size - 1, size - 1);
      this.mode = 'oldest';
      this.shownTick = history.tickAt(size - 1);
      return this.blend(this.older, 0);
    }
    if (k > 0) {
      this.load(k, k - 1);
      const t0 = history.tickAt(k);
      const fraction = (tick - t0) / (history.tickAt(k - 1) - t0);
      this.mode = 'interpolated';
      this.shownTick = tick;
      return this.blend(this.newer, fraction);
    }
    // At or past the newest state.
    const newest = history.tickAt(0);
    if (tick > newest && receivedTick >= tick) {
      // Snapshots up to the render tick came and none changed it: it rests where it stopped (as
      // the server's lag compensation has it), not where its last motion would carry it.
      this.load(0, 0);
      this.mode = 'resting';
      this.shownTick = tick;
      return this.blend(this.older, 0);
    }
    if (tick > newest) this.starved++;
    if (size === 1 || tick === newest) {
      this.load(0, 0);
      this.mode = tick === newest ? 'interpolated' : 'held';
      if (tick > newest) this.held++;
      this.shownTick = newest;
      return this.blend(this.older, 0);
    }
    const limit = newest + this.maxExtrapolationTicks;
    const shown = Math.min(tick, limit);
    if (tick > limit) this.held++;
    this.load(1, 0);
    const t0 = history.tickAt(1);
    this.mode = tick > limit ? 'held' : 'extrapolated';
    this.shownTick = shown;
    return this.blend(this.newer, (shown - t0) / (newest - t0));
  }

  /** The older state blended toward `to` at `fraction`, into the sampler's one output object. */
  private blend(to: T, fraction: number): T {
    const out = this.interpolator.interpolate(this.older, to, fraction, this.out as T);
    this.out = out;
    return out;
  }

  /** Dequantizes states k (older) and j (newer) into the scratch values, unless they are there. */
  private load(k: number, j: number): void {
    const history = this.history!;
    const layout = history.layout;
    const tk = history.tickAt(k);
    const tj = history.tickAt(j);
    if (tk !== this.olderTick) {
      if (tk === this.newerTick) {
        // The newer became the older: swap instead of dequantizing again.
        const swap = this.older;
        this.older = this.newer;
        this.newer = swap;
        this.olderTick = tk;
        this.newerTick = -1;
      } else {
        this.older = layout.dequantize(history.stateAt(k), this.older) as T;
        this.olderTick = tk;
      }
    }
    if (tj !== this.newerTick && j !== k) {
      this.newer = layout.dequantize(history.stateAt(j), this.newer) as T;
      this.newerTick = tj;
    }
  }
}
