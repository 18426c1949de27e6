/**
 * `ghostwire/p2p`: peer-to-peer play: deterministic lockstep and rollback sessions, the peer links
 * they run over (secure, or in memory), and deterministic math and randomness. Browser-safe.
 */

export { LocalPeerLinks, type LocalPeerLinksOptions } from './links/local-peer-links.js';
export { PeerConnection } from './links/peer-connection.js';
export type { PeerLinkEvent, PeerLinkEventKind, PeerLinks } from './links/peer-links.js';
export type { PeerPath } from './links/peer-pair.js';
export {
  SecurePeerLinks,
  type SecurePeerLinksCounters,
  type SecurePeerLinksOptions,
} from './links/secure-peer-links.js';
export type {
  LockstepEvent,
  LockstepGame,
  LockstepLeaveReason,
  LockstepPeerStats,
  LockstepSessionOptions,
  LockstepState,
  LockstepStats,
  LockstepStatus,
} from './lockstep/lockstep-options.js';
export { LockstepSession } from './lockstep/lockstep-session.js';
export { DeterministicRandom } from './math/deterministic-random.js';
export { dmath } from './math/dmath.js';
export { stateChecksum } from './math/state-checksum.js';
export type { RefusalReason as RollbackRefusalReason } from './rollback/rollback-channel.js';
export type { RollbackGame, RollbackSessionOptions } from './rollback/rollback-options.js';
export { RollbackSession } from './rollback/rollback-session.js';
export type {
  AdvanceResult,
  RollbackEvent,
  RollbackPeerStats,
  RollbackState,
  RollbackStats,
} from './rollback/rollback-stats.js';
export {
  type SyncTestMismatch,
  type SyncTestOptions,
  type SyncTestResult,
  syncTest,
} from './rollback/sync-test.js';
