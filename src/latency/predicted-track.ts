import type { AnyEntityType } from '../replication/entity-type.js';
import { compileInterpolator, type Interpolator } from './interpolation.js';
import type { PredictedTypeOptions } from './predicted-world.js';
import { compileQuantizer, type Quantizer } from './quantizer.js';
import { compileVisualError, type VisualError } from './visual-error.js';

/** What a type's tracks share, compiled once: its interpolator, quantizer and visual error. */
export interface TrackType {
  readonly interpolator: Interpolator<unknown>;
  readonly quantize: Quantizer<unknown>;
  readonly visual: VisualError<unknown>;
}

export function compileTrackType(type: AnyEntityType): TrackType {
  return {
    interpolator: compileInterpolator(type.layout.schema),
    quantize: compileQuantizer(type.layout.schema),
    visual: compileVisualError(type.layout.schema),
  };
}

/**
 * One entity predicted by a PredictedWorld: its states by input tick in a ring (null: gone at
 * that tick), what was compared with the server, and its visual error. @internal
 */
export class Track {
  /** States by tick modulo the history; `ticks` says which tick a slot holds. */
  readonly states: (unknown | null)[];
  readonly ticks: Int32Array;
  /** The first tick held. */
  first: number;
  /** The ghost tick last compared (-1: none). */
  serverTick = -1;
  /** A server state to restore at `pendingTick` in this frame's rollback (-1: none). */
  pending: unknown = undefined;
  pendingTick = -1;
  /** The spawn's claim while it waits for its verdict (inputTick × 16 + key), else -1. */
  claim = -1;
  readonly error: Float64Array;
  /** When the error was captured (clock position, ticks) and its weight then (0: none). */
  errorAt = 0;
  errorWeight = 0;
  /** Left range: shown interpolated, the error blended out; `shownBefore` is what was shown last. */
  leaving = false;
  shownBefore: unknown = undefined;
  out: unknown = undefined;
  readonly interpolator: Interpolator<unknown>;
  readonly quantize: Quantizer<unknown>;
  readonly visual: VisualError<unknown>;

  constructor(
    /** The ghost id, or a negative local id while a spawn waits for its verdict. */
    public id: number,
    readonly type: AnyEntityType,
    readonly spec: PredictedTypeOptions,
    compiled: TrackType,
    private readonly historyTicks: number,
    tick: number,
    state: unknown,
  ) {
    this.states = new Array(historyTicks).fill(undefined);
    this.ticks = new Int32Array(historyTicks).fill(-1);
    this.first = tick;
    this.interpolator = compiled.interpolator;
    this.quantize = compiled.quantize;
    this.visual = compiled.visual;
    this.error = new Float64Array(compiled.visual.lanes);
    this.put(tick, this.quantize(state));
  }

  /** The state after tick `t`'s move, from the one at t − 1 (null stays null: gone). */
  step(t: number): void {
    const previous = this.at(t - 1);
    if (previous === undefined) return;
    let next: unknown = null;
    if (previous !== null) {
      const moved = this.spec.move(previous);
      next = moved === null ? null : this.quantize(moved);
    }
    this.put(t, next);
  }

  put(tick: number, state: unknown): void {
    const slot = tick % this.historyTicks;
    this.states[slot] = state;
    this.ticks[slot] = tick;
    if (tick - this.first >= this.historyTicks) this.first = tick - this.historyTicks + 1;
  }

  /** The state at `tick` (null: gone then; undefined: not held). */
  at(tick: number): unknown | null | undefined {
    if (tick < 0) return undefined;
    const slot = tick % this.historyTicks;
    return this.ticks[slot] === tick ? this.states[slot] : undefined;
  }

  /** Whether two quantized states are the same. */
  same(a: unknown, b: unknown): boolean {
    return this.visual.distance(a, b) === 0 && JSON.stringify(a, plain) === JSON.stringify(b, plain);
  }

  /** `value` copied into this track's output object. */
  copy(value: unknown): unknown {
    this.out = this.quantize(value, this.out as never);
    return this.out;
  }
}

function plain(_key: string, value: unknown): unknown {
  return typeof value === 'bigint' ? value.toString() : value;
}
