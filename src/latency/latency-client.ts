import type { ClientMirror } from '../replication/client-mirror.js';
import { checkTime, NO_TIME_YET } from '../time/check-time.js';
import { ClockSync, type ClockSyncOptions } from './clock-sync.js';
import type { InputSender } from './input-sender.js';
import { MAX_TICK } from './input-wire.js';
import { InterpolationDelay, type InterpolationDelayOptions } from './interpolation-delay.js';
import type { Predictor } from './predictor.js';
import { TickClock } from './tick-clock.js';

/** Section and report ticks the mirror and the input sender remember (their sectionTick, reportTick). */
const RING = 16;

export interface LatencyClientOptions<S, I> {
  /** The server's tick rate. */
  tickRate: number;
  /** The replication mirror: its newest tick drives clock sync and the interpolation delay. */
  mirror: ClientMirror;
  /** The input channel: each predicted tick's input is pushed here. */
  inputs: InputSender<I>;
  /** Predicts the followed entity (see `follow`); without it inputs are sent but nothing is predicted. */
  predictor?: Predictor<S, I>;
  /** The packet layer's newest round-trip sample, ms (`client.client.endpoint?.rttSampleMs ?? 0`). */
  rttSampleMs: () => number;
  /** Input ticks the server should hold ahead of its consumption (default 2; its InputReceiver's bufferTicks). */
  bufferTicks?: number;
  /**
   * Which inputs carry the render tick shown (for lag compensation): e.g. `(input) => input.fire`.
   * The others repeat the last one sent, at a bit each; the render tick drifts by a fraction of a
   * tick every frame, so sending it with every input costs about 10 bits a tick. Default: all.
   */
  sendView?: (input: I) => boolean;
  sync?: ClockSyncOptions;
  delay?: Omit<InterpolationDelayOptions, 'tickRate'>;
}

/**
 * One client's timing, wired: a prediction clock that leads the server by the one-way delay plus
 * the input buffer (steered by ClockSync, corrected by the server's time dilation), the input of
 * each predicted tick pushed with the render tick shown, the followed entity predicted and
 * reconciled with each snapshot, and the adaptive render tick for remote entities. Call `frame`
 * once a frame after `client.update(now)`; draw `shown()` for the followed entity and remote
 * ghosts at `renderTick` (GhostSampler).
 */
export class LatencyClient<S, I> {
  readonly clock: TickClock;
  readonly sync: ClockSync;
  readonly delay: InterpolationDelay;
  readonly mirror: ClientMirror;
  readonly inputs: InputSender<I>;
  readonly predictor: Predictor<S, I> | null;
  readonly bufferTicks: number;
  /** The tick remote entities are shown at (NaN until the delay knows the snapshot rate). */
  renderTick = Number.NaN;
  private readonly rttSample: () => number;
  private readonly sendView: ((input: I) => boolean) | undefined;
  /** The last view offset pushed (input tick − view), repeated by inputs that send none. */
  private heldOffset = Number.NaN;
  private followed = -1;
  private last = NO_TIME_YET;
  private started = false;
  private restartCount = 0;
  private sampled = -1;
  /** Mirror sections and input reports already fed to the delay, and the newest tick fed. */
  private sectionsSeen = 0;
  private reportsSeen = 0;
  private delayTick = -1;
  /** The followed ghost's tick last reconciled. */
  private reconciledTick = -1;
  private produce: ((tick: number) => I) | null = null;
  private readonly onTick = (tick: number): void => {
    // A clock jumped back (ClockSync found it far ahead) replays ticks already sent: the input
    // stream stays in order and resumes past them.
    if (tick <= this.inputs.newestTick) return;
    // Past the last uint32 tick nothing can be sent (docs/latency.md, "Tick rules"): a server's
    // tick there (a hostile one, or 828 days at 60 Hz) must not make frame throw.
    if (tick > MAX_TICK) return;
    const predictor = this.predictor;
    // After a stall the server may have consumed (repeated) ticks this client never pushed, and
    // the prediction adopted its state past them; or the stall outlasted the prediction's
    // history. The inputs go on (the server resynchronizes to them or dilation catches up) and
    // the prediction starts again from the followed ghost (start).
    if (this.started && predictor !== null) {
      const gap = tick - predictor.tick;
      if (gap <= 0 || gap > predictor.historyTicks) {
        this.started = false;
        this.reconciledTick = -1;
        this.restartCount++;
      }
    }
    const produce = this.produce as (tick: number) => I;
    const value = produce(tick);
    // The server rewinds to this view; before a render tick exists there is nothing to rewind to.
    let view = this.renderTick;
    // Views travel as offsets from the input's tick: an input that sends none repeats the offset.
    if (this.sendView !== undefined && !this.sendView(value)) view = tick - this.heldOffset;
    const usable = !Number.isNaN(view) && tick - view >= 0 && tick - view <= 255;
    const input = this.inputs.push(tick, value, usable ? view : Number.NaN);
    if (usable) this.heldOffset = tick - view;
    if (this.started) predictor?.predict(tick, input);
  };

  constructor(options: LatencyClientOptions<S, I>) {
    this.clock = new TickClock({ tickRate: options.tickRate });
    this.sync = new ClockSync(this.clock, options.sync);
    this.delay = new InterpolationDelay({ ...options.delay, tickRate: options.tickRate });
    this.mirror = options.mirror;
    this.inputs = options.inputs;
    this.predictor = options.predictor ?? null;
    this.rttSample = options.rttSampleMs;
    this.sendView = options.sendView;
    const buffer = options.bufferTicks ?? 2;
    if (!(buffer >= 0 && buffer <= 64))
      throw new RangeError(`LatencyClient: bufferTicks must be in [0, 64], got ${buffer}`);
    this.bufferTicks = buffer;
  }

  /**
   * The newest server tick any packet of the server named: a ghost section, or an input report
   * (an idle world sends no section, but reports go on). Every change of a ghost up to it has
   * been sent (unless the packet's budget held it back), so GhostSampler shows a ghost with no
   * newer state as resting there.
   */
  get newestServerTick(): number {
    return Math.max(this.mirror.newestTick, this.inputs.reportedTick);
  }

  /** The ghost id whose entity is predicted (the local player's), or -1: none. */
  get following(): number {
    return this.followed;
  }

  /** Predicts the entity under ghost `id`, starting from its ghost as the mirror holds it (-1: stop predicting). */
  follow(id: number): void {
    if (!Number.isInteger(id) || id < -1 || id >= this.mirror.capacity)
      throw new RangeError(`LatencyClient.follow: id must be -1 or a ghost id, got ${id}`);
    if (id !== this.followed) {
      this.started = false;
      this.reconciledTick = -1;
    }
    this.followed = id;
  }

  /**
   * Times the prediction restarted from the followed ghost because its ticks were over: the server had
   * consumed ticks this client never pushed (after a stall), or a stall outlasted its history.
   */
  get restarts(): number {
    return this.restartCount;
  }

  /** Whether the followed entity is being predicted (from its ghost, once inputs are pushed: see start). */
  get predicting(): boolean {
    return this.started;
  }

  /**
   * One frame at local time `now` (monotonic seconds): takes the newest snapshot's tick as a clock
   * sample, reconciles the prediction, runs the due predicted ticks (`input(tick)` gives each
   * tick's input), steers the clock and moves the render tick.
   */
  frame(now: number, input: (tick: number) => I): void {
    this.last = checkTime('LatencyClient.frame', now, this.last);
    // The server's newest tick, from whichever of its packets carried one last: a ghost section,
    // or an input report. An idle world sends no section (an unchanged entity is sent nothing),
    // but reports go on every tick the server takes this client's inputs.
    const newest = this.newestServerTick;
    // A newest tick that went back means a new connection reset the mirror: start over.
    if (newest < this.sampled) this.reset();
    this.timeSnapshots(now);
    if (newest > 0 && newest !== this.sampled) {
      this.sampled = newest;
      this.sync.addSample(now, newest, this.rttSample());
      this.reconcile();
    } else if (this.sampled > 0 && !this.sync.synced) {
      // The first section comes before the first round trip, and an idle server may send no other.
      this.sync.addRtt(now, this.rttSample());
    }
    // No input before ClockSync placed the clock on the server's tick (its first jump): it
    // would be numbered from wherever the clock started.
    this.produce = input;
    this.clock.advance(now, this.sync.stats().jumps > 0 ? this.onTick : undefined);
    this.produce = null;
    if (!this.started) this.start();
    this.sync.update(now, this.sync.oneWayTicks + this.bufferTicks + this.inputs.leadAdjustTicks);
    const render = this.delay.renderTick(now);
    if (!Number.isNaN(render)) this.renderTick = render;
  }

  /**
   * Forgets the connection (done by `frame` when the mirror starts over): clock sync, the delay,
   * the prediction and the held view start again from the next snapshot.
   */
  reset(): void {
    this.sync.reset();
    this.delay.reset();
    this.started = false;
    this.sampled = this.reconciledTick = this.delayTick = -1;
    this.renderTick = this.heldOffset = Number.NaN;
  }

  /** What to draw for the followed entity: its prediction at the clock's alpha, corrections smoothed. */
  shown(): S | null {
    return this.started && this.predictor !== null ? this.predictor.shown(this.clock.alpha) : null;
  }

  /**
   * Every server tick received since the last frame times the packet stream, in order: ghost
   * sections and input reports (one packet usually carries both, with the same tick; several
   * packets often arrive between two frames, and counting the skipped ones as lost would inflate
   * the delay).
   */
  private timeSnapshots(now: number): void {
    const mirror = this.mirror;
    const inputs = this.inputs;
    const sections = mirror.sectionsApplied;
    const reports = inputs.reportsApplied;
    let k = Math.max(this.sectionsSeen, sections - RING);
    let j = Math.max(this.reportsSeen, reports - RING);
    while (k < sections || j < reports) {
      const section = k < sections ? mirror.sectionTick(k) : Number.POSITIVE_INFINITY;
      const report = j < reports ? inputs.reportTick(j) : Number.POSITIVE_INFINITY;
      let tick: number;
      if (section <= report) {
        tick = section;
        k++;
      } else {
        tick = report;
        j++;
      }
      if (tick > this.delayTick && tick > 0) {
        this.delay.onSnapshot(now, tick);
        this.delayTick = tick;
      }
    }
    this.sectionsSeen = sections;
    this.reportsSeen = reports;
  }

  /** Reconciles with the followed ghost's state when a newer one arrived (sections carry only changes). */
  private reconcile(): void {
    const predictor = this.predictor;
    if (!this.started || predictor === null || this.followed < 0) return;
    const ghost = this.mirror.ghost(this.followed);
    if (ghost === null || ghost.tick <= this.reconciledTick) return;
    const applied = this.inputs.appliedInputTick(ghost.tick);
    if (applied < 0) return;
    this.reconciledTick = ghost.tick;
    predictor.reconcile(ghost.value as S, applied);
  }

  /**
   * Starts the prediction from the followed ghost as the mirror holds it: its create, for an
   * entity that has not changed since (replication sends an unchanged entity nothing, so no newer
   * state may ever come). The state is taken as of the input the server reported applied at the
   * ghost's tick; without that report, as of the newest report at or past that tick (the state
   * stood, as far as the sections say); before any report, as of just before the first input
   * pushed (the server had applied none, and its cursor starts at the first that arrives). The
   * inputs pushed since are predicted; whatever the server does next comes as a newer state and
   * is reconciled.
   */
  private start(): void {
    const predictor = this.predictor;
    if (predictor === null || this.followed < 0) return;
    const ghost = this.mirror.ghost(this.followed);
    const inputs = this.inputs;
    const newest = inputs.newestTick;
    if (ghost === null || newest < 0) return;
    let applied = inputs.appliedInputTick(ghost.tick);
    if (applied < 0) {
      const reported = inputs.reportedTick;
      if (reported < 0) applied = inputs.firstTick - 1;
      else if (reported >= ghost.tick) applied = inputs.appliedInputTick(reported);
      else return; // the report of the ghost's tick may still come
    }
    if (applied < 0 || applied > newest || (applied < newest && inputs.inputAt(applied + 1) === undefined))
      return;
    predictor.reset(ghost.value as S, applied);
    for (let tick = applied + 1; tick <= newest; tick++) predictor.predict(tick, inputs.inputAt(tick) as I);
    this.started = true;
    this.reconciledTick = ghost.tick;
  }
}
