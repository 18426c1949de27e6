/**
 * `ghostwire/node`: everything in `ghostwire` plus what needs Node's modules: UDP sockets and
 * node:crypto's native ChaCha20-Poly1305, registered here as the default AEAD. It loads no optional
 * package: the WebSocket server is in `ghostwire/websocket`, the WebRTC server in `ghostwire/webrtc`,
 * the fleet in `ghostwire/services`.
 */
import { registerDefaultAead } from './connection/aead.js';
import { nodeAead } from './connection/aead-node.js';

registerDefaultAead(nodeAead);

export { nodeAead } from './connection/aead-node.js';
export { type Infer, type Schema, SchemaValueError, t } from './index.js';
export { UdpTransport, type UdpTransportOptions } from './transport/udp-transport.js';

// game API
