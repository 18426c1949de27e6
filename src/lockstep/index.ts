/**
 * `ghostwire/p2p`: peer-to-peer play: deterministic lockstep and rollback sessions, the peer links
 * they run over (secure, or in memory), and deterministic math and randomness. Browser-safe.
 */
export { DeterministicRandom } from './deterministic-random.js';
export { dmath } from './dmath.js';
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
export type { PeerPath } from './peer-pair.js';
export type { RefusalReason as RollbackRefusalReason } from './rollback-channel.js';
export type { RollbackGame, RollbackSessionOptions } from './rollback-options.js';
export { RollbackSession } from './rollback-session.js';
export type {
  AdvanceResult,
  RollbackEvent,
  RollbackPeerStats,
  RollbackState,
  RollbackStats,
} from './rollback-stats.js';
export {
  SecurePeerLinks,
  type SecurePeerLinksCounters,
  type SecurePeerLinksOptions,
} from './secure-peer-links.js';
export { stateChecksum } from './state-checksum.js';
export { type SyncTestMismatch, type SyncTestOptions, type SyncTestResult, syncTest } from './sync-test.js';
