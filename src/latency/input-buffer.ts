import { MAX_TICK } from './input-wire.js';

/** What one client's input buffer saw: every input is counted once by what became of it. */
export interface InputBufferStats {
  /** New inputs accepted into the buffer. */
  received: number;
  /** Inputs already held or already consumed (the redundancy of every packet). */
  duplicates: number;
  /** Inputs that arrived after their tick was consumed (as a repeat). */
  late: number;
  /** Inputs beyond the window ahead of the consumption cursor. */
  ahead: number;
  /** New inputs over maxInputsPerSecond. */
  flooded: number;
  /** Inputs the validator refused (replaced by the previous input). */
  refused: number;
  /** take() calls that consumed a tick, and those that repeated the last input for want of one. */
  taken: number;
  starved: number;
  /** Times the cursor was moved to the client's inputs (they were beyond the window). */
  resyncs: number;
  /** The newest depth: input ticks seen past the one consumed last (negative: arriving late). */
  depth: number;
  /** The depth time dilation aims at now (between bufferTicks and maxBufferTicks). */
  target: number;
}

export function zeroInputBufferStats(): InputBufferStats {
  return {
    received: 0,
    duplicates: 0,
    late: 0,
    ahead: 0,
    flooded: 0,
    refused: 0,
    taken: 0,
    starved: 0,
    resyncs: 0,
    depth: 0,
    target: 0,
  };
}

/** Where an offered tick goes: a slot to fill, or one of these (counted). */
export const NOT_NEW = -1;

/**
 * One client's inputs on the server, by input tick, consumed one per server tick from a cursor.
 * Only ticks in [cursor, cursor + window) are accepted; a packet wholly beyond that by more than
 * the window moves the cursor to it (the client's clock jumped), counted as a resync. New inputs
 * spend a token (refilled by each take at maxInputsPerSecond / tickRate) so resyncs cannot be
 * used to flood (the bucket holds two windows: a start and a resync).
 */
export class InputBuffer<T> {
  readonly stats = zeroInputBufferStats();
  /** Per slot, the input held for its tick (undefined when none is: objects come from `spares`). */
  readonly values: (T | undefined)[];
  /**
   * Input objects not held by a slot, reused by the next fill: a client holds only as many as its
   * buffer's depth (plus the last input), not one per slot of the window.
   */
  private readonly spares: T[] = [];
  private readonly ticks: Float64Array;
  private readonly views: Float64Array;
  private readonly refused: Uint8Array;
  /** Per slot, the tick consumed from it with a real input (to tell duplicates from late ones). */
  private readonly consumed: Float64Array;
  private readonly mask: number;
  private started = false;
  private next = 0;
  private newestSeen = -1;
  private tokens: number;
  /** The input last consumed (a real one: a repeat or a refusal keeps it). */
  private last: T | undefined = undefined;
  private lastTick = -1;
  private lastRealTick = -1;
  private lastRealView = Number.NaN;
  /** Takes the first input may still wait for the buffer's depth (see take). */
  private startWaits = 0;
  /** Takes since the last starved one after warm-up, and the least depth over them. */
  private quiet = 0;
  private lowest = Number.POSITIVE_INFINITY;
  /** The newest (server tick, input tick consumed) pair, for the client's report. */
  feedbackServerTick = -1;
  feedbackInputTick = -1;
  /** Whether take() sets the pair (false: the owner reports it, see InputReceiver.report). */
  reportAtTake = true;

  constructor(
    readonly window: number,
    private readonly tokensPerTake: number,
    /** The target's bounds, and the takes (ticks) that set its pace: see adapt(). */
    private readonly minTarget = 2,
    private readonly maxTarget = 2,
    private readonly warmupTakes = 120,
    private readonly quietTakes = 300,
  ) {
    this.stats.target = minTarget;
    let capacity = 1;
    while (capacity < window) capacity *= 2;
    this.mask = capacity - 1;
    this.values = new Array(capacity);
    this.ticks = new Float64Array(capacity).fill(-1);
    this.views = new Float64Array(capacity);
    this.refused = new Uint8Array(capacity);
    this.consumed = new Float64Array(capacity).fill(-1);
    this.tokens = 2 * window;
  }

  /** The input tick the last take consumed (-1 before any). */
  get lastInputTick(): number {
    return this.lastTick;
  }

  /** The view tick of the last take (extrapolated one per tick over repeats; NaN if none). */
  get viewTick(): number {
    return this.lastRealView + (this.lastTick - this.lastRealTick);
  }

  /** A packet carrying ticks [first, last] arrived: starts the cursor, or resyncs it when hopeless. */
  beginPacket(first: number, last: number): void {
    const w = this.window;
    if (!this.started || last < this.next - w || first >= this.next + w) {
      if (this.started) this.stats.resyncs++;
      else this.startWaits = this.stats.target;
      this.started = true;
      this.next = Math.max(first, last - w + 1);
      this.newestSeen = last;
      return;
    }
    if (last > this.newestSeen) this.newestSeen = last;
  }

  /** The slot to fill with the input of `tick`, or NOT_NEW (counted: duplicate, late, ahead, flooded). */
  admit(tick: number): number {
    const slot = tick & this.mask;
    // A cursor stopped at MAX_TICK has taken that tick too.
    if (tick < this.next || (tick === MAX_TICK && this.lastTick === MAX_TICK)) {
      if (this.consumed[slot] === tick) this.stats.duplicates++;
      else this.stats.late++;
      return NOT_NEW;
    }
    if (tick >= this.next + this.window) {
      this.stats.ahead++;
      return NOT_NEW;
    }
    if (this.ticks[slot] === tick) {
      this.stats.duplicates++;
      return NOT_NEW;
    }
    if (this.tokens < 1) {
      this.stats.flooded++;
      return NOT_NEW;
    }
    this.tokens--;
    this.stats.received++;
    return slot;
  }

  /** The object to copy the input of a slot admit returned into: the slot's own, or a spare (undefined: none yet). */
  target(slot: number): T | undefined {
    return this.values[slot] ?? this.spares.pop();
  }

  /** Fills a slot admit returned (the value is already in `values[slot]`). */
  fill(slot: number, tick: number, viewTick: number, refused: boolean): void {
    this.ticks[slot] = tick;
    this.views[slot] = viewTick;
    this.refused[slot] = refused ? 1 : 0;
    if (refused) this.stats.refused++;
  }

  /**
   * Consumes the input of the cursor's tick at `serverTick` and moves the cursor on: the input if
   * held, else the last one repeated (starved). Null before the first input, and while the first
   * waits for the target depth (at most `target` takes).
   */
  take(serverTick: number): T | null {
    if (!this.started) return null;
    this.tokens = Math.min(2 * this.window, this.tokens + this.tokensPerTake);
    // The client leads so that its inputs arrive `target` ticks before they are taken: taking the
    // first on arrival starts at depth 0, starving on the first late packet until dilation catches
    // up, and a movement starved whole leaves the entity unchanged on the server, so no state
    // comes to correct the client's prediction of it (GW_SEED=843557241 in latency-still-world).
    if (this.startWaits > 0) {
      if (this.newestSeen - this.next < this.stats.target) {
        this.startWaits--;
        return null;
      }
      this.startWaits = 0;
    }
    // The cursor stops at the last uint32 tick (a server at the end of the range): past it the
    // last input repeats, and the reports never name a tick the wire cannot carry.
    const tick = this.next;
    if (tick < MAX_TICK) this.next++;
    const slot = tick & this.mask;
    if (this.ticks[slot] === tick) {
      this.ticks[slot] = -1;
      if (this.refused[slot] === 0) {
        // The slot's object becomes the last input, the old last one a spare for the next fill.
        const value = this.values[slot];
        this.values[slot] = undefined;
        if (this.last !== undefined) this.spares.push(this.last);
        this.last = value;
        this.consumed[slot] = tick;
      }
      this.lastRealTick = tick;
      this.lastRealView = this.views[slot];
    } else this.stats.starved++;
    const starved = this.lastRealTick !== tick;
    this.stats.taken++;
    this.lastTick = tick;
    this.stats.depth = this.newestSeen - tick;
    if (this.stats.taken > this.warmupTakes) this.adapt(starved);
    if (this.reportAtTake) {
      this.feedbackServerTick = serverTick;
      this.feedbackInputTick = tick;
    }
    return this.last ?? null;
  }

  /**
   * The adaptive target (Overwatch's buffer follows the link): a tick that found no input raises
   * it by one (its inputs come more unevenly than the buffer covers; a run of such ticks, once);
   * `quietTakes` ticks without
   * one, all with a tick to spare, lower it by one. Only past warm-up: the first ticks starve
   * while the client's clock is placed.
   */
  private adapt(starved: boolean): void {
    const stats = this.stats;
    if (starved) {
      // A run of starved ticks (a stalled client, a clock behind) is one event, not jitter.
      if (stats.target < this.maxTarget && this.quiet > 0) stats.target++;
      this.quiet = 0;
      this.lowest = Number.POSITIVE_INFINITY;
      return;
    }
    if (stats.depth < this.lowest) this.lowest = stats.depth;
    if (++this.quiet < this.quietTakes) return;
    if (this.lowest >= 1 && stats.target > this.minTarget) stats.target--;
    this.quiet = 0;
    this.lowest = Number.POSITIVE_INFINITY;
  }
}
