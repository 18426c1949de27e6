/**
 * `ghostwire/webrtc` (Node): the WebRTC data-channel server transport and the HTTP signalling route
 * browsers post their offer to (`WebRtcClientTransport` in `ghostwire/transport`). Needs the
 * `node-datachannel`, `hono` and `@hono/node-server` packages.
 * Like `ghostwire/node`, it registers the fastest Node AEAD as the default (libsodium's WebAssembly
 * one, else node:crypto's): a process that imports it is a Node server.
 */
// Registers the default AEAD on import (a top-level await: libsodium's WebAssembly loads first).
import './connection/aead-node-default.js';

export type { SignalingResponse } from './transport/webrtc-offer.js';
export {
  type WebRtcServerCounters,
  WebRtcServerTransport,
  type WebRtcServerTransportOptions,
} from './transport/webrtc-server-transport.js';
export {
  createSignalingApp,
  type OfferHandler,
  type SignalingRouteOptions,
  signalingRoute,
} from './transport/webrtc-signaling.js';
