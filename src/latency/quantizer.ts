import { compile } from '../schema/codec.js';
import type { Schema } from '../schema/schema.js';
import { ReadStream } from '../serialize/read-stream.js';

/**
 * A value as the wire carries it: written through its schema and read back, into `target` when
 * given (its nested objects and arrays reused: no allocation after the first call) or a new
 * object. Floats land on their quantization grid (float32 rounding, a compressed float's
 * resolution), so two sides that quantize after every step compute the same states. A value the
 * schema refuses throws its SchemaValueError.
 */
export type Quantizer<T> = (value: T, target?: T) => T;

/** Compiles the quantizer of a schema: once per type. */
export function compileQuantizer<T>(schema: Schema<T>): Quantizer<T> {
  const codec = compile(schema);
  const reader = new ReadStream();
  return (value, target) => {
    reader.reset(codec.encode(value));
    const copy = codec.read(reader, target);
    // Bytes the codec has just written always read back; anything else is a bug here.
    if (copy === null) throw new Error(`quantize: a value did not read back: ${reader.error}`);
    return copy;
  };
}
