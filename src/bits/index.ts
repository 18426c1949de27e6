export { BitReader } from './bit-reader.js';
export { BitWriter } from './bit-writer.js';
export { bitsRequired, bitsRequired64 } from './bits-required.js';
