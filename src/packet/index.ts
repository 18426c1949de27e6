export { DEFAULT_RELIABLE_CONFIG, type ReliableConfig, reliableConfig } from './config.js';
export {
  emptyReliableCounters,
  type ReliableCounters,
  ReliableEndpoint,
  type ReliableHandler,
} from './endpoint.js';
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
export { sequenceGreaterThan, sequenceLessThan } from './sequence.js';
export { SequenceBuffer } from './sequence-buffer.js';
