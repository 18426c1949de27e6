export { DeterministicRandom } from './deterministic-random.js';
export { LocalPeerLinks, type LocalPeerLinksOptions } from './local-peer-links.js';
export { PeerConnection } from './peer-connection.js';
export type { PeerLinkEvent, PeerLinkEventKind, PeerLinks } from './peer-links.js';
export type { PeerPath } from './peer-pair.js';
export { PEER_TOKEN_BYTES, type PeerToken, type PeerTokenResult, readPeerToken } from './peer-token.js';
export {
  SecurePeerLinks,
  type SecurePeerLinksCounters,
  type SecurePeerLinksOptions,
} from './secure-peer-links.js';
export { stateChecksum } from './state-checksum.js';
