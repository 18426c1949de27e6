import type { ResolvedLockstepOptions } from './lockstep-options.js';

/** Seconds between the host's turn-length decisions, and between a peer's lateness reports. */
export const ADAPT_INTERVAL = 2;
export const LATENESS_REPORT_INTERVAL = 1;
/** A peer's report older than this is ignored. */
const REPORT_MAX_AGE = 5;
/** Lateness samples kept (the newest), and the share of them a turn must cover. */
const SAMPLES = 128;
const COVERED = 0.9;
/** Slack on top of the measured lateness, ms. */
const MARGIN_MS = 20;

/**
 * When turns are due, and the turn length the host asks for. A turn is due one turn length after
 * the last one ran (at once after a stall: one quick turn, not a burst).
 *
 * The length comes from what it must cover. A list sealed just before turn X - delay + 1 is run at
 * X, so it has delay - 1 turns to reach every peer. Each peer measures how late the others' lists
 * arrive after it sealed its own for the same turn (transit, jitter, the repair of a lost packet,
 * and how far behind the sender's clock runs), and reports the 90th percentile of its last 128 to
 * the host each second. The host asks for the length at which delay - 1 turns cover the worst
 * report plus 20 ms, in steps of 10 ms, and moves only on a clear difference (up by 20 ms and 10%,
 * down by 30 ms and 15%) at most every 2 s. Round trips are not used: the packet layer's include
 * the wait for the other peer's next packet, which grows with the turn itself.
 */
export class TurnTiming {
  turnMs: number;
  nextTurnAt = Number.NEGATIVE_INFINITY;
  private lastDecision = Number.NEGATIVE_INFINITY;
  private readonly reportMs: Float64Array;
  private readonly reportAt: Float64Array;
  private readonly samples = new Float64Array(SAMPLES);
  private readonly sorted = new Float64Array(SAMPLES);
  private sampleCount = 0;

  constructor(
    private readonly options: ResolvedLockstepOptions,
    maxPeers: number,
  ) {
    this.turnMs = options.turnMs;
    this.reportMs = new Float64Array(maxPeers);
    this.reportAt = new Float64Array(maxPeers).fill(Number.NEGATIVE_INFINITY);
  }

  due(now: number): boolean {
    return now >= this.nextTurnAt;
  }

  /** A turn ran at `now`. */
  ran(now: number): void {
    this.nextTurnAt = Math.max(this.nextTurnAt + this.turnMs / 1000, now);
  }

  /** The session starts (or a joiner's first turn): a turn is due at once; adapt after a while. */
  begin(now: number): void {
    this.nextTurnAt = now;
    this.lastDecision = now;
  }

  /** Another peer's list arrived `ms` after this peer sealed its own for the same turn. */
  lateness(ms: number): void {
    this.samples[this.sampleCount++ % SAMPLES] = Math.max(ms, 0);
  }

  /** The lateness a turn must cover by this peer's samples, ms (0 before any). */
  ownLatenessMs(): number {
    const n = Math.min(this.sampleCount, SAMPLES);
    if (n === 0) return 0;
    const sorted = this.sorted.subarray(0, n);
    sorted.set(this.samples.subarray(0, n));
    sorted.sort();
    return sorted[Math.min(n - 1, Math.floor(n * COVERED))];
  }

  report(peer: number, ms: number, now: number): void {
    this.reportMs[peer] = ms;
    this.reportAt[peer] = now;
  }

  /** Whether the host would decide a turn length now (decide is called only then). */
  deciding(now: number): boolean {
    return this.options.adaptTurnMs && now - this.lastDecision >= ADAPT_INTERVAL;
  }

  /** The turn length the host should schedule now, or 0 for no change. */
  decide(now: number, peers: readonly number[]): number {
    if (!this.deciding(now)) return 0;
    let worst = this.ownLatenessMs();
    for (const p of peers)
      if (now - this.reportAt[p] <= REPORT_MAX_AGE && this.reportMs[p] > worst) worst = this.reportMs[p];
    if (this.sampleCount < SAMPLES / 4) return 0;
    this.lastDecision = now;
    const { delay, minTurnMs, maxTurnMs } = this.options;
    const wanted = Math.ceil((worst + MARGIN_MS) / Math.max(1, delay - 1) / 10) * 10;
    const target = Math.min(maxTurnMs, Math.max(minTurnMs, wanted));
    const current = this.turnMs;
    return target - current >= Math.max(20, current * 0.1) || current - target >= Math.max(30, current * 0.15)
      ? target
      : 0;
  }
}
