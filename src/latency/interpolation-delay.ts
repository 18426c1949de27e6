import { checkFinite, checkNonNegative, checkPositive } from '../replication/check-argument.js';
import { checkTime, NO_TIME_YET } from '../time/check-time.js';
import { interpolationDelayTicks } from './ghost-sampler.js';

/**
 * The client's render delay for remote entities, adapted to the link: how far behind the newest
 * snapshot to show them so that the next snapshot is (nearly always) there before it is needed.
 *
 * Rule: target = packets × interval (Fiedler's, 3 packet intervals) + jitterMultiple × jitter +
 * an allowance for loss: the extra intervals that make a run of lost snapshots longer than the
 * delay rarer than `starvationTarget` (with loss rate p, runs of n happen at about p^n per snapshot).
 * `ticks` follows the target at a bounded rate, growing faster than it shrinks and always slower
 * than time, so the render tick (`renderTick(now)`, or any clock minus `ticks`) never goes back.
 *
 * Measures, from each new snapshot's arrival time and server tick: the packet interval (a smoothed
 * tick step, gaps excluded), the loss rate (gaps in the ticks), and the jitter (the smoothed change
 * of the transit time between consecutive snapshots, RFC 3550's, rising fast and decaying slowly
 * so a burst is answered at once).
 */

export interface InterpolationDelayOptions {
  /** The server's ticks per second. */
  tickRate: number;
  /** The server's snapshot interval in ticks (default: measured from the ticks received). */
  packetIntervalTicks?: number;
  /** Packet intervals of delay on a perfect link (default 3: Fiedler's rule). */
  packets?: number;
  /** Multiples of the measured jitter added (default 2). */
  jitterMultiple?: number;
  /** How rare a run of losses outlasting the delay may be, per snapshot (default 0.001). */
  starvationTarget?: number;
  /** Bounds of `ticks` (default 0 and half a second of ticks). */
  minTicks?: number;
  maxTicks?: number;
  /** Fastest growth and shrink of `ticks`, in ticks per tick of time (defaults 0.5 and 0.1; growth < 1). */
  growRate?: number;
  shrinkRate?: number;
  /** Snapshots the arrival baseline is the best of (default 64). */
  windowSnapshots?: number;
}

export interface InterpolationDelayStats {
  /** Snapshots taken, lost (gaps in their ticks), and ignored (not newer than the newest). */
  snapshots: number;
  lost: number;
  late: number;
  intervalTicks: number;
  jitterTicks: number;
  lossRate: number;
  /** Where `ticks` is heading, and where it is. */
  targetTicks: number;
  ticks: number;
  /** The newest snapshot's tick minus the last render tick (below 0: starved); NaN before any. */
  depthTicks: number;
  /** The least depth seen by renderTick. */
  minDepthTicks: number;
  /** renderTick calls, and those past the newest snapshot (the buffer ran dry). */
  frames: number;
  starvedFrames: number;
}

const JITTER_RISE = 1 / 4;
const JITTER_DECAY = 1 / 32;
const INTERVAL_GAIN = 1 / 16;
const LOSS_GAIN = 1 / 64;
/** Snapshots after a reset during which the delay may drop to its target at once. */
const SETTLING_SNAPSHOTS = 16;

export class InterpolationDelay {
  readonly tickRate: number;
  readonly packets: number;
  readonly jitterMultiple: number;
  readonly starvationTarget: number;
  readonly minTicks: number;
  readonly maxTicks: number;
  readonly growRate: number;
  readonly shrinkRate: number;
  private readonly fixedInterval: number;
  private readonly tickSeconds: number;
  private current: number;
  private target: number;
  private interval: number;
  private jitter = 0;
  private loss = 0;
  private newest = -1;
  private lastArrival = Number.NaN;
  private last = NO_TIME_YET;
  private lastUpdate = Number.NaN;
  /** Per snapshot in the window: its server tick minus its arrival time in ticks. */
  private readonly bases: Float64Array;
  private baseCount = 0;
  private baseNext = 0;
  private base = Number.NaN;
  private lastRender = Number.NEGATIVE_INFINITY;
  private rendered = false;
  private counts = { snapshots: 0, lost: 0, late: 0, frames: 0, starvedFrames: 0 };
  private depth = Number.NaN;
  private minDepth = Number.POSITIVE_INFINITY;

  constructor(options: InterpolationDelayOptions) {
    const where = 'InterpolationDelay';
    this.tickRate = checkPositive(where, 'tickRate', options.tickRate);
    this.tickSeconds = 1 / this.tickRate;
    this.fixedInterval =
      options.packetIntervalTicks === undefined
        ? Number.NaN
        : checkPositive(where, 'packetIntervalTicks', options.packetIntervalTicks);
    this.packets = checkPositive(where, 'packets', options.packets ?? 3);
    this.jitterMultiple = checkNonNegative(where, 'jitterMultiple', options.jitterMultiple ?? 2);
    const target = options.starvationTarget ?? 0.001;
    if (!(target > 0 && target < 1))
      throw new RangeError(`${where}: starvationTarget must be in (0, 1), got ${target}`);
    this.starvationTarget = target;
    this.minTicks = checkNonNegative(where, 'minTicks', options.minTicks ?? 0);
    this.maxTicks = checkPositive(where, 'maxTicks', options.maxTicks ?? this.tickRate / 2);
    if (this.maxTicks < this.minTicks)
      throw new RangeError(`${where}: maxTicks (${this.maxTicks}) is below minTicks (${this.minTicks})`);
    this.growRate = checkPositive(where, 'growRate', options.growRate ?? 0.5);
    if (this.growRate >= 1)
      throw new RangeError(
        `${where}: growRate must be < 1 (the render tick would go back), got ${this.growRate}`,
      );
    this.shrinkRate = checkPositive(where, 'shrinkRate', options.shrinkRate ?? 0.1);
    const window = options.windowSnapshots ?? 64;
    if (!Number.isInteger(window) || window < 1 || window > 4096)
      throw new RangeError(`${where}: windowSnapshots must be an integer in [1, 4096], got ${window}`);
    this.bases = new Float64Array(window);
    this.interval = Number.isNaN(this.fixedInterval) ? 1 : this.fixedInterval;
    this.target = this.clamp(interpolationDelayTicks(this.interval, this.packets));
    this.current = this.target;
  }

  /** The render delay in ticks, behind the newest snapshot as it arrives on a jitter-free link. */
  get ticks(): number {
    return this.current;
  }

  /** The delay `ticks` is moving toward. */
  get targetTicks(): number {
    return this.target;
  }

  /** The packet interval in ticks (the option, or the measure; 1 before two snapshots). */
  get intervalTicks(): number {
    return this.interval;
  }

  /**
   * Whether the delay can be placed: a snapshot arrived (two without `packetIntervalTicks`, the
   * interval being measured). Until then renderTick is NaN: a delay placed on a guessed interval
   * would have to grow right away.
   */
  get known(): boolean {
    return Number.isNaN(this.fixedInterval) ? this.counts.snapshots >= 2 : this.counts.snapshots >= 1;
  }

  /** The newest snapshot's server tick (-1 before any). */
  get newestTick(): number {
    return this.newest;
  }

  /**
   * A snapshot was applied: `serverTick` (ClientMirror.newestTick when it changes) arrived at local
   * time `now` (monotonic seconds). Ticks not newer than the newest are counted as late and ignored.
   */
  onSnapshot(now: number, serverTick: number): void {
    this.last = checkTime('InterpolationDelay.onSnapshot', now, this.last);
    checkFinite('InterpolationDelay.onSnapshot', 'serverTick', serverTick);
    if (serverTick <= this.newest) {
      this.counts.late++;
      return;
    }
    this.counts.snapshots++;
    const nowTicks = now / this.tickSeconds;
    if (this.newest >= 0) {
      const step = serverTick - this.newest;
      // Interval: a step not much longer than the estimate is one interval; longer ones are gaps.
      if (Number.isNaN(this.fixedInterval)) {
        // Losses only lengthen steps, so a shorter step is believed at once (the first steps after
        // connecting are often long); a longer one slowly.
        if (this.counts.snapshots === 2 || step < this.interval) this.interval = step;
        else if (step < this.interval * 1.5) this.interval += (step - this.interval) * INTERVAL_GAIN;
      }
      const lost = Math.max(0, Math.round(step / this.interval) - 1);
      this.counts.lost += lost;
      // Loss: `lost` misses then a hit, each an exponential-average step toward 1 or 0.
      this.loss = (1 - (1 - this.loss) * (1 - LOSS_GAIN) ** lost) * (1 - LOSS_GAIN);
      const change = Math.abs(nowTicks - this.lastArrival - step);
      this.jitter += (change - this.jitter) * (change > this.jitter ? JITTER_RISE : JITTER_DECAY);
    }
    this.newest = serverTick;
    this.lastArrival = nowTicks;
    this.bases[this.baseNext] = serverTick - nowTicks;
    this.baseNext = (this.baseNext + 1) % this.bases.length;
    if (this.baseCount < this.bases.length) this.baseCount++;
    let best = Number.NEGATIVE_INFINITY;
    for (let i = 0; i < this.baseCount; i++) if (this.bases[i] > best) best = this.bases[i];
    this.base = best;
    this.target = this.clamp(this.rule());
    // Until something is rendered the delay may be placed, not steered.
    if (!this.rendered) this.current = this.target;
  }

  /** Moves `ticks` toward the target for the time passed since the last update; returns it. */
  update(now: number): number {
    this.last = checkTime('InterpolationDelay.update', now, this.last);
    if (!Number.isNaN(this.lastUpdate)) {
      const elapsed = (now - this.lastUpdate) / this.tickSeconds;
      const error = this.target - this.current;
      // The first snapshots after connecting come unevenly (a long first step): over them a
      // smaller target is taken at once, which only moves the render tick forward.
      const settling = this.counts.snapshots < SETTLING_SNAPSHOTS;
      this.current +=
        error > 0
          ? Math.min(error, elapsed * this.growRate)
          : settling
            ? error
            : Math.max(error, -elapsed * this.shrinkRate);
    }
    this.lastUpdate = now;
    return this.current;
  }

  /**
   * The tick to sample remote entities at, at local time `now`: the newest tick a snapshot sent
   * with the least delay seen lately would carry, minus `ticks` (updated to `now`). Never below
   * the last one returned. NaN until `known`. Counts buffer depth and starvation.
   */
  renderTick(now: number): number {
    this.update(now);
    if (!this.known) return Number.NaN;
    this.rendered = true;
    const tick = Math.max(this.lastRender, this.base + now / this.tickSeconds - this.current);
    this.lastRender = tick;
    this.depth = this.newest - tick;
    if (this.depth < this.minDepth) this.minDepth = this.depth;
    this.counts.frames++;
    if (tick > this.newest) this.counts.starvedFrames++;
    return tick;
  }

  /** Forgets the link (a new connection): the delay starts again from the rule. */
  reset(): void {
    this.interval = Number.isNaN(this.fixedInterval) ? 1 : this.fixedInterval;
    this.jitter = this.loss = 0;
    this.newest = -1;
    this.lastArrival = this.lastUpdate = this.base = this.depth = Number.NaN;
    this.baseCount = this.baseNext = 0;
    this.lastRender = Number.NEGATIVE_INFINITY;
    this.rendered = false;
    this.minDepth = Number.POSITIVE_INFINITY;
    this.counts = { snapshots: 0, lost: 0, late: 0, frames: 0, starvedFrames: 0 };
    this.target = this.current = this.clamp(interpolationDelayTicks(this.interval, this.packets));
  }

  /** The delay's figures and counters (a snapshot, taken at the call). */
  stats(): Readonly<InterpolationDelayStats> {
    return {
      ...this.counts,
      intervalTicks: this.interval,
      jitterTicks: this.jitter,
      lossRate: this.loss,
      targetTicks: this.target,
      ticks: this.current,
      depthTicks: this.depth,
      minDepthTicks: this.minDepth,
    };
  }

  /** The delay the link asks for, before clamping. */
  private rule(): number {
    const interval = this.interval;
    // Intervals of delay that make a run of losses outlasting them rarer than the target.
    const runs = this.loss > 0 ? Math.log(this.starvationTarget) / Math.log(this.loss) : 0;
    const lossAllowance = Math.max(0, runs - this.packets) * interval;
    return interval * this.packets + this.jitterMultiple * this.jitter + lossAllowance;
  }

  private clamp(ticks: number): number {
    return Math.min(this.maxTicks, Math.max(this.minTicks, ticks));
  }
}
