import { checkFinite, checkPositive } from '../replication/check-argument.js';
import { checkTime, NO_TIME_YET } from '../time/check-time.js';

/** The slowest and fastest rate scale a clock accepts (clock sync stays well inside). */
export const MIN_RATE = 0.5;
export const MAX_RATE = 2;

export interface TickClockOptions {
  /** Simulation steps per second (e.g. 60). */
  readonly tickRate: number;
  /**
   * The most ticks one `advance` may run (default 8). After a long stall (a hidden browser tab, a
   * debugger) running every missed tick would take longer than the stall and never catch up; the
   * excess is dropped instead, and counted in `droppedTicks`.
   */
  readonly maxTicksPerAdvance?: number;
  /** The tick number to start at (default 0): the first simulated tick is `startTick + 1`. */
  readonly startTick?: number;
}

/**
 * A fixed-step simulation driver, the same on server and client. Feed it a monotonic time with
 * `advance(now)`; it answers how many fixed ticks are due and runs `onTick(tick)` for each. `tick` is
 * the number of the newest simulated tick; `alpha` says how far the present lies between `tick` and
 * `tick + 1` (for rendering between the two states). `rate` scales time (clock sync runs a client a
 * few percent faster or slower to converge on the server without jumping).
 */
export class TickClock {
  /** Seconds per tick at rate 1. */
  readonly tickSeconds: number;
  readonly maxTicksPerAdvance: number;
  private current: number;
  /** Simulated seconds not yet spent on a tick, always in [0, tickSeconds). */
  private accumulator = 0;
  private last = NO_TIME_YET;
  private scale = 1;
  private isPaused = false;
  /** Set by resume(): the next advance only re-reads the time, so the pause is not simulated. */
  private rebase = true;
  private stepping = false;
  private dropped = 0;

  constructor(options: TickClockOptions) {
    const tickRate = checkPositive('TickClock', 'tickRate', options.tickRate);
    this.tickSeconds = 1 / tickRate;
    const max = options.maxTicksPerAdvance ?? 8;
    if (!Number.isInteger(max) || max < 1)
      throw new RangeError(`TickClock: maxTicksPerAdvance must be an integer >= 1, got ${max}`);
    this.maxTicksPerAdvance = max;
    this.current = checkInteger('TickClock', 'startTick', options.startTick ?? 0);
  }

  /** The newest simulated tick (during `onTick`, the tick being simulated). */
  get tick(): number {
    return this.current;
  }

  /** How far the present lies from `tick` toward `tick + 1`, in [0, 1). */
  get alpha(): number {
    return this.accumulator / this.tickSeconds;
  }

  /** `tick + alpha`: the clock's continuous position in ticks (what clock sync compares). */
  get position(): number {
    return this.current + this.accumulator / this.tickSeconds;
  }

  /** Ticks skipped by the catch-up bound since the clock was made. */
  get droppedTicks(): number {
    return this.dropped;
  }

  get paused(): boolean {
    return this.isPaused;
  }

  /**
   * The time scale: simulated seconds per real second (1 = real time). Setting it (in [0.5, 2])
   * applies from the next `advance`.
   */
  get rate(): number {
    return this.scale;
  }

  set rate(value: number) {
    if (!(value >= MIN_RATE && value <= MAX_RATE))
      throw new RangeError(`TickClock: rate must be in [${MIN_RATE}, ${MAX_RATE}], got ${value}`);
    this.scale = value;
  }

  /**
   * Moves the clock to `now` (monotonic seconds) and returns how many ticks are due, at most
   * `maxTicksPerAdvance`; `onTick` runs once per tick, in order, with `tick` already set to it.
   * Without `onTick` the due ticks are `tick - n + 1 … tick`. The first call only starts the clock.
   */
  advance(now: number, onTick?: (tick: number) => void): number {
    if (this.stepping) throw new RangeError('TickClock.advance: called from inside onTick');
    const elapsed = checkTime('TickClock.advance', now, this.last) - this.last;
    this.last = now;
    if (this.rebase || this.isPaused) {
      this.rebase = false;
      return 0;
    }
    this.accumulator += elapsed * this.scale;
    let due = Math.floor(this.accumulator / this.tickSeconds);
    if (due === 0) return 0;
    this.accumulator -= due * this.tickSeconds;
    // Rounding can leave the remainder a hair outside [0, tickSeconds); alpha must stay in [0, 1).
    if (this.accumulator < 0) this.accumulator = 0;
    else if (this.accumulator >= this.tickSeconds) this.accumulator = 0;
    if (due > this.maxTicksPerAdvance) {
      this.dropped += due - this.maxTicksPerAdvance;
      due = this.maxTicksPerAdvance;
    }
    if (onTick === undefined) {
      this.current += due;
      return due;
    }
    this.stepping = true;
    try {
      for (let i = 0; i < due; i++) onTick(++this.current);
    } finally {
      this.stepping = false;
    }
    return due;
  }

  /** Stops producing ticks: advances while paused return 0 and their time is not simulated. */
  pause(): void {
    this.isPaused = true;
  }

  /** Produces ticks again, counting time from the next `advance` (the pause is skipped, not replayed). */
  resume(): void {
    if (!this.isPaused) return;
    this.isPaused = false;
    this.rebase = true;
  }

  /**
   * Sets the clock's position (ticks, fractional part becoming `alpha`) without simulating the
   * ticks between: clock sync's answer to a large error. The game sees `tick` change by more than one.
   */
  jump(position: number): void {
    if (this.stepping) throw new RangeError('TickClock.jump: called from inside onTick');
    checkFinite('TickClock.jump', 'position', position);
    const whole = Math.floor(position);
    this.current = whole;
    this.accumulator = (position - whole) * this.tickSeconds;
    if (this.accumulator >= this.tickSeconds) this.accumulator = 0;
  }
}

function checkInteger(where: string, argument: string, value: number): number {
  if (Number.isSafeInteger(value)) return value;
  throw new RangeError(`${where}: ${argument} must be a safe integer, got ${value}`);
}
