/**
 * `ghostwire/webrtc` (Node-only): the WebRTC server transport (data channels on one UDP port) and
 * its signalling route. It needs the optional packages `node-datachannel` (a native addon), `hono`
 * and `@hono/node-server`; importing this entry without one of them throws an Error naming it.
 */
export type { SignalingResponse } from './transport/webrtc-offer.js';
export {
  WebRtcServerCounters,
  WebRtcServerTransport,
  type WebRtcServerTransportOptions,
} from './transport/webrtc-server-transport.js';
export {
  createSignalingApp,
  type OfferHandler,
  type SignalingRouteOptions,
  signalingRoute,
} from './transport/webrtc-signaling.js';
