import { ReadStream } from '../../serialize/read-stream.js';
import { WriteStream } from '../../serialize/write-stream.js';
import { writeDelta } from '../entity-delta.js';
import type { AnyEntityType } from '../entity-type.js';
import type { AnyEventType } from '../event.js';
import {
  CONFIGURATION_BITS,
  GENERATION_BITS,
  NEWEST_HELD,
  TICK_BITS,
  writeBaseline,
  writeReference,
  writeUpdateCount,
  writeUpdateId,
} from '../ghost-wire.js';
import { IdList } from '../id-list.js';
import { copyState, type LaneState, sameState } from '../lane-state.js';
import { type MirrorListener, MirrorStates } from '../mirror-states.js';
import { PreviousChanges } from '../previous-changes.js';
import { ChunkBuilder } from './chunk-builder.js';
import { encodeReplay, type ReplayChunk, type ReplayHeader } from './gwr-format.js';
import { readFrames } from './replay-file.js';
import { SectionEvents } from './section-events.js';

/** Ids of the view planned in one slice of a cut (ViewClip.steps): W4's 10,000 take ten. */
export const PLAN_SLICE = 1024;

/** The live relevancy rule a clip's view follows (ReplicationServer's interest). */
export interface ViewClipInterest {
  /** An entity enters the view within this distance of its center. */
  readonly radius: number;
  /** A member leaves only beyond radius × leaveFactor (the live view's hysteresis). */
  readonly leaveFactor: number;
  /** 2: z is ignored, as the live grid of a 2D world does. */
  readonly dimensions: 2 | 3;
}

/** What the clip decodes: the recorded world's types, capacity, historyLength and events. */
export interface ViewClipWorld {
  readonly types: readonly AnyEntityType[];
  readonly capacity: number;
  readonly historyLength: number;
  readonly events: readonly AnyEventType[];
}

/**
 * A recording's span cut to what one entity's view held (a kill-cam from the killer's view): the
 * sections of the span are decoded into a scratch mirror, and from the span's start tick a clip
 * is written again, tick by tick, as a client whose view followed that entity was sent it. An
 * entity whose type has a position is in the clip while it is within the interest radius of the
 * followed entity's recorded position (entering within `radius`, leaving beyond radius ×
 * leaveFactor, as live); types without a position, and the followed entity itself, are always
 * in. Until the followed entity is first seen the view has no center (only those always in);
 * while it is gone the center stays where it was last; when its type has no position the view
 * holds everything (a recording's whole public world). The view starts empty at the start tick
 * (no hysteresis from before it). Entity events about ghosts outside the
 * view are dropped, others kept. The clip is an ordinary .gwr file (chunks of `keyframeTicks`
 * from the start tick, each opening with a keyframe), so players need no change.
 *
 * Its input is the recorder's own ring (trusted); one ViewClip is reused for every cut.
 */
export class ViewClip {
  private readonly states: MirrorStates;
  private readonly rs = new ReadStream(0);
  private readonly ws: WriteStream;
  private readonly events: SectionEvents;
  private readonly previousChanges: PreviousChanges;
  /** Decoded world: per id, the ghost's generation, its position, and whether that is stale. */
  private readonly generation: Int32Array;
  private readonly positions: Float64Array;
  private readonly stale: Uint8Array;
  private readonly scratchValues: unknown[];
  /** The clip's viewer: per id, the type shown (-1: none), its generation, the last state sent. */
  private readonly shownType: Int16Array;
  private readonly shownGeneration: Int32Array;
  private readonly sent: (LaneState | null)[];
  /** Per id: 1 while in the view (the hysteresis reads it). */
  private readonly inView: Uint8Array;
  private readonly destroys = new IdList(16);
  private readonly destroyGone = new IdList(16);
  private readonly creates = new IdList(16);
  private readonly updates = new IdList(16);
  private readonly holds = (id: number): boolean => this.shownType[id] >= 0;
  private follow = -1;
  private centerKnown = false;
  private everything = false;
  private centerX = 0;
  private centerY = 0;
  private centerZ = 0;

  constructor(
    private readonly world: ViewClipWorld,
    private readonly interest: ViewClipInterest,
    /** A section's most bytes (the recorder's stream size). */
    sectionBytes: number,
  ) {
    const { types, capacity } = world;
    const listener: MirrorListener = {
      created: (id, _typeIndex, generation) => {
        if (this.generation[id] !== generation) this.inView[id] = 0; // another entity under the id
        this.generation[id] = generation;
        this.stale[id] = 1;
      },
      stored: (id, _state, _tick, differs) => {
        if (differs) this.stale[id] = 1;
      },
      removed: () => {},
      appliedSection: () => {},
      configurationMismatch: () => {},
    };
    this.states = new MirrorStates(types, capacity, world.historyLength, world.events, 1, listener, false);
    this.ws = new WriteStream(sectionBytes);
    this.events = new SectionEvents(world.events, capacity);
    this.previousChanges = new PreviousChanges(Math.max(0, ...types.map((t) => t.layout.lanes.length)));
    this.generation = new Int32Array(capacity).fill(-1);
    this.positions = new Float64Array(capacity * 3);
    this.stale = new Uint8Array(capacity);
    this.scratchValues = types.map(() => undefined);
    this.shownType = new Int16Array(capacity).fill(-1);
    this.shownGeneration = new Int32Array(capacity);
    this.sent = new Array(capacity).fill(null);
    this.inView = new Uint8Array(capacity);
  }

  /**
   * The .gwr bytes of `chunks` (a recorder's, in tick order, the first opening at or before
   * `header.startTick`) from the start tick on, as the view following entity `follow` held them.
   */
  cut(header: ReplayHeader, chunks: readonly ReplayChunk[], follow: number): Uint8Array {
    const steps = this.steps(header, chunks, follow);
    for (;;) {
      const next = steps.next();
      if (next.done === true) return next.value;
    }
  }

  /**
   * The same cut as steps: each `next()` does one slice of it (a recorded section decoded, or
   * PLAN_SLICE ids of the view planned, or a section of the clip written) and the last returns
   * the bytes. The clip is byte-equal to `cut`'s. One cut at a time per ViewClip: another begun
   * before this one returned leaves it meaningless.
   */
  *steps(header: ReplayHeader, chunks: readonly ReplayChunk[], follow: number): Generator<void, Uint8Array> {
    const startTick = header.startTick;
    this.follow = follow;
    this.centerKnown = false;
    this.everything = false;
    this.inView.fill(0);
    this.shownType.fill(-1);
    this.generation.fill(-1);
    this.states.reset();
    this.events.unreliableSeq = 0;
    this.events.reliableSeq = 0;
    const out: ReplayChunk[] = [];
    let open: ChunkBuilder | null = null;
    let lastEmitted = -1;
    let previous: ReplayChunk | null = null;
    for (const chunk of chunks) {
      const frames = readFrames(
        chunk.body,
        0,
        chunk.body.length,
        chunk.firstTick,
        chunk.lastTick,
        chunk.frames,
      );
      // As ReplayPlayer crosses chunks: the keyframe repeats the tick held, else goes on top of it.
      const contiguous = previous !== null && chunk.firstTick === previous.lastTick;
      let f = 0;
      if (!contiguous) this.states.reset();
      else if (this.states.newestTick === chunk.firstTick) f = 1;
      previous = chunk;
      for (; f < frames.ticks.length; f++) {
        const tick = frames.ticks[f];
        if (tick > startTick && open === null) {
          open = yield* this.openChunk(startTick, false); // the state at the start tick: no frame there
          lastEmitted = startTick;
        }
        this.rs.reset(chunk.body, frames.offsets[f], frames.lengths[f]);
        const receiver = this.states.receiver;
        if (!receiver.read(this.rs, this.states) || !this.events.read(this.rs, receiver.tick))
          throw new Error(`ViewClip: a recorded section was refused: ${this.rs.error}`);
        this.states.apply();
        yield;
        if (tick < startTick || tick <= lastEmitted) continue;
        if (open === null) open = yield* this.openChunk(tick, true);
        else if (tick - open.firstTick >= header.keyframeTicks) {
          // As the recorder: the chunk ends with this tick and the next opens with it as a keyframe.
          // The frame is written even when empty, so a player crossing over holds the tick and
          // goes on past the keyframe.
          yield* this.emit(open, tick, false, true, true);
          open.reach(tick);
          out.push(open.snapshot());
          open = yield* this.openChunk(tick, false);
        } else yield* this.emit(open, tick, false, true);
        lastEmitted = tick;
      }
    }
    open ??= yield* this.openChunk(startTick, false); // no frame from the start tick on: the events read are older
    open.reach(Math.max(open.lastTick, chunks.at(-1)?.lastTick ?? startTick));
    out.push(open.snapshot());
    return encodeReplay(header, out);
  }

  /** A new chunk opening at `tick` with a keyframe: the viewer starts empty. */
  private *openChunk(tick: number, withEvents: boolean): Generator<void, ChunkBuilder> {
    const chunk = new ChunkBuilder(tick);
    this.shownType.fill(-1);
    yield* this.emit(chunk, tick, true, withEvents);
    return chunk;
  }

  /** Writes the viewer's section of `tick` into `chunk` (nothing when it has nothing to say, unless a keyframe). */
  private *emit(
    chunk: ChunkBuilder,
    tick: number,
    keyframe: boolean,
    withEvents: boolean,
    always = keyframe,
  ): Generator<void, void> {
    yield* this.plan();
    const { ws, destroys, creates, updates, states, world } = this;
    const capacity = world.capacity;
    const types = world.types;
    if (
      !always &&
      destroys.length + creates.length + updates.length === 0 &&
      (!withEvents || this.events.length === 0)
    ) {
      chunk.reach(tick);
      return;
    }
    ws.reset();
    ws.bits(tick, TICK_BITS);
    ws.bits(keyframe ? 1 : 0, 1);
    if (keyframe) ws.bits(states.configuration >>> 0, CONFIGURATION_BITS);
    for (let i = 0; i < destroys.length; i++) {
      ws.bits(1, 1);
      ws.int(destroys.items[i], 0, capacity - 1);
      ws.bits(this.destroyGone.items[i], 1);
    }
    ws.bits(0, 1);
    for (let i = 0; i < creates.length; i++) {
      const id = creates.items[i];
      const typeIndex = states.typeOf[id];
      const type = types[typeIndex];
      const state = states.histories[id]!.latest!;
      ws.bits(1, 1);
      ws.int(id, 0, capacity - 1);
      ws.int(typeIndex, 0, types.length - 1);
      ws.bits(this.generation[id], GENERATION_BITS);
      writeDelta(ws, type.layout, state, null);
      this.show(id, typeIndex, state);
    }
    ws.bits(0, 1);
    writeUpdateCount(ws, updates.length, capacity);
    if (updates.length > 0) writeReference(ws, tick, NEWEST_HELD);
    this.previousChanges.reset();
    let previous = -1;
    for (let i = 0; i < updates.length; i++) {
      const id = updates.items[i];
      const state = states.histories[id]!.latest!;
      const sent = this.sent[id]!;
      writeUpdateId(ws, previous, id, capacity);
      writeBaseline(ws, tick, NEWEST_HELD, NEWEST_HELD, true);
      writeDelta(ws, types[states.typeOf[id]].layout, state, sent, this.previousChanges);
      copyState(state, sent);
      previous = id;
    }
    this.events.write(ws, tick, this.holds, withEvents, keyframe);
    chunk.append(tick, ws.finish());
  }

  /** Records that the viewer holds `state` of ghost `id` now. */
  private show(id: number, typeIndex: number, state: LaneState): void {
    this.shownType[id] = typeIndex;
    this.shownGeneration[id] = this.generation[id];
    let sent = this.sent[id];
    if (sent === null || sent.lanes.length !== state.lanes.length || sent.blobs.length !== state.blobs.length)
      sent = this.sent[id] = this.world.types[typeIndex].layout.createState();
    copyState(state, sent);
  }

  /** The view at the decoded tick, and what the viewer must be sent: destroys, creates, updates. */
  private *plan(): Generator<void, void> {
    const { states, destroys, destroyGone, creates, updates, shownType, inView } = this;
    destroys.clear();
    destroyGone.clear();
    creates.clear();
    updates.clear();
    this.placeCenter();
    const radius = this.interest.radius;
    const enter = radius * radius;
    const leave = enter * this.interest.leaveFactor * this.interest.leaveFactor;
    const flat = this.interest.dimensions === 2;
    const types = this.world.types;
    for (let id = 0; id < this.world.capacity; id++) {
      if (id > 0 && id % PLAN_SLICE === 0) yield;
      const typeIndex = states.typeOf[id];
      let visible = 0;
      if (typeIndex >= 0) {
        if (id === this.follow || this.everything || types[typeIndex].position === undefined) visible = 1;
        else if (this.centerKnown) {
          if (this.stale[id] === 1) this.locate(id, typeIndex);
          const p = id * 3;
          const dx = this.positions[p] - this.centerX;
          const dy = this.positions[p + 1] - this.centerY;
          const dz = flat ? 0 : this.positions[p + 2] - this.centerZ;
          const d = dx * dx + dy * dy + dz * dz;
          visible = d <= enter || (inView[id] === 1 && d <= leave) ? 1 : 0;
        }
      }
      inView[id] = visible;
      let shown = shownType[id] >= 0;
      if (shown) {
        const same = shownType[id] === typeIndex && this.shownGeneration[id] === this.generation[id];
        if (!same || visible === 0) {
          destroys.push(id);
          destroyGone.push(same ? 0 : 1);
          shownType[id] = -1;
          shown = false;
        } else if (!sameState(states.histories[id]!.latest!, this.sent[id]!)) updates.push(id);
      }
      if (!shown && visible === 1) creates.push(id);
    }
  }

  /** The view's center: the followed entity's position when it is there (else where it was last). */
  private placeCenter(): void {
    const id = this.follow;
    const typeIndex = id >= 0 && id < this.world.capacity ? this.states.typeOf[id] : -1;
    if (typeIndex < 0) return;
    if (this.world.types[typeIndex].position === undefined) {
      this.everything = true;
      return;
    }
    if (this.stale[id] === 1) this.locate(id, typeIndex);
    this.centerX = this.positions[id * 3];
    this.centerY = this.positions[id * 3 + 1];
    this.centerZ = this.positions[id * 3 + 2];
    this.centerKnown = true;
  }

  /** The decoded position of ghost `id` (its type has one), from its newest state. */
  private locate(id: number, typeIndex: number): void {
    const type = this.world.types[typeIndex];
    const value = type.layout.dequantize(this.states.histories[id]!.latest!, this.scratchValues[typeIndex]);
    this.scratchValues[typeIndex] = value;
    const p = type.position!(value);
    this.positions[id * 3] = p[0];
    this.positions[id * 3 + 1] = p[1];
    this.positions[id * 3 + 2] = p.length > 2 ? (p[2] as number) : 0;
    this.stale[id] = 0;
  }
}
