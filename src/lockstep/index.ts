export { DeterministicRandom } from './deterministic-random.js';
export { LocalPeerLinks, type LocalPeerLinksOptions } from './local-peer-links.js';
export { PeerConnection } from './peer-connection.js';
export type { PeerLinkEvent, PeerLinkEventKind, PeerLinks } from './peer-links.js';
export { stateChecksum } from './state-checksum.js';
