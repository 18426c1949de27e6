/**
 * The browser client entry, built into dist/browser/ghostwire.js by `npm run bundle`: everything
 * in the browser-safe entry point, with the pure-JS AEAD (@noble/ciphers) registered as the
 * default. It is already the default when nothing registers another; registering it here states
 * it, so a page never depends on what else the bundle happens to contain.
 */
import { nobleAead, registerDefaultAead } from './connection/aead.js';

registerDefaultAead(nobleAead);

export * from './index.js';
// The HTTP backend's client (fetch only): a page authenticates, joins or matchmakes, and gets its
// connect token the way a Node client does (ghostwire/services exports the same class).
export {
  BackendClient,
  type BackendClientOptions,
  BackendError,
  type FetchLike,
  type MatchedPeerSeat,
  type MatchmakeOptions,
  type PeerMatchmakeOptions,
  type PeerSeat,
  type Seated,
} from './join/backend-client.js';
export { type JoinAnswer, TRANSPORT_KINDS, type TransportKind } from './join/join-answer.js';
export type { PeerSessionAnswer } from './join/peer-session-answer.js';

// Client transports for browsers (WebSocket, WebRTC data channel; browser-safe, in src/transport/)
// are exported here, beside the core, as they land.
