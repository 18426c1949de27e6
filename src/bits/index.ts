export { BitReader } from './bit-reader.js';
export { BitWriter, BitWriterOverflowError } from './bit-writer.js';
export { bitsRequired, bitsRequired64 } from './bits-required.js';
