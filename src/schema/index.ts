export { type Codec, type CodecOptions, codegenAvailable, compile, type DecodeResult } from './codec.js';
export { SchemaValueError, serializeNode } from './interpret.js';
export { type Infer, type Schema, type SchemaNode, t } from './schema.js';
export {
  type DecodeBound,
  decodeBound,
  fixedBits,
  MAX_FIXED_VALUES,
  MAX_VALUES_PER_BIT,
  maxBits,
} from './size.js';
