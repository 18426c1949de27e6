/**
 * `ghostwire/transport`: datagram transports, browser-safe: the interface, the in-memory network,
 * the network simulator, the WebSocket and WebRTC clients and `connectTransport`, which picks the
 * best of them. The Node ends have their own entry points: the UDP transport (`ghostwire/node`),
 * the WebSocket server (`ghostwire/websocket`, needs ws) and the WebRTC server
 * (`ghostwire/webrtc`, needs node-datachannel and hono).
 */
export {
  type Address,
  formatAddress,
  isAddress,
  type ParsedAddress,
  parseAddress,
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
  type ResolvedLinkConditions,
} from './simulator.js';
export type { DatagramHandler, DatagramTransport, TransportStats } from './transport.js';
export {
  type FetchFunction,
  type RtcPeerConnectionConstructor,
  type WebRtcClientState,
  WebRtcClientTransport,
  type WebRtcClientTransportOptions,
} from './webrtc-client.js';
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
