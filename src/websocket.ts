/**
 * `ghostwire/websocket` (Node): the WebSocket server transport, for browsers that connect with
 * `WebSocketClientTransport` (`ghostwire/transport`). Needs the `ws` package.
 */
export {
  type PeerCloseReason,
  type WebSocketServerStats,
  WebSocketServerTransport,
  type WebSocketServerTransportOptions,
} from './transport/websocket-server.js';
