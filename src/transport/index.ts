/**
 * Datagram transports, browser-safe: the interface, the in-memory network, the network simulator
 * and the WebSocket and WebRTC clients. The UDP transport (node:dgram), the WebSocket server (ws)
 * and the WebRTC server (node-datachannel) need Node: they are exported from `ghostwire/node`,
 * `ghostwire/websocket` and `ghostwire/webrtc`.
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
  type ConnectedTransport,
  type ConnectTransportOptions,
  connectTransport,
  type TransportChoice,
  type TransportKind,
} from './fallback-client.js';
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
  type NetworkSimulatorStats,
  type ResolvedLinkConditions,
} from './network-simulator.js';
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
} from './webrtc-client-transport.js';
export {
  DEFAULT_WEBSOCKET_MAX_DATAGRAM,
  type WebSocketClientState,
  type WebSocketClientStats,
  WebSocketClientTransport,
  type WebSocketClientTransportOptions,
  type WebSocketCloseInfo,
  type WebSocketConstructor,
  type WebSocketLike,
} from './websocket-client-transport.js';
