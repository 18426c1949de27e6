import { ScratchList } from '../../channels/scratch-list.js';
import { WriteStream } from '../../serialize/write-stream.js';
import { maxDeltaBits } from '../entity-delta.js';
import type { AnyEventType } from '../event.js';
import type { GhostSender } from '../ghost-sender.js';
import type { ServerWorld } from '../server-world.js';
import { ChunkBuilder } from './chunk-builder.js';
import {
  encodeReplay,
  MAX_CHUNK_FRAMES,
  MAX_NAME_BYTES,
  type ReplayChunk,
  type ReplayHeader,
} from './gwr-format.js';
import { RecordingCut } from './recording-cut.js';
import { ViewClip, type ViewClipInterest } from './view-clip.js';

export interface RecorderOptions {
  /** The simulation's ticks per second (the file's clock). */
  tickRate: number;
  /** Seconds between keyframes: each chunk starts with one, so a seek replays at most this much (default 5). */
  keyframeSeconds?: number;
  /** Seconds of the newest recording kept in memory (the ring `save` and kill-cams cut from; default 90). */
  keepSeconds?: number;
  /** A name written in the file's header (at most 64 UTF-8 bytes; default ''). */
  name?: string;
  /** Called with each chunk as it closes (every keyframeSeconds): stream it to a file or a viewer. */
  onChunk?: (chunk: ReplayChunk) => void;
}

/** What a Recorder needs from the ReplicationServer it records. */
export interface RecorderSource {
  readonly world: ServerWorld;
  readonly configuration: number;
  /** A fresh virtual client (its view sees everything, it has no budget): its first section is a keyframe. */
  restart(): GhostSender;
  /** Detaches the virtual client. */
  stop(): void;
  /** The world's event types (what its sections' events parts carry), for a view's clip. */
  readonly events?: readonly AnyEventType[];
  /** The live relevancy rule, when the world has relevancy by distance (else a view holds everything). */
  readonly view?: ViewClipInterest;
}

const UNLIMITED_BITS = 0x7fffffff;

/**
 * Records one world once, as a virtual client of its ReplicationServer that sees every entity,
 * has no bandwidth limit and acks each section at once: one ghost section per tick, deltas
 * against the previous tick, and a keyframe (every entity as a create) opening each chunk. It
 * records the public audience: what a client that owns nothing and is in no team is sent, so no
 * private field and no event addressed to one client is ever in a recording. Make it with
 * `ReplicationServer.record` and call `capture()` right after each `world.tick()`.
 */
export class Recorder {
  readonly header: ReplayHeader;
  private readonly keepTicks: number;
  private readonly chunks: ReplayChunk[] = [];
  private open: ChunkBuilder | null = null;
  private sender: GhostSender | null = null;
  private readonly ws: WriteStream;
  /** The most bytes a section may take (the stream's size). */
  private readonly sectionBytes: number;
  /** A ViewClip no cut is using (cuts with `viewOf` take one, or make one when none is spare). */
  private readonly spareClip: ViewClip[] = [];
  private readonly record = new ScratchList<number>();
  private captured = -1;
  private ended = false;

  /** @internal Made by ReplicationServer.record. */
  constructor(
    private readonly source: RecorderSource,
    private readonly options: RecorderOptions,
  ) {
    const where = 'ReplicationServer.record';
    const { tickRate } = options;
    if (!Number.isInteger(tickRate) || tickRate < 1 || tickRate > 1000)
      throw new RangeError(`${where}: tickRate must be an integer in [1, 1000], got ${tickRate}`);
    const keyframeSeconds = options.keyframeSeconds ?? 5;
    const keyframeTicks = Math.round(keyframeSeconds * tickRate);
    if (!(keyframeTicks >= 1 && keyframeTicks <= MAX_CHUNK_FRAMES))
      throw new RangeError(
        `${where}: keyframeSeconds must give 1..${MAX_CHUNK_FRAMES} ticks at ${tickRate} Hz, got ${keyframeSeconds}`,
      );
    const keepSeconds = options.keepSeconds ?? 90;
    if (!(keepSeconds > 0 && keepSeconds < 1e7))
      throw new RangeError(`${where}: keepSeconds must be a number of seconds > 0, got ${keepSeconds}`);
    this.keepTicks = Math.ceil(keepSeconds * tickRate);
    const name = options.name ?? '';
    if (new TextEncoder().encode(name).length > MAX_NAME_BYTES)
      throw new RangeError(`${where}: name must take at most ${MAX_NAME_BYTES} UTF-8 bytes`);
    const world = source.world;
    this.header = {
      configuration: source.configuration,
      tickRate,
      capacity: world.capacity,
      keyframeTicks,
      startTick: 0,
      name,
    };
    const createBits = Math.max(0, ...world.types.map((t) => maxDeltaBits(t.layout))) + 64;
    this.sectionBytes = 256 * 1024 + world.capacity * Math.ceil(createBits / 8);
    this.ws = new WriteStream(this.sectionBytes);
  }

  /** The oldest tick held in memory (-1 before the first capture). */
  get firstTick(): number {
    return (
      this.chunks[0]?.firstTick ?? (this.open !== null && this.open.frames > 0 ? this.open.firstTick : -1)
    );
  }

  /** The newest tick recorded (-1 before the first capture). */
  get lastTick(): number {
    return this.open !== null && this.open.frames > 0
      ? this.open.lastTick
      : (this.chunks.at(-1)?.lastTick ?? -1);
  }

  /** Bytes of the recording held in memory. */
  get byteLength(): number {
    let bytes = this.open?.byteLength ?? 0;
    for (const c of this.chunks) bytes += c.body.length;
    return bytes;
  }

  /** Whether `stop()` was called (then `capture` does nothing). */
  get stopped(): boolean {
    return this.ended;
  }

  /** Records the world's current tick (once per tick; call it right after `world.tick()`). */
  capture(): void {
    if (this.ended) return; // stopped: what is held stays, nothing more is recorded
    const world = this.source.world;
    const tick = world.serverTick;
    if (tick === this.captured || tick === 0) return;
    this.captured = tick;
    const open = this.open;
    if (open !== null && this.sender !== null && tick - open.firstTick < this.header.keyframeTicks) {
      this.write(this.sender, open, tick);
    } else {
      // The chunk ends with this tick and the next starts with it as a keyframe: chunks overlap by
      // one tick, so linear play goes from one to the next without losing the states it holds.
      if (open !== null && this.sender !== null) {
        this.write(this.sender, open, tick);
        open.reach(tick);
      }
      this.close();
      this.sender = this.source.restart();
      this.open = new ChunkBuilder(tick);
      this.write(this.sender, this.open, tick);
    }
    this.open?.reach(tick);
    this.trim(tick);
  }

  /**
   * The bytes of a .gwr file holding the newest `seconds` (default: all held): from the keyframe
   * at or before its start (its header's startTick is where showing starts), to the last tick.
   *
   * With `viewOf` (an entity id) and a world with relevancy by distance, the file holds at each
   * tick only what a client's view following that entity held then: the entities within the
   * interest radius of its recorded position (with the live enter / leave hysteresis), the types
   * without a position, and the entity itself; entity events about the others are left out. It
   * starts with a keyframe at its start tick (see ViewClip for the rules). Without relevancy, or
   * when the entity's type has no position, it holds the whole public world, as without `viewOf`.
   */
  save(options: { seconds?: number; viewOf?: number } = {}): Uint8Array {
    const cut = this.cutAt('Recorder.save', options);
    while (!cut.step()) {}
    return cut.bytes;
  }

  /**
   * The clip `save` would give now, cut in slices: its span is fixed at this call (the cut holds
   * the chunks it needs, so later captures and the ring's trimming do not change it), and each
   * `step()` does a bounded slice of the work (one recorded section decoded, or 1,024 entity ids
   * of the view planned, or one section of the clip written; without a view, the whole file at
   * once). The bytes are equal to `save`'s with the same options at the same moment. Cuts do not
   * share state: any number may be pending, stepped in any order, each holding its span's chunks
   * (the open chunk's bytes copied) until done or cancelled.
   */
  cut(options: { seconds?: number; viewOf?: number } = {}): RecordingCut {
    return this.cutAt('Recorder.cut', options);
  }

  private cutAt(where: string, options: { seconds?: number; viewOf?: number }): RecordingCut {
    const { seconds, viewOf } = options;
    if (seconds !== undefined && !(seconds > 0))
      throw new RangeError(`${where}: seconds must be > 0, got ${seconds}`);
    if (viewOf !== undefined && !(Number.isInteger(viewOf) && viewOf >= 0 && viewOf < this.header.capacity))
      throw new RangeError(
        `${where}: viewOf must be an entity id in [0, ${this.header.capacity}), got ${viewOf}`,
      );
    const all = this.chunks.slice();
    if (this.open !== null && this.open.frames > 0) all.push(this.open.snapshot());
    const last = all.at(-1)?.lastTick ?? 0;
    const from =
      seconds === undefined ? 0 : Math.max(0, last - Math.round(seconds * this.header.tickRate) + 1);
    let first = 0;
    for (let i = 0; i < all.length; i++) if (all[i].firstTick <= from) first = i;
    const kept = all.slice(first);
    const startTick = Math.max(from, kept[0]?.firstTick ?? 0);
    const header = { ...this.header, startTick };
    const view = this.source.view;
    if (viewOf === undefined || view === undefined || kept.length === 0) {
      return new RecordingCut({ next: () => ({ done: true, value: encodeReplay(header, kept) }) }, () => {});
    }
    // The ViewClip (as big as the world) is taken at the first step, so pending cuts hold only chunks.
    let clip: ViewClip | null = null;
    const work = function* (this: Recorder): Generator<void, Uint8Array> {
      clip = this.spareClip.pop() ?? this.makeViewClip();
      return yield* clip.steps(header, kept, viewOf);
    }.call(this);
    return new RecordingCut(work, () => {
      if (clip !== null && this.spareClip.length === 0) this.spareClip.push(clip);
      clip = null;
    });
  }

  private makeViewClip(): ViewClip {
    const world = this.source.world;
    return new ViewClip(
      {
        types: world.types,
        capacity: world.capacity,
        historyLength: world.historyLength,
        events: this.source.events ?? [],
      },
      this.source.view!,
      this.sectionBytes,
    );
  }

  /** Writes the section of `sender` for `tick` into `chunk` (nothing when it has nothing to say). */
  private write(sender: GhostSender, chunk: ChunkBuilder, tick: number): void {
    const now = tick / this.header.tickRate;
    if (sender.select(now, UNLIMITED_BITS) === 0) return;
    const { ws, record } = this;
    ws.reset();
    record.clear();
    sender.writeSelected(ws, now, record);
    sender.acked(record.items, 0, record.length);
    chunk.append(tick, ws.finish());
  }

  /** Ends the recording: the virtual client leaves the server (what is held can still be saved). */
  stop(): void {
    if (this.ended) return;
    this.ended = true;
    this.close();
    this.sender = null;
    this.source.stop();
  }

  /** Closes the open chunk (it goes to the ring and to onChunk). */
  private close(): void {
    const open = this.open;
    this.open = null;
    if (open === null || open.frames === 0) return;
    const chunk = open.snapshot();
    this.chunks.push(chunk);
    this.options.onChunk?.(chunk);
  }

  /** Forgets chunks the ring no longer needs: those before the keyframe at or before now − keepSeconds. */
  private trim(tick: number): void {
    const oldest = tick - this.keepTicks + 1;
    const chunks = this.chunks;
    let drop = 0;
    while (drop < chunks.length && (chunks[drop + 1]?.firstTick ?? this.open!.firstTick) <= oldest) drop++;
    if (drop > 0) chunks.splice(0, drop);
  }
}
