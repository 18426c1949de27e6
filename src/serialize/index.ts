export {
  type CompressedFloat,
  type CompressedFloatOptions,
  compressedFloat,
  compressedFloatProblem,
  dequantize,
  quantize,
} from './compressed-float.js';
export { crc32 } from './crc32.js';
export { MeasureStream } from './measure-stream.js';
export {
  ENVELOPE_OVERHEAD_BYTES,
  type EnvelopeOptions,
  type EnvelopeReadResult,
  PacketEnvelope,
} from './packet-envelope.js';
export {
  type Quaternion,
  type SmallestThree,
  serializeCompressedQuaternion,
  serializeQuaternion,
  serializeSmallestThree,
  smallestThree,
} from './quaternion.js';
export { ReadStream } from './read-stream.js';
export { serializeIntRelative, serializeSequenceRelative } from './relative.js';
export { SERIALIZE_CHECK_VALUE, type Stream } from './stream.js';
export {
  chooseSubsetEncoding,
  serializeSubset,
  serializeSubsetBitmask,
  serializeSubsetIndices,
  serializeSubsetRelative,
  serializeSubsetSentinel,
} from './subset.js';
export { serializeCompressedVector3, serializeVector3, type Vector3 } from './vector.js';
export { WriteStream } from './write-stream.js';
