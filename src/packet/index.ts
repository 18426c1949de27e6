/**
 * `ghostwire/packet`: the reliable packet layer (acks, fragmentation, delivery notification) and its
 * sequence helpers. Browser-safe.
 */
export { DEFAULT_RELIABLE_CONFIG, type ReliableConfig, reliableConfig } from './config.js';
export { type ReliableCounters, ReliableEndpoint, type ReliableHandler } from './endpoint.js';
export { sequenceGreaterThan, sequenceLessThan } from './sequence.js';
export { SequenceBuffer } from './sequence-buffer.js';
