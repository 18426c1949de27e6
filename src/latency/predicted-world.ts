import type { ClientMirror } from '../replication/client-mirror.js';
import type { AnyEntityType } from '../replication/entity-type.js';
import type { InputSender } from './input-sender.js';
import { compileTrackType, Track, type TrackType } from './predicted-track.js';

/**
 * The entities a client predicts besides its own: the spawns its inputs make (a projectile shown
 * the tick it is fired, before the server has it) and the ghosts of types predicted near the
 * player. Each is stepped with its type's deterministic `move` on the prediction's timeline (input
 * ticks), every state quantized through its schema as the server's would be. A server state is
 * mapped to the input tick the server had applied then (`inputs.appliedInputTick`); when it
 * differs from what was predicted there, the earliest such tick starts one rollback: every
 * predicted entity goes back to its server state there and is replayed to now. Corrections show as
 * a decaying visual error. A spawn waits for the server's verdict: matched (it becomes that ghost,
 * still predicted) or refused (it goes at once).
 */
export interface PredictedTypeOptions<S = unknown> {
  /** Its state after one tick without input; null: it is gone (the server destroys it). */
  move: (state: S) => S | null;
  /** Predicted when its position is within this many metres of the player's (needs `position`). */
  near?: number;
  position?: (state: S) => readonly [number, number];
}

export interface PredictedWorldOptions {
  mirror: ClientMirror;
  inputs: InputSender<unknown>;
  tickRate: number;
  /** The types that can be predicted, with their move. */
  types: ReadonlyMap<AnyEntityType, PredictedTypeOptions>;
  /** Entities predicted at once at most, spawns included (default 32). */
  maxPredicted?: number;
  /** Ticks of states kept per entity; also how long a spawn waits for its verdict (default 64). */
  historyTicks?: number;
  /** Time constant of a correction's visual error, seconds (default 0.1). */
  smoothingSeconds?: number;
}

export interface PredictedWorldStats {
  /** Entities predicted now (spawns waiting for their verdict included). */
  predicted: number;
  spawnsPredicted: number;
  spawnsMatched: number;
  spawnsRefused: number;
  /** Spawns that had no verdict within historyTicks (removed). */
  spawnsExpired: number;
  /** Server states that differed from the prediction at their tick. */
  mispredictions: number;
  rollbacks: number;
  /** Entity ticks simulated again by rollbacks. */
  resimulatedTicks: number;
  /** Ticks replayed by the last rollback, and the most. */
  lastDepth: number;
  maxDepth: number;
}

const ERROR_CUTOFF = 1e-3;
const LEAVE_FACTOR = 1.15;

export class PredictedWorld {
  private readonly tracks = new Map<number, Track>();
  private readonly claims = new Map<number, Track>();
  private readonly mirror: ClientMirror;
  private readonly inputs: InputSender<unknown>;
  private readonly specs: ReadonlyMap<AnyEntityType, PredictedTypeOptions>;
  private readonly compiled = new Map<AnyEntityType, TrackType>();
  readonly maxPredicted: number;
  readonly historyTicks: number;
  private readonly tauTicks: number;
  /** The newest tick predicted (-1: none yet). */
  private newest = -1;
  private nextLocal = -1;
  private position = 0;
  /** The moment of the last `shown`: its tick and alpha (a correction is measured there). */
  private shownTick = -1;
  private shownAlpha = 1;
  /** Whether any type is predicted near the player (else updateNear has nothing to do). */
  private readonly hasNear: boolean;
  private readonly counters: PredictedWorldStats = {
    predicted: 0,
    spawnsPredicted: 0,
    spawnsMatched: 0,
    spawnsRefused: 0,
    spawnsExpired: 0,
    mispredictions: 0,
    rollbacks: 0,
    resimulatedTicks: 0,
    lastDepth: 0,
    maxDepth: 0,
  };

  constructor(options: PredictedWorldOptions) {
    this.mirror = options.mirror;
    this.inputs = options.inputs;
    this.specs = options.types;
    this.maxPredicted = options.maxPredicted ?? 32;
    this.historyTicks = options.historyTicks ?? 64;
    if (!Number.isInteger(this.maxPredicted) || this.maxPredicted < 1 || this.maxPredicted > 4096)
      throw new RangeError(
        `PredictedWorld: maxPredicted must be an integer in [1, 4096], got ${this.maxPredicted}`,
      );
    if (!Number.isInteger(this.historyTicks) || this.historyTicks < 4 || this.historyTicks > 4096)
      throw new RangeError(
        `PredictedWorld: historyTicks must be an integer in [4, 4096], got ${this.historyTicks}`,
      );
    const smoothing = options.smoothingSeconds ?? 0.1;
    if (!(smoothing >= 0 && smoothing <= 10))
      throw new RangeError(`PredictedWorld: smoothingSeconds must be in [0, 10], got ${smoothing}`);
    this.tauTicks = smoothing * options.tickRate;
    this.hasNear = [...this.specs.values()].some((spec) => spec.near !== undefined);
    for (const [type, spec] of this.specs) {
      if (typeof spec.move !== 'function')
        throw new TypeError(`PredictedWorld: ${type.name}: move must be a function`);
      if (spec.near !== undefined && (!(spec.near > 0) || spec.position === undefined))
        throw new RangeError(`PredictedWorld: ${type.name}: near must be > 0 metres, with a position`);
    }
  }

  stats(): Readonly<PredictedWorldStats> {
    this.counters.predicted = this.tracks.size;
    return this.counters;
  }

  /** The newest tick predicted (-1: none). */
  get tick(): number {
    return this.newest;
  }

  /**
   * Moves every predicted entity to input tick `tick` (the next one predicted; a gap is filled).
   * Spawns of that tick come after (`spawn`). Removes spawns whose verdict is overdue.
   */
  advance(tick: number): void {
    if (tick <= this.newest) return; // ticks only go forward (a clock jumped back pushes none)
    if (this.newest < 0 || tick - this.newest > this.historyTicks) {
      // Nothing to carry over a gap longer than the history: start again at `tick`.
      if (this.newest >= 0 && tick > this.newest) this.clear();
      this.newest = tick;
      return;
    }
    for (let t = this.newest + 1; t <= tick; t++) for (const track of this.tracks.values()) track.step(t);
    this.newest = tick;
    for (const track of this.tracks.values()) {
      if (track.claim >= 0 && tick - Math.floor(track.claim / 16) > this.historyTicks) {
        this.counters.spawnsExpired++;
        this.remove(track);
      }
    }
  }

  /**
   * A spawn predicted at input tick `tick` (the newest advanced) with `key` (0..15): shown from now,
   * matched or refused by the server's verdict. Returns false (nothing made) when the world is full.
   */
  spawn(tick: number, key: number, type: AnyEntityType, state: unknown): boolean {
    const spec = this.specs.get(type);
    if (spec === undefined) throw new RangeError(`PredictedWorld.spawn: ${type.name} has no move`);
    if (tick !== this.newest)
      throw new RangeError(`PredictedWorld.spawn: tick ${tick} is not the newest (${this.newest})`);
    const claim = tick * 16 + key;
    if (this.tracks.size >= this.maxPredicted || this.claims.has(claim)) return false;
    const track = this.track(this.nextLocal--, type, spec, tick, state);
    track.claim = claim;
    this.claims.set(claim, track);
    this.counters.spawnsPredicted++;
    return true;
  }

  /** The server's verdict on the spawn (tick, key): `id` its ghost, or -1: refused (it goes now). */
  verdict(tick: number, key: number, id: number): void {
    const claim = tick * 16 + key;
    const track = this.claims.get(claim);
    if (track === undefined) return;
    this.claims.delete(claim);
    track.claim = -1;
    if (id < 0 || this.tracks.has(id) || this.mirror.ghost(id)?.type !== track.type) {
      this.counters.spawnsRefused++;
      this.remove(track);
      return;
    }
    this.counters.spawnsMatched++;
    this.tracks.delete(track.id);
    track.id = id;
    this.tracks.set(id, track);
  }

  /** Stops predicting ghost `id` (destroyed). */
  forget(id: number): void {
    const track = this.tracks.get(id);
    if (track !== undefined) this.remove(track);
  }

  /** Whether ghost (or local spawn) `id` is predicted now. */
  predicts(id: number): boolean {
    const track = this.tracks.get(id);
    return track !== undefined && !track.leaving;
  }

  /**
   * Starts predicting the ghosts of near-predicted types within range of `center` (the player's
   * predicted position) and lets those past 1.15 × range go back to interpolation.
   */
  updateNear(candidates: Iterable<number>, center: readonly number[] | null): void {
    if (this.newest < 0 || !this.hasNear) return;
    for (const id of candidates) {
      const ghost = this.mirror.ghost(id);
      if (ghost === null) continue;
      const spec = this.specs.get(ghost.type);
      const track = this.tracks.get(id);
      if (spec?.near === undefined || spec.position === undefined) continue;
      const shown = track === undefined ? ghost.value : (track.at(this.newest) ?? ghost.value);
      const [x, y] = spec.position(shown);
      const d = center === null ? Number.POSITIVE_INFINITY : Math.hypot(x - center[0]!, y - center[1]!);
      if (track === undefined) {
        if (d > spec.near || this.tracks.size >= this.maxPredicted) continue;
        // A ghost not sent since long ago stood still through the newest report: start from there.
        let applied = this.inputs.appliedInputTick(ghost.tick);
        const reported = this.inputs.reportedTick;
        if (applied < 0 && reported >= ghost.tick) applied = this.inputs.appliedInputTick(reported);
        if (applied < 0 || applied > this.newest || this.newest - applied >= this.historyTicks) continue;
        const started = this.track(id, ghost.type, spec, applied, ghost.value);
        started.serverTick = ghost.tick;
        for (let t = applied + 1; t <= this.newest; t++) started.step(t);
      } else if (track.leaving) {
        if (d <= spec.near) {
          // Back in range before the blend ended: predicted again from the server's newest.
          this.remove(track);
        }
      } else if (d > spec.near * LEAVE_FACTOR) {
        track.leaving = true;
      }
    }
  }

  /**
   * Compares each predicted ghost whose server tick advanced with its prediction at the mapped
   * input tick; the earliest mismatch starts one rollback of every predicted entity.
   */
  reconcile(clockPosition: number): void {
    this.position = clockPosition;
    let earliest = Number.POSITIVE_INFINITY;
    for (const track of this.tracks.values()) {
      if (track.id < 0 || track.leaving) continue;
      const ghost = this.mirror.ghost(track.id);
      if (ghost === null || ghost.tick <= track.serverTick) continue;
      const applied = this.inputs.appliedInputTick(ghost.tick);
      if (applied < 0) continue;
      track.serverTick = ghost.tick;
      if (applied > this.newest || applied < track.first || this.newest - applied >= this.historyTicks)
        continue;
      const predicted = track.at(applied);
      const server = track.quantize(ghost.value);
      if (predicted !== null && predicted !== undefined && track.same(predicted, server)) continue;
      this.counters.mispredictions++;
      track.pending = server;
      track.pendingTick = applied;
      if (applied < earliest) earliest = applied;
    }
    if (earliest !== Number.POSITIVE_INFINITY) this.rollback(earliest);
  }

  /**
   * What to show for `id` at the clock's `alpha`: a predicted entity's blend of its last two
   * predicted ticks with its visual error; a leaving one's `interpolated` with the error it had;
   * null when a predicted entity is gone (its move returned null). `interpolated` otherwise.
   */
  shown(id: number, interpolated: unknown, alpha: number): unknown {
    const track = this.tracks.get(id);
    if (track === undefined) return interpolated;
    if (track.leaving) {
      if (track.shownBefore !== undefined) {
        track.errorWeight = 1;
        track.errorAt = this.position;
        track.visual.capture(track.shownBefore, interpolated, track.error);
        track.shownBefore = undefined;
      }
      const weight = this.weight(track);
      if (weight === 0) {
        this.remove(track);
        return interpolated;
      }
      return track.visual.apply(track.copy(interpolated), track.error, weight);
    }
    const now = track.at(this.newest);
    if (now === null || now === undefined) return null;
    const before = track.at(this.newest - 1);
    const value =
      before === null || before === undefined
        ? track.copy(now)
        : track.interpolator.interpolate(before, now, Math.min(1, Math.max(0, alpha)), track.out);
    this.shownTick = this.newest;
    this.shownAlpha = Math.min(1, Math.max(0, alpha));
    track.out = value;
    const weight = this.weight(track);
    if (weight > 0) track.visual.apply(value, track.error, weight);
    track.shownBefore = value;
    return value;
  }

  /** The state predicted for `id` at input tick `tick` (null: gone then; undefined: not held). */
  predictedState(id: number, tick: number): unknown | null | undefined {
    const track = this.tracks.get(id);
    return track === undefined ? undefined : track.at(tick);
  }

  /** The local spawns waiting for their verdict: [local id, type] (negative ids). */
  *locals(): IterableIterator<[number, AnyEntityType]> {
    for (const track of this.tracks.values()) if (track.id < 0) yield [track.id, track.type];
  }

  /** Forgets everything (a new connection). */
  clear(): void {
    this.tracks.clear();
    this.claims.clear();
    this.newest = -1;
  }

  private weight(track: Track): number {
    if (track.errorWeight === 0) return 0;
    const w =
      this.tauTicks <= 0 ? 0 : track.errorWeight * Math.exp(-(this.position - track.errorAt) / this.tauTicks);
    if (w < ERROR_CUTOFF) track.errorWeight = 0;
    return w < ERROR_CUTOFF ? 0 : Math.min(1, w);
  }

  private rollback(earliest: number): void {
    const depth = this.newest - earliest;
    this.counters.rollbacks++;
    this.counters.lastDepth = depth;
    if (depth > this.counters.maxDepth) this.counters.maxDepth = depth;
    // What was shown before: the error keeps it on screen while the difference decays.
    const shownBefore = new Map<Track, unknown>();
    for (const track of this.tracks.values()) {
      if (track.leaving) continue;
      if (track.shownBefore !== undefined && track.shownBefore !== null)
        shownBefore.set(track, track.quantize(track.shownBefore));
      if (track.pendingTick >= 0) {
        track.put(track.pendingTick, track.pending);
        if (track.pendingTick < track.first) track.first = track.pendingTick;
      }
    }
    for (let t = earliest + 1; t <= this.newest; t++) {
      for (const track of this.tracks.values()) {
        if (track.leaving || t <= track.first || (track.pendingTick >= 0 && t <= track.pendingTick)) continue;
        track.step(t);
        this.counters.resimulatedTicks++;
      }
    }
    for (const track of this.tracks.values()) {
      track.pending = undefined;
      track.pendingTick = -1;
      const before = shownBefore.get(track);
      // The new prediction at the moment last shown (its tick and alpha) against what was shown.
      const now = track.at(this.shownTick);
      const previous = track.at(this.shownTick - 1);
      if (before === undefined || now === null || now === undefined) continue;
      const after =
        previous === null || previous === undefined
          ? now
          : // A new object: rollbacks are rare, and each type's blend has its own shape.
            track.interpolator.interpolate(previous, now, this.shownAlpha, undefined as never);
      const weight = this.weight(track);
      const size = track.visual.capture(before, after, track.error);
      track.errorWeight = size > 0 || weight > 0 ? 1 : 0;
      track.errorAt = this.position;
    }
  }

  private track(
    id: number,
    type: AnyEntityType,
    spec: PredictedTypeOptions,
    tick: number,
    state: unknown,
  ): Track {
    let compiled = this.compiled.get(type);
    if (compiled === undefined) {
      compiled = compileTrackType(type);
      this.compiled.set(type, compiled);
    }
    const track = new Track(id, type, spec, compiled, this.historyTicks, tick, state);
    this.tracks.set(id, track);
    return track;
  }

  private remove(track: Track): void {
    if (this.tracks.get(track.id) === track) this.tracks.delete(track.id);
    if (track.claim >= 0) this.claims.delete(track.claim);
  }
}
