/**
 * `ghostwire/websocket` (Node-only): the WebSocket server transport, which browsers reach with
 * WebSocketClientTransport. It needs the optional `ws` package (npm install ws@8); importing this
 * entry without it throws an Error naming it.
 */
export {
  type PeerCloseReason,
  type WebSocketServerStats,
  WebSocketServerTransport,
  type WebSocketServerTransportOptions,
} from './transport/websocket-server-transport.js';
