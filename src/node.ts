/**
 * `ghostwire/node`: everything in the browser-safe entry point plus what needs Node's modules:
 * UDP sockets, the WebSocket server transport, and node:crypto's native ChaCha20-Poly1305,
 * registered here as the default AEAD.
 */
import { registerDefaultAead } from './connection/aead.js';
import { nodeAead } from './connection/aead-node.js';

registerDefaultAead(nodeAead);

export { nodeAead } from './connection/aead-node.js';
export * from './index.js';
export { UdpTransport, type UdpTransportOptions } from './transport/udp-transport.js';
export type { SignalingResponse } from './transport/webrtc-offer.js';
export {
  WebRtcServerCounters,
  WebRtcServerTransport,
  type WebRtcServerTransportOptions,
} from './transport/webrtc-server.js';
export {
  createSignalingApp,
  type OfferHandler,
  type SignalingRouteOptions,
  signalingRoute,
} from './transport/webrtc-signaling.js';
export {
  type PeerCloseReason,
  type WebSocketServerStats,
  WebSocketServerTransport,
  type WebSocketServerTransportOptions,
} from './transport/websocket-server.js';

// game API: GameServer, and UDP for GameClient (registered on import, as the AEAD is)
import './game/udp-opener.js';

export { GameServer, type GameServerOptions, type GameServerStats } from './game/game-server.js';
export type { GameSimulation, GameSimulationCounters } from './game/game-simulation.js';
export type { GameTransportKind } from './game/server-transports.js';
