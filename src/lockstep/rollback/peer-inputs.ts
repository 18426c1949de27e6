import type { Codec } from '../../schema/codec.js';
import { ReadStream } from '../../serialize/read-stream.js';
import { WriteStream } from '../../serialize/write-stream.js';

/** Frames of inputs a peer's queue holds (a power of two): far more than any rollback needs. */
export const INPUT_RING = 256;
const MASK = INPUT_RING - 1;

/**
 * One peer's inputs by frame, a ring of the newest INPUT_RING: each as its encoding (what peers
 * compare: two inputs are equal exactly when their bytes are) and decoded (what the game reads).
 * Frames arrive in order only, so the queue is "every frame up to `last`"; a frame past `last`
 * is predicted by repeating the input of `last` (GGPO's and GGRS's prediction).
 */
export class PeerInputs<I> {
  /** The newest frame held; frames before the input delay hold the initial input. */
  last: number;
  private readonly bytes: Uint8Array[] = [];
  private readonly lengths = new Int32Array(INPUT_RING);
  private readonly values: I[] = [];
  private readonly ws: WriteStream;
  private readonly rs = new ReadStream(64);

  constructor(
    private readonly codec: Codec<I>,
    initialInput: I,
    inputDelay: number,
  ) {
    const maxBytes = Math.ceil(codec.maxBits / 8) + 8;
    this.ws = new WriteStream(maxBytes);
    for (let i = 0; i < INPUT_RING; i++) this.bytes.push(new Uint8Array(maxBytes));
    // Frame -1 holds the initial input too: the prediction before anything arrived.
    this.last = -2;
    for (let f = -1; f < inputDelay; f++) this.push(initialInput);
  }

  /** Whether frame `f`'s input is still in the ring (received and not yet overwritten). */
  holds(f: number): boolean {
    return f <= this.last && f > this.last - INPUT_RING;
  }

  /** The input of frame `f`: held, or predicted (the newest) when `f` is past `last`. */
  valueAt(f: number): I {
    return this.values[Math.min(f, this.last) & MASK];
  }

  /** Encodes `input` (a value outside the schema throws, changing nothing) into the scratch stream. */
  encode(input: I): Uint8Array {
    this.ws.reset();
    this.codec.write(this.ws, input);
    return this.ws.finish();
  }

  /** Whether `encoded` equals the input held for frame `f` (which must be held). */
  equals(f: number, encoded: Uint8Array): boolean {
    const slot = f & MASK;
    if (this.lengths[slot] !== encoded.length) return false;
    const held = this.bytes[slot];
    for (let i = 0; i < encoded.length; i++) if (held[i] !== encoded[i]) return false;
    return true;
  }

  /** Whether frames `a` and `b` (both held) have equal inputs. */
  same(a: number, b: number): boolean {
    const sa = a & MASK;
    const sb = b & MASK;
    const length = this.lengths[sa];
    if (this.lengths[sb] !== length) return false;
    const x = this.bytes[sa];
    const y = this.bytes[sb];
    for (let i = 0; i < length; i++) if (x[i] !== y[i]) return false;
    return true;
  }

  /** Appends frame `last + 1`; returns its decoded input (the queue's copy). */
  push(input: I): I {
    return this.pushEncoded(this.encode(input));
  }

  /** Appends frame `last + 1` from its encoding (this codec's own bytes). */
  pushEncoded(encoded: Uint8Array): I {
    const frame = this.last + 1;
    const slot = frame & MASK;
    this.bytes[slot].set(encoded);
    this.lengths[slot] = encoded.length;
    this.rs.reset(this.bytes[slot], 0, encoded.length);
    const value = this.codec.read(this.rs, this.values[slot]);
    // Unreachable: the bytes are this codec's own encoding.
    if (value === null) throw new Error(`PeerInputs: ${this.rs.error}`);
    this.values[slot] = value;
    this.last = frame;
    return value;
  }

  /** Forgets every frame after `frame` (held): a departed peer's inputs past its agreed last frame. */
  truncate(frame: number): void {
    if (frame < this.last) this.last = frame;
  }

  /** Writes frame `f`'s input (held) with the codec. */
  write(ws: WriteStream, f: number): void {
    this.codec.write(ws, this.values[f & MASK]);
  }

  /** Bits frame `f`'s input (held) takes. */
  bits(f: number): number {
    return this.lengths[f & MASK] * 8;
  }
}
