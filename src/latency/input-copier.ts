import type { Codec } from '../schema/codec.js';
import { ReadStream } from '../serialize/read-stream.js';
import { WriteStream } from '../serialize/write-stream.js';

/** The largest input, bits: every unacked input rides every packet, so inputs must be small. */
export const MAX_INPUT_BITS = 4096;

/** Refuses a schema whose values can exceed MAX_INPUT_BITS. */
export function checkInputSchema(where: string, codec: Codec<unknown>): void {
  if (codec.maxBits > MAX_INPUT_BITS)
    throw new RangeError(
      `${where}: an input can take ${codec.maxBits} bits; at most ${MAX_INPUT_BITS} (inputs are resent in every packet until acked)`,
    );
}

/**
 * Copies inputs through their encoding: the copy is the value as the other end decodes it
 * (quantized), and two inputs are equal exactly when their encodings are. Targets are filled in
 * place, so nothing is allocated once every slot holds an object.
 */
export class InputCopier<T> {
  private readonly ws: WriteStream;
  private readonly rs = new ReadStream(64);
  private current: Uint8Array;
  private currentLength = 0;
  private previous: Uint8Array;
  private previousLength = -1;

  constructor(private readonly codec: Codec<T>) {
    const bytes = Math.ceil(codec.maxBits / 8) + 8;
    this.ws = new WriteStream(bytes);
    this.current = new Uint8Array(bytes);
    this.previous = new Uint8Array(bytes);
  }

  /**
   * Encodes `input` (a value outside the schema throws, changing nothing); true when it equals the
   * previous input encoded (the one `currentInto` last kept).
   */
  encode(input: T): boolean {
    const ws = this.ws;
    ws.reset();
    this.codec.write(ws, input);
    const bytes = ws.finish();
    this.current.set(bytes);
    this.currentLength = bytes.length;
    if (this.previousLength !== bytes.length) return false;
    for (let i = 0; i < bytes.length; i++) if (this.previous[i] !== bytes[i]) return false;
    return true;
  }

  /** The encoded input decoded into `target`; it becomes the previous input. */
  currentInto(target: T | undefined): T {
    const value = this.decode(this.current, this.currentLength, target);
    const swap = this.previous;
    this.previous = this.current;
    this.previousLength = this.currentLength;
    this.current = swap;
    return value;
  }

  /** The previous input decoded into `target` (a repeat of it). */
  previousInto(target: T | undefined): T {
    return this.decode(this.previous, this.previousLength, target);
  }

  /** `from` copied into `target` (as its encoding decodes). */
  copy(from: T, target: T | undefined): T {
    const ws = this.ws;
    ws.reset();
    this.codec.write(ws, from);
    const bytes = ws.finish();
    return this.decode(bytes, bytes.length, target);
  }

  /** No previous input any more (a new connection). */
  forget(): void {
    this.previousLength = -1;
  }

  private decode(bytes: Uint8Array, length: number, target: T | undefined): T {
    this.rs.reset(bytes, 0, length);
    const value = this.codec.read(this.rs, target);
    // Unreachable: the bytes are this codec's own encoding.
    if (value === null) throw new Error(`input copy: ${this.rs.error}`);
    return value;
  }
}
