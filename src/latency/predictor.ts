import { type Codec, compile } from '../schema/codec.js';
import type { Schema } from '../schema/schema.js';
import { ReadStream } from '../serialize/read-stream.js';
import { compileInterpolator, type Interpolator } from './interpolation.js';
import { compileQuantizer, type Quantizer } from './quantizer.js';
import { compileVisualError, type VisualError } from './visual-error.js';

/**
 * Client-side prediction of the local player's entity with server reconciliation: each predicted
 * tick runs the game's own `simulate` on the recorded input; when the server's state for an input
 * tick differs from what was predicted there, the prediction restarts from the server's state and
 * replays the inputs recorded since. Every state kept is quantized through the entity's schema (as
 * if sent and received), so a deterministic simulation matches the server's received state
 * exactly. Corrections do not move what is shown at once: the difference becomes a visual error,
 * kept apart from the simulation, that decays exponentially with time constant `smoothingSeconds`.
 */
export interface PredictorOptions<S, I> {
  /** The predicted entity's schema (a `t.object`): quantization, equality and per-kind smoothing. */
  schema: Schema<S>;
  /**
   * The game's deterministic step: the state after applying `input` at `tick` to `state`. It must
   * not modify `state` and must return a new object.
   */
  simulate: (state: S, input: I, tick: number) => S;
  /** Ticks per second (the decay of the visual error is timed in ticks). */
  tickRate: number;
  /** Predicted states and inputs kept for replay (default 128). */
  historyTicks?: number;
  /** Time constant of the visual error's exponential decay, seconds (default 0.1; 0: no smoothing). */
  smoothingSeconds?: number;
  /** A correction larger than this (over the float lanes) snaps instead of smoothing (default never). */
  snapDistance?: number;
  /**
   * Replaces the comparison of a kept prediction with the server's (quantized) state; by default
   * the two are equal when their encodings through `schema` are.
   */
  equals?: (predicted: S, server: S) => boolean;
  /**
   * The input's schema: when given, each input is quantized through it (as the server receives it)
   * and copied, so the caller may reuse its input object. Without it inputs are kept by reference.
   */
  inputSchema?: Schema<I>;
}

export interface PredictorStats {
  /** Ticks predicted (ticks filled across a gap included). */
  predictions: number;
  /** Server states compared with a kept prediction. */
  reconciliations: number;
  /** Of those, the ones that differed (a rewind and replay followed). */
  mispredictions: number;
  /** Ticks simulated again during replays. */
  replayedTicks: number;
  /** Server states ignored because an equal or newer input tick was already reconciled. */
  staleReconciles: number;
  /** Reconciles whose input tick was no longer held (older than the history, or newer than predicted). */
  historyMisses: number;
  /** Corrections shown at once because they exceeded snapDistance. */
  snaps: number;
  /** How far the last correction moved the newest prediction (Euclidean over the float lanes). */
  lastCorrection: number;
  maxCorrection: number;
  /** The visual error's size (float lanes) in the last `shown()`: 0 once decayed. */
  visualError: number;
}

/** Below this weight the visual error is dropped (e^-6.9: after about 7 time constants). */
const ERROR_CUTOFF = 1e-3;
const MAX_HISTORY = 1 << 16;

function check(what: string, value: number, ok: boolean): number {
  if (!ok) throw new RangeError(`Predictor: ${what}, got ${value}`);
  return value;
}

export class Predictor<S, I> {
  private readonly counters: PredictorStats = {
    predictions: 0,
    reconciliations: 0,
    mispredictions: 0,
    replayedTicks: 0,
    staleReconciles: 0,
    historyMisses: 0,
    snaps: 0,
    lastCorrection: 0,
    maxCorrection: 0,
    visualError: 0,
  };
  private readonly simulate: (state: S, input: I, tick: number) => S;
  private readonly equals: ((predicted: S, server: S) => boolean) | undefined;
  private readonly codec: Codec<S>;
  private readonly quantize: Quantizer<S>;
  private readonly quantizeInput: Quantizer<I> | undefined;
  private readonly reader = new ReadStream();
  private readonly interpolator: Interpolator<S>;
  private readonly visual: VisualError<S>;
  private readonly capacity: number;
  /** Predicted states and inputs kept; also the longest gap `predict` fills. */
  readonly historyTicks: number;
  private readonly tauTicks: number;
  private readonly snapDistance: number;
  /** States after each tick's input, by tick modulo capacity (the reset state at its tick). */
  private readonly states: (S | undefined)[];
  private readonly inputs: (I | undefined)[];
  /** Held: states for [oldest, newest], inputs for (oldest, newest]. -1: not reset yet. */
  private newest = -1;
  private oldest = -1;
  private reconciled = -1;
  private serverBytes = new Uint8Array(64);
  private serverScratch: S | undefined;
  private before: S | undefined;
  private raw: S | undefined;
  private out: S | undefined;
  /** The moment of the last `shown()`: its tick and alpha (tick -1: none since the reset). */
  private shownTick = -1;
  private shownAlpha = 0;
  private readonly error: Float64Array;
  private errorActive = false;
  private errorSize = 0;
  /** When the error was captured, in ticks (shown tick − 1 + alpha), the decay's origin. */
  private errorTime = 0;

  constructor(options: PredictorOptions<S, I>) {
    const { schema, simulate, tickRate, historyTicks = 128, smoothingSeconds = 0.1 } = options;
    check('tickRate must be finite and > 0', tickRate, tickRate > 0 && tickRate < Number.POSITIVE_INFINITY);
    check(
      `historyTicks must be an integer in [1, ${MAX_HISTORY}]`,
      historyTicks,
      Number.isInteger(historyTicks) && historyTicks >= 1 && historyTicks <= MAX_HISTORY,
    );
    check(
      'smoothingSeconds must be finite and >= 0',
      smoothingSeconds,
      smoothingSeconds >= 0 && smoothingSeconds < Number.POSITIVE_INFINITY,
    );
    const snapDistance = options.snapDistance ?? Number.POSITIVE_INFINITY;
    check('snapDistance must be > 0', snapDistance, snapDistance > 0);
    if (typeof simulate !== 'function') throw new RangeError('Predictor: simulate must be a function');
    this.simulate = simulate;
    this.equals = options.equals;
    this.codec = compile(schema);
    this.quantize = compileQuantizer(schema);
    this.quantizeInput =
      options.inputSchema === undefined ? undefined : compileQuantizer(options.inputSchema);
    this.interpolator = compileInterpolator(schema);
    this.visual = compileVisualError(schema);
    this.error = new Float64Array(this.visual.lanes);
    this.capacity = historyTicks + 1;
    this.historyTicks = historyTicks;
    this.states = new Array(this.capacity).fill(undefined);
    this.inputs = new Array(this.capacity).fill(undefined);
    this.tauTicks = smoothingSeconds * tickRate;
    this.snapDistance = snapDistance;
  }

  /** What the predictor has counted (live: read it, copy it to keep a snapshot). */
  stats(): Readonly<PredictorStats> {
    return this.counters;
  }

  /** The newest predicted tick (-1 before `reset`). */
  get tick(): number {
    return this.newest;
  }

  /** The newest predicted state (owned by the predictor: read it, do not keep or modify it). */
  get state(): S {
    this.started('state');
    return this.states[this.newest % this.capacity] as S;
  }

  /** Starts over from an authoritative `state` at `tick`: history, visual error and the reconcile mark are cleared. */
  reset(state: S, tick: number): void {
    check('reset tick must be a non-negative safe integer', tick, Number.isSafeInteger(tick) && tick >= 0);
    this.states[tick % this.capacity] = this.quantize(state, this.states[tick % this.capacity]);
    this.newest = this.oldest = this.reconciled = tick;
    this.shownTick = -1;
    this.errorActive = false;
    this.counters.visualError = 0;
  }

  /**
   * Records `input` for `tick` and predicts the state after it (returned; owned by the predictor).
   * `tick` must follow the newest; a gap of up to historyTicks is filled with the previous input
   * (as the input sender repeats it), the first input standing in when there is none yet.
   */
  predict(tick: number, input: I): S {
    this.started('predict');
    const gap = tick - this.newest;
    check(
      `predict tick must be an integer after ${this.newest} by at most ${this.capacity - 1}`,
      tick,
      Number.isSafeInteger(tick) && gap >= 1 && gap < this.capacity,
    );
    const previous = this.newest > this.oldest ? this.inputs[this.newest % this.capacity] : undefined;
    for (let t = this.newest + 1; t <= tick; t++) {
      const slot = t % this.capacity;
      const given = t === tick || previous === undefined ? input : (previous as I);
      this.inputs[slot] =
        this.quantizeInput === undefined ? given : this.quantizeInput(given, this.inputs[slot]);
      this.step(t);
      this.newest = t;
      this.oldest = Math.max(this.oldest, t - this.capacity + 1);
      this.counters.predictions++;
    }
    return this.states[tick % this.capacity] as S;
  }

  /**
   * The server's `serverState` after it applied input `inputTick`. When it differs from the
   * prediction kept for that tick (or the tick is no longer held), the prediction restarts from it
   * and replays the inputs recorded after `inputTick`; the change of what is shown becomes a
   * decaying visual error. An input tick older than one already reconciled is ignored. Returns
   * whether the prediction was corrected.
   */
  reconcile(serverState: S, inputTick: number): boolean {
    this.started('reconcile');
    check(
      'reconcile inputTick must be a non-negative safe integer',
      inputTick,
      Number.isSafeInteger(inputTick) && inputTick >= 0,
    );
    const stats = this.counters;
    if (inputTick < this.reconciled) {
      stats.staleReconciles++;
      return false;
    }
    this.reconciled = inputTick;
    const server = this.codec.encode(serverState);
    if (this.serverBytes.length < server.length) this.serverBytes = new Uint8Array(server.length * 2);
    this.serverBytes.set(server);
    const serverLength = server.length;
    const held = inputTick >= this.oldest && inputTick <= this.newest;
    if (held) {
      stats.reconciliations++;
      if (this.matches(this.states[inputTick % this.capacity] as S, serverLength)) return false;
    } else stats.historyMisses++;
    stats.mispredictions++;
    const newest = this.newest;
    this.before = this.quantize(this.states[newest % this.capacity] as S, this.before);
    // Rewind: the server's state takes the tick's slot (or, beyond the history, the oldest held).
    const base = inputTick > newest ? inputTick : Math.max(inputTick, this.oldest);
    const slot = base % this.capacity;
    this.states[slot] = this.readServer(serverLength, this.states[slot]);
    if (inputTick > newest) {
      // The server is ahead of every prediction: adopt its state, nothing to replay.
      this.newest = this.oldest = inputTick;
    }
    for (let t = base + 1; t <= this.newest; t++) this.step(t);
    stats.replayedTicks += this.newest - base;
    const correction = this.visual.distance(this.before, this.states[this.newest % this.capacity] as S);
    stats.lastCorrection = correction;
    if (correction > stats.maxCorrection) stats.maxCorrection = correction;
    this.captureError();
    return true;
  }

  /**
   * What to display: the newest prediction blended from the previous one by `alpha` (0..1, the
   * render time's fraction of the tick) plus the decaying visual error. Time for the decay is
   * (tick − 1 + alpha) in ticks, so it advances with each predicted tick and with alpha between.
   * The result is one object reused by every call.
   */
  shown(alpha = 1): S {
    this.started('shown');
    check('shown alpha must be in [0, 1]', alpha, alpha >= 0 && alpha <= 1);
    const t = this.newest;
    const to = this.states[t % this.capacity] as S;
    const from = t - 1 >= this.oldest ? (this.states[(t - 1) % this.capacity] as S) : to;
    const out = this.interpolator.interpolate(from, to, alpha, this.out as S);
    this.out = out;
    this.shownTick = t;
    this.shownAlpha = alpha;
    this.counters.visualError = 0;
    if (this.errorActive) {
      const weight = Math.exp(-Math.max(0, t - 1 + alpha - this.errorTime) / this.tauTicks);
      if (weight < ERROR_CUTOFF) this.errorActive = false;
      else {
        this.visual.apply(out, this.error, weight);
        this.counters.visualError = this.errorSize * weight;
      }
    }
    return out;
  }

  /** After a correction: the last shown value minus what the new history shows at that moment. */
  private captureError(): void {
    const t = this.shownTick;
    if (t < this.oldest || t > this.newest || this.out === undefined || this.tauTicks === 0) {
      this.errorActive = false;
      return;
    }
    const to = this.states[t % this.capacity] as S;
    const from = t - 1 >= this.oldest ? (this.states[(t - 1) % this.capacity] as S) : to;
    this.raw = this.interpolator.interpolate(from, to, this.shownAlpha, this.raw as S);
    const size = this.visual.capture(this.out, this.raw, this.error);
    if (size > this.snapDistance) {
      this.counters.snaps++;
      this.errorActive = false;
      return;
    }
    this.errorActive = true;
    this.errorSize = size;
    this.errorTime = t - 1 + this.shownAlpha;
  }

  /** The state after tick `t`'s input, from the state at t − 1, quantized into t's slot. */
  private step(t: number): void {
    const previous = this.states[(t - 1) % this.capacity] as S;
    const next = this.simulate(previous, this.inputs[t % this.capacity] as I, t);
    if (next === previous)
      throw new RangeError('Predictor: simulate must return a new state, not modify its input');
    const slot = t % this.capacity;
    this.states[slot] = this.quantize(next, this.states[slot]);
  }

  /** Whether the kept prediction equals the server's state (in serverBytes). */
  private matches(predicted: S, serverLength: number): boolean {
    if (this.equals !== undefined) {
      this.serverScratch = this.readServer(serverLength, this.serverScratch);
      return this.equals(predicted, this.serverScratch);
    }
    const mine = this.codec.encode(predicted);
    if (mine.length !== serverLength) return false;
    const theirs = this.serverBytes;
    for (let i = 0; i < serverLength; i++) if (mine[i] !== theirs[i]) return false;
    return true;
  }

  private readServer(length: number, target: S | undefined): S {
    this.reader.reset(this.serverBytes, 0, length);
    const value = this.codec.read(this.reader, target);
    // Bytes the codec has just written always read back; anything else is a bug here.
    if (value === null) throw new Error(`Predictor: a state did not read back: ${this.reader.error}`);
    return value;
  }

  private started(what: string): void {
    if (this.newest < 0) throw new RangeError(`Predictor: ${what} before reset()`);
  }
}
