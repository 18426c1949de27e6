/**
 * `ghostwire/serialize`: bit packing and the serialize streams (one function writes, reads and
 * measures), the compressed forms (floats, vectors, quaternions, subsets, relative integers), CRC32
 * and the packet envelope. Browser-safe.
 */
export { BitReader } from '../bits/bit-reader.js';
export { BitWriter, BitWriterOverflowError } from '../bits/bit-writer.js';
export { bitsRequired, bitsRequired64 } from '../bits/bits-required.js';
export {
  type CompressedFloat,
  type CompressedFloatOptions,
  compressedFloat,
  dequantize,
  quantize,
} from './compressed-float.js';
export { crc32 } from './crc32.js';
export {
  ENVELOPE_OVERHEAD_BYTES,
  type EnvelopeOptions,
  type EnvelopeReadResult,
  PacketEnvelope,
} from './envelope.js';
export { MeasureStream } from './measure-stream.js';
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
export type { Stream } from './stream.js';
export {
  serializeSubset,
  serializeSubsetBitmask,
  serializeSubsetIndices,
  serializeSubsetRelative,
  serializeSubsetSentinel,
} from './subset.js';
export { serializeCompressedVector3, serializeVector3, type Vector3 } from './vector.js';
export { WriteStream } from './write-stream.js';
