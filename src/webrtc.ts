/**
 * `ghostwire/webrtc` (Node): the WebRTC data-channel server transport and the HTTP signalling route
 * browsers post their offer to (`WebRtcClientTransport` in `ghostwire/transport`). Needs the
 * `node-datachannel`, `hono` and `@hono/node-server` packages.
 */
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
