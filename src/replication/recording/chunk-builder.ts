import type { ReplayChunk } from './gwr-format.js';

/** The open chunk of a recording: frames appended to one growing buffer (doubling, so appends are amortized O(1)). */
export class ChunkBuilder {
  private buffer = new Uint8Array(4096);
  private length = 0;
  frames = 0;
  lastTick = 0;
  /** The tick of the last frame appended (the next frame's delta is from it). */
  private lastFrameTick = 0;

  /** The tick of the first frame (the keyframe); until one is appended, the tick the chunk opened at. */
  firstTick: number;

  constructor(openedAt: number) {
    this.firstTick = openedAt;
    this.lastTick = openedAt;
  }

  /** Appends the frame of `tick` (after the last one's) with its section's bytes. */
  append(tick: number, section: Uint8Array): void {
    this.reserve(10 + section.length);
    if (this.frames === 0) this.firstTick = tick;
    this.varint(this.frames === 0 ? 0 : tick - this.lastFrameTick);
    this.varint(section.length);
    this.buffer.set(section, this.length);
    this.length += section.length;
    this.frames++;
    this.lastTick = tick;
    this.lastFrameTick = tick;
  }

  /** The chunk covers `tick` (captured with nothing to say: no frame); only once it has a frame. */
  reach(tick: number): void {
    if (this.frames > 0) this.lastTick = tick;
  }

  /** The chunk as it stands (its body copied, so the builder may go on). */
  snapshot(): ReplayChunk {
    return {
      firstTick: this.firstTick,
      lastTick: this.lastTick,
      frames: this.frames,
      body: this.buffer.slice(0, this.length),
    };
  }

  get byteLength(): number {
    return this.length;
  }

  private varint(value: number): void {
    let v = value >>> 0;
    while (v >= 0x80) {
      this.buffer[this.length++] = (v & 0x7f) | 0x80;
      v >>>= 7;
    }
    this.buffer[this.length++] = v;
  }

  private reserve(bytes: number): void {
    if (this.length + bytes <= this.buffer.length) return;
    let size = this.buffer.length * 2;
    while (size < this.length + bytes) size *= 2;
    const grown = new Uint8Array(size);
    grown.set(this.buffer.subarray(0, this.length));
    this.buffer = grown;
  }
}
