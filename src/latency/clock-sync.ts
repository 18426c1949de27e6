import { checkFinite, checkNonNegative, checkPositive } from '../replication/check-argument.js';
import { checkTime, NO_TIME_YET } from '../time/check-time.js';
import type { TickClock } from './tick-clock.js';

/** Why ClockSync moved the clock instead of steering it. */
export type ClockJumpReason =
  /** The first estimate: the clock is placed on it. */
  | 'start'
  /** The clock was more than `jumpTicks` from its target (a pause, dropped ticks, a new lead). */
  | 'error'
  /** The server's tick moved against the estimate by more than `jumpTicks` (a restart, a new route). */
  | 'server';

export interface ClockSyncOptions {
  /**
   * Samples the jitter filter keeps (default 128: 6.4 s of 20 Hz snapshots). More settle closer to
   * the least delay (the RTT's minimum, a sum of two delays, needs many); fewer follow a route whose
   * delay grows sooner.
   */
  readonly windowSamples?: number;
  /** Seconds over which a small error is steered away (default 0.5). */
  readonly correctionSeconds?: number;
  /** The largest change of the clock's rate (default 0.1: the rate stays in [0.9, 1.1]). */
  readonly maxRateAdjust?: number;
  /** An error above this many ticks is jumped instead of steered, and reported (default 10). */
  readonly jumpTicks?: number;
  /**
   * Samples in a row that must put the server behind the estimate by more than `jumpTicks` before
   * it is believed (default 3): one late packet looks the same as a server whose tick went back.
   */
  readonly confirmSamples?: number;
  /** Called on each jump, with the clock's position before and after. */
  readonly onJump?: (reason: ClockJumpReason, from: number, to: number) => void;
}

/** What a ClockSync has counted. */
export interface ClockSyncStats {
  /** Jumps made (every reason, the first placement included). */
  readonly jumps: number;
  /** Times the server's tick moved against the estimate by more than `jumpTicks`. */
  readonly serverJumps: number;
  /** Samples taken. */
  readonly samples: number;
}

/**
 * Client-side clock sync: estimates the server's tick from the ticks its packets carry and the
 * round-trip time, and steers a TickClock toward that estimate plus a lead the caller chooses
 * (ahead by RTT/2 + a buffer for prediction, behind for interpolation) by scaling its rate a few
 * percent. It moves the clock at once only when the error exceeds `jumpTicks`, and reports it.
 *
 * Filter: a sample taken at local time t with server tick s says the server's tick at t is at least
 * s + (one-way delay)/tickSeconds. Jitter only ever adds delay (queues), so over a window the sample
 * with the least apparent delay, the largest `s - t/tickSeconds`, is the truest; the one-way delay
 * is taken as half the smallest RTT in the same window. A median would be pulled by how skewed the
 * jitter is and by how long the peer waited before acking; the minimum is not, and it settles within
 * a handful of samples. The window keeps it following a route whose delay grows.
 */
export class ClockSync {
  readonly windowSamples: number;
  readonly correctionSeconds: number;
  readonly maxRateAdjust: number;
  readonly jumpTicks: number;
  readonly confirmSamples: number;
  private readonly clock: TickClock;
  private readonly tickSeconds: number;
  private readonly onJump: ((reason: ClockJumpReason, from: number, to: number) => void) | undefined;
  /** Per sample: the server tick minus the local time in ticks (`s - t/tickSeconds`). */
  private readonly bases: Float64Array;
  /** Per sample: the round-trip time in ticks (Infinity: not measured). */
  private readonly rtts: Float64Array;
  private count = 0;
  private next = 0;
  /** Server tick minus local time in ticks, from the filter (NaN before any sample). */
  private offset = Number.NaN;
  /** Half the window's smallest measured RTT, ticks. */
  private halfRtt = 0;
  /** The window holds a measured RTT. */
  private measured = false;
  private suspects = 0;
  private pending: ClockJumpReason | undefined = 'start';
  /** The window was restarted since the last update: a jump then is reported as 'server'. */
  private serverMoved = false;
  private last = NO_TIME_YET;
  private lastSample = Number.NaN;
  private lastError = 0;
  private jumpCount = 0;
  private serverJumpCount = 0;
  private sampleCount = 0;

  constructor(clock: TickClock, options: ClockSyncOptions = {}) {
    this.clock = clock;
    this.tickSeconds = clock.tickSeconds;
    const window = options.windowSamples ?? 128;
    if (!Number.isInteger(window) || window < 1 || window > 1024)
      throw new RangeError(`ClockSync: windowSamples must be an integer in [1, 1024], got ${window}`);
    this.windowSamples = window;
    this.correctionSeconds = checkPositive(
      'ClockSync',
      'correctionSeconds',
      options.correctionSeconds ?? 0.5,
    );
    const adjust = options.maxRateAdjust ?? 0.1;
    if (!(adjust > 0 && adjust <= 0.5))
      throw new RangeError(`ClockSync: maxRateAdjust must be in (0, 0.5], got ${adjust}`);
    this.maxRateAdjust = adjust;
    this.jumpTicks = checkPositive('ClockSync', 'jumpTicks', options.jumpTicks ?? 10);
    const confirm = options.confirmSamples ?? 3;
    if (!Number.isInteger(confirm) || confirm < 1 || confirm > window)
      throw new RangeError(
        `ClockSync: confirmSamples must be an integer in [1, windowSamples], got ${confirm}`,
      );
    this.confirmSamples = confirm;
    this.onJump = options.onJump;
    this.bases = new Float64Array(window);
    this.rtts = new Float64Array(window);
  }

  /**
   * True once the window holds a sample and a measured RTT: `estimate` and `update` have something
   * to go on. Until then `update` leaves the clock alone (placing it with no delay known would be
   * off by the one-way delay, and jumped again once the RTT comes).
   */
  get synced(): boolean {
    return this.count > 0 && this.measured;
  }

  /** The newest target minus the clock's position, in ticks (0 before the first update). */
  get error(): number {
    return this.lastError;
  }

  /**
   * The one-way delay the filter uses, in ticks: half the window's smallest round trip (0 before a
   * measured RTT). A predicting client leads the server by this plus its input buffer, so that an
   * input reaches the server before the server's tick does.
   */
  get oneWayTicks(): number {
    return this.halfRtt;
  }

  /** What the estimate has counted (a snapshot, taken at the call). */
  stats(): Readonly<ClockSyncStats> {
    return { jumps: this.jumpCount, serverJumps: this.serverJumpCount, samples: this.sampleCount };
  }

  /** The time of the newest sample (NaN before any): how stale the estimate is when packets stop. */
  get lastSampleTime(): number {
    return this.lastSample;
  }

  /**
   * Takes one sample at local time `now` (monotonic seconds): `serverTick`, the tick the server's
   * newest packet carries (ClientMirror.newestTick), and `rttMs`, the newest round-trip sample in ms
   * (the packet layer's `rttSample`; its smoothed `rtt` lags by seconds and biases the estimate).
   * An `rttMs` of 0 means not measured yet (`rttSample` before the first ack): the tick is kept, the
   * RTT is not, so it cannot drag the window's minimum down for the window's whole length.
   */
  addSample(now: number, serverTick: number, rttMs: number): void {
    this.last = checkTime('ClockSync.addSample', now, this.last);
    checkFinite('ClockSync.addSample', 'serverTick', serverTick);
    checkNonNegative('ClockSync.addSample', 'rttMs', rttMs);
    const base = serverTick - now / this.tickSeconds;
    const rtt = rttMs > 0 ? rttMs / 1000 / this.tickSeconds : Number.POSITIVE_INFINITY;
    this.sampleCount++;
    this.lastSample = now;
    if (this.count > 0) {
      const shift = base + (rtt === Number.POSITIVE_INFINITY ? this.halfRtt : rtt / 2) - this.offset;
      if (shift > this.jumpTicks) {
        // Ahead of every sample by more than delay could explain: the server's tick jumped forward.
        this.restart();
      } else if (shift < -this.jumpTicks) {
        // Behind: a late packet, or a server that went back. Believe it only when it repeats.
        if (++this.suspects < this.confirmSamples) return;
        this.restart();
      } else this.suspects = 0;
    }
    this.bases[this.next] = base;
    this.rtts[this.next] = rtt;
    this.next = (this.next + 1) % this.windowSamples;
    if (this.count < this.windowSamples) this.count++;
    this.filter();
  }

  /**
   * A round trip measured (`rttMs` > 0, as for addSample) while no newer tick came: a client's
   * first snapshot arrives before its first round trip, and an idle server sends no other. The
   * newest sample's tick stands (the server's tick has moved on with time since), so the round
   * trip joins the window with it and the clock can be placed. Ignored before any sample.
   */
  addRtt(now: number, rttMs: number): void {
    this.last = checkTime('ClockSync.addRtt', now, this.last);
    checkNonNegative('ClockSync.addRtt', 'rttMs', rttMs);
    if (this.count === 0 || rttMs === 0) return;
    const newest = (this.next + this.windowSamples - 1) % this.windowSamples;
    this.bases[this.next] = this.bases[newest];
    this.rtts[this.next] = rttMs / 1000 / this.tickSeconds;
    this.next = (this.next + 1) % this.windowSamples;
    if (this.count < this.windowSamples) this.count++;
    this.filter();
  }

  /** The estimated server tick at local time `now`, fractional (throws before the first sample). */
  estimate(now: number): number {
    if (!this.synced) throw new RangeError('ClockSync.estimate: no sample with an RTT yet (see synced)');
    checkFinite('ClockSync.estimate', 'now', now);
    return this.offset + now / this.tickSeconds;
  }

  /**
   * Steers the clock toward `estimate(now) + leadTicks`. Call it once a frame right after
   * `clock.advance(now)`, with the same `now`. Below `jumpTicks` of error it sets the clock's rate
   * to remove the error over `correctionSeconds` (bounded by `maxRateAdjust`); above, it jumps and
   * reports. Does nothing until `synced` or while the clock is paused.
   */
  update(now: number, leadTicks = 0): void {
    this.last = checkTime('ClockSync.update', now, this.last);
    checkFinite('ClockSync.update', 'leadTicks', leadTicks);
    if (!this.synced || this.clock.paused) return;
    const target = this.offset + now / this.tickSeconds + leadTicks;
    const from = this.clock.position;
    const error = target - from;
    this.lastError = error;
    const large = Math.abs(error) > this.jumpTicks;
    const reason = this.pending ?? (large ? (this.serverMoved ? 'server' : 'error') : undefined);
    this.serverMoved = false;
    if (reason !== undefined) {
      this.pending = undefined;
      this.clock.jump(target);
      this.clock.rate = 1;
      this.jumpCount++;
      this.lastError = 0;
      this.onJump?.(reason, from, target);
      return;
    }
    const adjust = (error * this.tickSeconds) / this.correctionSeconds;
    const bound = this.maxRateAdjust;
    this.clock.rate = 1 + Math.min(bound, Math.max(-bound, adjust));
  }

  /** Forgets every sample (a new connection): the next update places the clock as at the start. */
  reset(): void {
    this.count = this.next = this.suspects = 0;
    this.offset = Number.NaN;
    this.measured = false;
    this.pending = 'start';
    this.serverMoved = false;
    this.clock.rate = 1;
  }

  private restart(): void {
    this.serverJumpCount++;
    this.count = this.next = this.suspects = 0;
    this.serverMoved = true;
  }

  /** The offset from the window: the least-delayed sample plus half the smallest RTT. */
  private filter(): void {
    let base = Number.NEGATIVE_INFINITY;
    let rtt = Number.POSITIVE_INFINITY;
    for (let i = 0; i < this.count; i++) {
      if (this.bases[i] > base) base = this.bases[i];
      if (this.rtts[i] < rtt) rtt = this.rtts[i];
    }
    this.measured = rtt !== Number.POSITIVE_INFINITY;
    this.halfRtt = this.measured ? rtt / 2 : 0;
    this.offset = base + this.halfRtt;
  }
}
