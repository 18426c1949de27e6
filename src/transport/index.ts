/**
 * Datagram transports, browser-safe: the interface, the in-memory network and the network
 * simulator, the WebSocket client. The UDP and WebSocket server transports need Node's modules:
 * import them from `ghostwire/node`.
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
  DEFAULT_WEBSOCKET_MAX_DATAGRAM,
  type WebSocketClientState,
  type WebSocketClientStats,
  WebSocketClientTransport,
  type WebSocketClientTransportOptions,
  type WebSocketCloseInfo,
  type WebSocketConstructor,
  type WebSocketLike,
} from './websocket-client.js';
