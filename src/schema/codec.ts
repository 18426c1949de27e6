import { BitWriterOverflowError } from '../bits/bit-writer.js';
import { compressedFloatProblem } from '../serialize/compressed-float.js';
import { bitsToFloat32, float32Problem, float32ToBits } from '../serialize/float-bits.js';
import { MeasureStream } from '../serialize/measure-stream.js';
import { ReadStream } from '../serialize/read-stream.js';
import type { Stream } from '../serialize/stream.js';
import { checkedUtf8Length, utf8Length, utf8Read, utf8Write } from '../serialize/utf8.js';
import { WriteStream } from '../serialize/write-stream.js';
import { generate } from './generate.js';
import { SchemaValueError, serializeNode } from './interpret.js';
import type { Schema, SchemaNode } from './schema.js';
import { decodeBound, maxBits } from './size.js';

export type DecodeResult<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly error: string };

export interface CodecOptions {
  /**
   * Generate specialised code (default: whenever the runtime allows `new Function`). `false`
   * forces the interpreter, which gives the same bytes, for a Content-Security-Policy without
   * 'unsafe-eval'.
   */
  readonly codegen?: boolean;
}

/** A schema's write / read / measure functions. */
export interface Codec<T> {
  readonly schema: Schema<T>;
  /** True when the functions are generated code, false when the interpreter runs. */
  readonly compiled: boolean;
  /** The most bits a value can take (strings and arrays at their declared maxima). */
  readonly maxBits: number;
  /** Writes `value` into a stream; a value outside the schema throws a SchemaValueError naming its path. */
  write(stream: WriteStream, value: T): void;
  /**
   * Reads a value, filling `target` in place when given (no allocation for a reused target), or
   * returns null when the input is bad: the reason is `stream.error`. Never throws on input.
   */
  read(stream: ReadStream, target?: T): T | null;
  /** Bits `write` would take: an upper bound (aligns counted at their worst), exact for most schemas. */
  measure(value: T): number;
  /** The unified form: writes, reads or measures as the stream does. */
  serialize(stream: Stream, value: T): T;
  /** The value as bytes: a view of the codec's buffer, valid until the next `encode`. */
  encode(value: T): Uint8Array;
  /** Bytes to a value; rejects bad input (including trailing data) with a reason. Never throws. */
  decode(bytes: Uint8Array, target?: T): DecodeResult<T>;
}

interface Generated {
  write(ws: WriteStream, value: unknown): void;
  read(rs: ReadStream, target: unknown): unknown;
  measure(value: unknown): number;
}

let evalAllowed: boolean | undefined;
let codecsGenerated = 0;

/** Whether this runtime lets us generate code (a strict CSP forbids `new Function`). */
export function codegenAvailable(): boolean {
  if (evalAllowed === undefined) {
    try {
      evalAllowed = new Function('return true')() === true;
    } catch {
      evalAllowed = false;
    }
  }
  return evalAllowed;
}

/** Helpers the generated code calls (cold paths and kinds left to the interpreter). */
const helpers = {
  float32ToBits,
  float32Problem,
  compressedFloatProblem,
  bitsToFloat32,
  /** Captured at load (see utf8.ts on String.prototype in dictionary mode). */
  charCodeAt: String.prototype.charCodeAt,
  checkedUtf8Length,
  utf8Length,
  utf8Read,
  utf8Write,
  /** Why bytes[start, end) is not a string a reader accepts (the reasons ReadStream.string gives). */
  stringProblem(bytes: Uint8Array, start: number, end: number): string {
    const nul = bytes.indexOf(0, start);
    return nul >= 0 && nul < end ? 'NUL byte in string' : 'invalid UTF-8 in string';
  },
  node: serializeNode,
  /** True when no field name of the schema is on Object.prototype (nobody polluted it with one). */
  prototypeClean(names: readonly string[]): boolean {
    for (let i = 0; i < names.length; i++) if (names[i] in Object.prototype) return false;
    return true;
  },
  bad(path: string, detail: string): never {
    throw new SchemaValueError(path, detail);
  },
  rethrow(path: string, error: unknown): never {
    if (error instanceof BitWriterOverflowError) throw error;
    if (error instanceof SchemaValueError) throw new SchemaValueError(path + error.path, error.detail);
    throw new SchemaValueError(path, error instanceof Error ? error.message : String(error));
  },
  overflow(w: { capacityBytes: number }, at: number, bits: number): never {
    throw new BitWriterOverflowError(bits, at, w.capacityBytes);
  },
  fail(rs: ReadStream, path: string, reason: string): null {
    rs.fail(path === '' ? reason : `${path}: ${reason}`);
    return null;
  },
};

function interpreted(node: SchemaNode): Generated {
  const measure = new MeasureStream();
  return {
    write(ws, value) {
      serializeNode(ws, node, value);
    },
    read(rs, target) {
      const value = serializeNode(rs, node, target);
      return rs.ok ? value : null;
    },
    measure(value) {
      measure.reset();
      serializeNode(measure, node, value);
      return measure.bitsProcessed;
    },
  };
}

class SchemaCodec<T> implements Codec<T> {
  readonly compiled: boolean;
  readonly maxBits: number;
  private readonly impl: Generated;
  private writeStream: WriteStream | null = null;
  private readonly readStream = new ReadStream();

  constructor(
    readonly schema: Schema<T>,
    options: CodecOptions,
  ) {
    // Schemas built by hand rather than through t.* get the same refusal here.
    decodeBound(schema);
    this.maxBits = maxBits(schema);
    this.compiled = (options.codegen ?? true) && codegenAvailable();
    if (this.compiled) {
      const { source, constants } = generate(schema);
      // A unique first line, as a precaution: V8 caches eval'd code by its text, and two codecs of
      // one schema would then share their functions' feedback, which keeps the optimiser from
      // specialising either to its own constants and helpers (not measured to matter so far).
      const unique = `// ghostwire codec ${++codecsGenerated}\n`;
      this.impl = new Function('k', 'h', unique + source)(constants, helpers) as Generated;
    } else {
      this.impl = interpreted(schema);
    }
  }

  write(stream: WriteStream, value: T): void {
    this.impl.write(stream, value);
  }

  read(stream: ReadStream, target?: T): T | null {
    try {
      const value = this.impl.read(stream, target) as T | null;
      return stream.ok ? value : null;
    } catch (error) {
      // Unreachable on any input by design; kept so a bug can never escape as an exception.
      stream.fail(`internal error while reading: ${error instanceof Error ? error.message : String(error)}`);
      return null;
    }
  }

  measure(value: T): number {
    try {
      return this.impl.measure(value);
    } catch (error) {
      // Generated measuring checks only what it needs to count; on a malformed value let the
      // interpreter, which checks every type, report it with its path.
      if (this.compiled) interpreted(this.schema).measure(value);
      throw error;
    }
  }

  serialize(stream: Stream, value: T): T {
    if (stream instanceof WriteStream) {
      this.impl.write(stream, value);
      return value;
    }
    if (stream instanceof ReadStream) return (this.read(stream, value) ?? value) as T;
    return serializeNode(stream, this.schema, value);
  }

  encode(value: T): Uint8Array {
    // Most values fit the buffer an earlier encode sized: write straight away, skipping the
    // measuring pass (14% of the lobby encode). On any throw (overflow, or a bad value, which
    // measuring may report first when it has several faults) take the measured path below.
    const reused = this.writeStream;
    if (reused !== null) {
      reused.reset();
      try {
        this.impl.write(reused, value);
        return reused.finish();
      } catch {
        // Redone below.
      }
    }
    // A value past the schema's bounds measures past maxBits; the write below then rejects it.
    const bytes = (Math.min(this.measure(value), this.maxBits) + 7) >>> 3;
    if (this.writeStream === null || this.writeStream.writer.capacityBytes < bytes) {
      this.writeStream = new WriteStream(Math.max(bytes, 64));
    }
    const ws = this.writeStream;
    ws.reset();
    this.impl.write(ws, value);
    return ws.finish();
  }

  decode(bytes: Uint8Array, target?: T): DecodeResult<T> {
    const rs = this.readStream;
    rs.reset(bytes);
    const value = this.read(rs, target);
    if (value === null || !rs.end()) return { ok: false, error: rs.error ?? 'unknown error' };
    return { ok: true, value };
  }
}

/** Compiles a schema into its codec (generated code where allowed, the interpreter otherwise). */
export function compile<T>(schema: Schema<T>, options: CodecOptions = {}): Codec<T> {
  return new SchemaCodec(schema, options);
}
