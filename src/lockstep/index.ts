export { DeterministicRandom } from './deterministic-random.js';
export { LocalPeerLinks, type LocalPeerLinksOptions } from './local-peer-links.js';
export type {
  LockstepEvent,
  LockstepGame,
  LockstepLeaveReason,
  LockstepPeerStats,
  LockstepSessionOptions,
  LockstepState,
  LockstepStats,
  LockstepStatus,
} from './lockstep-options.js';
export { LockstepSession } from './lockstep-session.js';
export { PeerConnection } from './peer-connection.js';
export type { PeerLinkEvent, PeerLinkEventKind, PeerLinks } from './peer-links.js';
export { stateChecksum } from './state-checksum.js';
