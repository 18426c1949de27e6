/**
 * Datagram transports, browser-safe: the interface, the in-memory network, the network simulator
 * and the WebRTC client. The UDP transport needs node:dgram and the WebRTC server node-datachannel:
 * they are exported from `ghostwire/node`.
 */
export {
  type Address,
  formatAddress,
  isAddress,
  isIPv6,
  type ParsedAddress,
  parseAddress,
  parseHost,
  toAddress,
} from './address.js';
export {
  MemoryNetwork,
  type MemoryNetworkOptions,
  MemoryTransport,
  type MemoryTransportOptions,
} from './memory-transport.js';
export {
  type BurstLoss,
  type LinkConditions,
  type LinkCounters,
  type LinkDirection,
  NetworkSimulator,
  type NetworkSimulatorOptions,
  type ResolvedLinkConditions,
} from './simulator.js';
export {
  type DatagramHandler,
  DatagramQueue,
  type DatagramTransport,
  PooledDatagram,
  TransportCounters,
  type TransportStats,
} from './transport.js';
export {
  type FetchFunction,
  type RtcPeerConnectionConstructor,
  type WebRtcClientState,
  WebRtcClientTransport,
  type WebRtcClientTransportOptions,
} from './webrtc-client.js';
