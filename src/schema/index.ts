/**
 * `ghostwire/schema`: declare a value's shape once with `t` and get a codec that writes, reads and
 * measures it, with the bounds a reader can trust. Browser-safe.
 */
export { type Codec, type CodecOptions, codegenAvailable, compile, type DecodeResult } from './codec.js';
export { SchemaValueError } from './interpret.js';
export { type Infer, type Schema, type SchemaNode, t } from './schema.js';
export { type DecodeBound, decodeBound, fixedBits, maxBits } from './size.js';
