/**
 * `ghostwire/websocket` (Node): the WebSocket server transport, for browsers that connect with
 * `WebSocketClientTransport` (`ghostwire/transport`). Needs the `ws` package.
 * Like `ghostwire/node`, it registers the fastest Node AEAD as the default (libsodium's WebAssembly
 * one, else node:crypto's): a process that imports it is a Node server.
 */
// Registers the default AEAD on import (a top-level await: libsodium's WebAssembly loads first).
import './connection/aead-node-default.js';

export {
  type PeerCloseReason,
  type WebSocketServerStats,
  WebSocketServerTransport,
  type WebSocketServerTransportOptions,
} from './transport/websocket-server-transport.js';
