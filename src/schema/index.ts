export { type Codec, type CodecOptions, codegenAvailable, compile, type DecodeResult } from './codec.js';
export { SchemaValueError, serializeNode } from './interpret.js';
export { type Infer, type Schema, type SchemaNode, t } from './schema.js';
export { fixedBits, maxBits } from './size.js';
