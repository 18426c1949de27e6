/**
 * `ghostwire/node`: everything in the browser-safe entry point plus what needs Node's modules:
 * UDP sockets and node:crypto's native ChaCha20-Poly1305, registered here as the default AEAD.
 * It loads no optional package: the WebSocket and WebRTC server transports are in
 * `ghostwire/websocket` and `ghostwire/webrtc`.
 */
import { registerDefaultAead } from './connection/aead.js';
import { nodeAead } from './connection/aead-node.js';

registerDefaultAead(nodeAead);

export { nodeAead } from './connection/aead-node.js';
export * from './index.js';
export { UdpTransport, type UdpTransportOptions } from './transport/udp-transport.js';
