import { ScratchList } from '../channels/scratch-list.js';
import { ClientMirror, type ClientMirrorOptions, type Ghost } from '../replication/client-mirror.js';
import type { AnyEntityType } from '../replication/entity-type.js';
import { ReplayError } from '../replication/recording/replay-error.js';
import {
  ReplayFile,
  type ReplayFileLimits,
  type ReplayFrames,
} from '../replication/recording/replay-file.js';
import { ReadStream } from '../serialize/read-stream.js';
import { GhostSampler } from './ghost-sampler.js';
import { compileInterpolator, type Interpolator } from './interpolation.js';

export interface ReplayPlayerOptions
  extends Pick<
    ClientMirrorOptions,
    'types' | 'capacity' | 'historyLength' | 'events' | 'onCreate' | 'onUpdate' | 'onDestroy' | 'onEvent'
  > {
  /** Bounds on the file (ReplayFile.open). */
  limits?: ReplayFileLimits;
  /**
   * Frames applied past the render tick (default 3, a live client's usual interpolation delay in
   * ticks), so an entity that changes every few ticks is blended as a live client blends it.
   */
  aheadTicks?: number;
  /** The interpolator of a type (default compileInterpolator of its schema). */
  interpolator?: (type: AnyEntityType) => Interpolator<unknown>;
}

/** How the player moves: playing forward, playing backward, or a seek (a jump). */
type Move = 'play' | 'back' | 'seek';

/**
 * Plays a .gwr recording into a ClientMirror, as a live connection would feed it: at any speed,
 * paused, and forward or backward by seeking (to the keyframe at or before the target, then its
 * frames), with entities interpolated at the render tick by the same GhostSampler a live client
 * uses. Call `advance(seconds)` each frame and draw `sample(id)` for the ghosts of `mirror`.
 * Browser-safe; a refused file throws ReplayError at `open`. `S`: the states `sample` gives (a
 * GameClient's replays: its entities' client-side states, private fields optional and absent).
 */
export class ReplayPlayer<S = unknown> {
  readonly mirror: ClientMirror;
  /** The first tick shown (the header's start tick) and the last. */
  readonly startTick: number;
  readonly endTick: number;
  readonly tickRate: number;
  /** Ticks per second of recording shown per second of `advance` (0 while paused). */
  private rate = 1;
  private paused = true;
  private render: number;
  /** The chunk being applied and its next frame (-1: none yet). */
  private chunk = -1;
  private frame = 0;
  private followId = -1;
  private viewDelay = 0;
  /** While a seek catches up to its target from a keyframe: events of the frames passed are not dispatched. */
  private muted = false;
  /** Backward play applied frames past the render tick without their events: playing on re-applies them. */
  private quietAhead = false;
  private readonly samplers = new Map<number, GhostSampler<unknown>>();
  private readonly interpolators = new Map<AnyEntityType, Interpolator<unknown>>();
  private readonly rs = new ReadStream(0);
  private readonly ahead: number;
  private readonly staged = new ScratchList<unknown>();

  private constructor(
    readonly file: ReplayFile,
    private readonly options: ReplayPlayerOptions,
  ) {
    this.mirror = new ClientMirror({
      ...options,
      onEvent: (event) => {
        if (!this.muted) options.onEvent?.(event);
      },
      onDestroy: (ghost, tick, reason) => {
        this.samplers.delete(ghost.id);
        options.onDestroy?.(ghost, tick, reason);
      },
    });
    const ahead = options.aheadTicks ?? 3;
    if (!Number.isInteger(ahead) || ahead < 1 || ahead >= this.mirror.historyLength)
      throw new RangeError(
        `ReplayPlayer: aheadTicks must be an integer in [1, historyLength), got ${options.aheadTicks}`,
      );
    this.ahead = ahead;
    this.startTick = file.header.startTick;
    this.endTick = file.lastTick;
    this.tickRate = file.header.tickRate;
    this.render = this.startTick;
    this.applyThrough(Math.min(this.endTick, this.startTick + ahead), 'seek');
  }

  /** Reads and checks a recording; throws ReplayError (reason, byte offset) when it is refused. */
  static open<S = unknown>(bytes: Uint8Array, options: ReplayPlayerOptions): ReplayPlayer<S> {
    return new ReplayPlayer<S>(ReplayFile.open(bytes, options, options.limits), options);
  }

  /** The fractional tick shown. */
  get renderTick(): number {
    return this.render;
  }

  get speed(): number {
    return this.rate;
  }

  get playing(): boolean {
    return !this.paused;
  }

  /** Plays from the render tick at `speed` × real time (default 1; negative plays backward by seeking). */
  play(speed = this.rate): void {
    if (!Number.isFinite(speed))
      throw new RangeError(`ReplayPlayer.play: speed must be finite, got ${speed}`);
    this.rate = speed;
    this.paused = false;
  }

  pause(): void {
    this.paused = true;
  }

  /** Moves the clock `seconds` of real time on (nothing while paused); stops at either end. */
  advance(seconds: number): void {
    if (!(seconds >= 0 && Number.isFinite(seconds)))
      throw new RangeError(`ReplayPlayer.advance: seconds must be finite and >= 0, got ${seconds}`);
    if (this.paused || this.rate === 0) return;
    const target = this.render + seconds * this.rate * this.tickRate;
    this.moveTo(Math.min(this.endTick, Math.max(this.startTick, target)), this.rate > 0 ? 'play' : 'back');
    if ((this.rate > 0 && this.render === this.endTick) || (this.rate < 0 && this.render === this.startTick))
      this.paused = true;
  }

  /** Shows `tick` (fractional; clamped to the recording): forward applies frames, backward restarts at a keyframe. */
  seek(tick: number): void {
    if (!Number.isFinite(tick)) throw new RangeError(`ReplayPlayer.seek: tick must be finite, got ${tick}`);
    this.moveTo(Math.min(this.endTick, Math.max(this.startTick, tick)), 'seek');
  }

  /** Shows `t` (inside the recording), applying frames as `how` moves there. */
  private moveTo(t: number, how: Move): void {
    const from = this.render;
    if (t < from) for (const s of this.samplers.values()) s.reset();
    this.render = t;
    this.applyThrough(Math.min(this.endTick, Math.floor(t) + this.ahead), how, from);
  }

  /** Follows an entity (its sample is `followed()`), or none with -1. */
  follow(id: number): void {
    if (!Number.isInteger(id) || id < -1 || id >= this.mirror.capacity)
      throw new RangeError(`ReplayPlayer.follow: id must be -1 or an entity id, got ${id}`);
    this.followId = id;
  }

  get following(): number {
    return this.followId;
  }

  /**
   * Ticks behind the render tick at which every entity but the followed one is shown (default 0):
   * a kill-cam sets the killer's interpolation delay, so the others are where the killer saw them.
   */
  get viewDelayTicks(): number {
    return this.viewDelay;
  }

  set viewDelayTicks(ticks: number) {
    if (!(Number.isFinite(ticks) && ticks >= 0 && ticks < this.mirror.historyLength))
      throw new RangeError(
        `ReplayPlayer.viewDelayTicks: must be in [0, historyLength ${this.mirror.historyLength}), got ${ticks}`,
      );
    this.viewDelay = ticks;
  }

  /** The followed entity's sample (null when none is followed or it is not there). */
  followed(): S | null {
    return this.followId < 0 ? null : this.sample(this.followId);
  }

  /**
   * Ghost `id` interpolated at the render tick as a live client shows it (null when absent); an
   * entity other than the followed one `viewDelayTicks` earlier.
   */
  sample(id: number): S | null {
    const ghost: Ghost | null = this.mirror.ghost(id);
    const history = this.mirror.history(id);
    if (ghost === null || history === null) return null;
    let sampler = this.samplers.get(id);
    if (sampler === undefined) {
      let interpolator = this.interpolators.get(ghost.type);
      if (interpolator === undefined) {
        interpolator =
          this.options.interpolator?.(ghost.type) ??
          (compileInterpolator(ghost.type.layout.schema) as Interpolator<unknown>);
        this.interpolators.set(ghost.type, interpolator);
      }
      sampler = new GhostSampler(interpolator);
      this.samplers.set(id, sampler);
    }
    const at = id === this.followId ? this.render : Math.max(this.startTick, this.render - this.viewDelay);
    return sampler.sample(history, at, this.mirror.newestTick) as S | null;
  }

  /**
   * Applies frames until the mirror holds `tick` (the last frame at or before it). Each event is
   * dispatched once, when its frame is applied going forward: playing on applies every frame in
   * order, across any number of chunks; a seek does not dispatch the events of the frames up to
   * the render tick (a time skipped over, whether it restarts at a keyframe or not); backward play dispatches
   * none (those of the frames it applies past the render tick are dispatched when play goes
   * forward again, which restarts at the keyframe to apply them anew).
   */
  private applyThrough(tick: number, how: Move, from = this.render): void {
    const chunks = this.file.chunks;
    const target = this.chunkFor(tick);
    const applied = this.mirror.newestTick;
    const forward =
      this.chunk >= 0 &&
      applied <= tick &&
      !(this.quietAhead && how !== 'back') &&
      (target === this.chunk ||
        (how === 'play' && target > this.chunk) ||
        (target === this.chunk + 1 && chunks[target].firstTick === chunks[this.chunk].lastTick));
    // Play dispatches the events of the frames after the tick it moved from, a seek those after its
    // target, backward play none.
    const quietThrough =
      how === 'back'
        ? Number.POSITIVE_INFINITY
        : how === 'seek'
          ? Math.floor(this.render)
          : forward
            ? -1
            : Math.floor(from);
    if (!forward) {
      this.mirror.reset();
      for (const s of this.samplers.values()) s.reset();
      // From the chunk of the render tick, even when the frames ahead reach into the next: a
      // chunk's last tick is the next one's keyframe, whose events are in the last frame only.
      // Play (forward again after backward play) restarts where it moved from.
      this.chunk = this.chunkFor(Math.floor(how === 'play' ? from : this.render));
      this.frame = 0;
      this.quietAhead = how === 'back';
    }
    for (;;) {
      let c: ReplayFrames = chunks[this.chunk];
      if (this.frame >= c.ticks.length) {
        const next = chunks[this.chunk + 1];
        if (next === undefined || next.firstTick > tick) return;
        // Chunks overlap by a tick: when the mirror holds that tick, the keyframe repeats it, so go
        // on past it; when that tick had no frame (nothing changed), the keyframe is applied on
        // top (its creates add states to the ghosts held). Not contiguous: start afresh. Either
        // way the chunk's event numbers are its own (a chunk decodes alone): start them again.
        const contiguous = next.firstTick === c.lastTick;
        this.chunk++;
        this.frame = contiguous && this.mirror.newestTick === next.firstTick ? 1 : 0;
        if (!contiguous) this.mirror.reset();
        else this.mirror.restartEvents();
        c = next;
        continue;
      }
      if (c.ticks[this.frame] > tick) return;
      this.muted = c.ticks[this.frame] <= quietThrough;
      const reason = this.file.applyFrame(this.mirror, c, this.frame, this.rs, this.staged);
      // The file was checked at open; a refusal now is a defect, not a bad file.
      this.muted = false;
      if (reason !== null) throw new ReplayError(`section refused: ${reason}`, c.offsets[this.frame]);
      this.frame++;
    }
  }

  /** The last chunk whose keyframe is at or before `tick`. */
  private chunkFor(tick: number): number {
    const chunks = this.file.chunks;
    let lo = 0;
    let hi = chunks.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (chunks[mid].firstTick <= tick) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }
}
