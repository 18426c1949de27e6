export { DEFAULT_RELIABLE_CONFIG, type ReliableConfig, reliableConfig } from './config.js';
export {
  FRAGMENT_HEADER_BYTES,
  type FragmentHeader,
  MAX_PACKET_HEADER_BYTES,
  type PacketHeader,
  readFragmentHeader,
  readPacketHeader,
  writeFragmentHeader,
  writePacketHeader,
} from './header.js';
export {
  emptyReliableCounters,
  type ReliableCounters,
  ReliableEndpoint,
  type ReliableHandler,
} from './reliable-endpoint.js';
export { sequenceGreaterThan, sequenceLessThan } from './sequence.js';
export { SequenceBuffer } from './sequence-buffer.js';
