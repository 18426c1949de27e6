export { type CompressedFloat, compressedFloat, dequantize, quantize } from './compressed-float.js';
export { MeasureStream } from './measure-stream.js';
export { ReadStream } from './read-stream.js';
export { serializeIntRelative, serializeSequenceRelative } from './relative.js';
export { SERIALIZE_CHECK_VALUE, type Stream } from './stream.js';
export { WriteStream } from './write-stream.js';
