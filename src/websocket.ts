/**
 * `ghostwire/websocket` (Node): the WebSocket server transport, for browsers that connect with
 * `WebSocketClientTransport` (`ghostwire/transport`). Needs the `ws` package.
 * Like `ghostwire/node`, it registers node:crypto's AEAD as the default: a process that imports it
 * is a Node server.
 */
import { registerDefaultAead } from './connection/aead.js';
import { nodeAead } from './connection/aead-node.js';

registerDefaultAead(nodeAead);

export {
  type PeerCloseReason,
  type WebSocketServerStats,
  WebSocketServerTransport,
  type WebSocketServerTransportOptions,
} from './transport/websocket-server.js';
