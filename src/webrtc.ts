/**
 * `ghostwire/webrtc` (Node): the WebRTC data-channel server transport and the HTTP signalling route
 * browsers post their offer to (`WebRtcClientTransport` in `ghostwire/transport`). Needs the
 * `node-datachannel`, `hono` and `@hono/node-server` packages.
 * Like `ghostwire/node`, it registers node:crypto's AEAD as the default: a process that imports it
 * is a Node server.
 */
import { registerDefaultAead } from './connection/aead.js';
import { nodeAead } from './connection/aead-node.js';

registerDefaultAead(nodeAead);

export type { SignalingResponse } from './transport/webrtc-offer.js';
export {
  type WebRtcServerCounters,
  WebRtcServerTransport,
  type WebRtcServerTransportOptions,
} from './transport/webrtc-server.js';
export {
  createSignalingApp,
  type OfferHandler,
  type SignalingRouteOptions,
  signalingRoute,
} from './transport/webrtc-signaling.js';
