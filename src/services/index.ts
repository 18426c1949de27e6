/**
 * `ghostwire/services` (Node-only): what runs a fleet of game servers — the directory (embedded or
 * Redis), rooms and their server processes, matchmaking, the HTTP backend that mints connect
 * tokens, the process manager and the load tester.
 */

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
} from '../join/backend-client.js';
export { AccountsClient, type AccountView, type SignInWith } from '../join/gamer/accounts-client.js';
export { AchievementsClient, type UnlockedAchievement } from '../join/gamer/achievements-client.js';
export { type DeviceIdStore, newDeviceId, storedDeviceId } from '../join/gamer/device-id.js';
export { type EventSubscribeOptions, EventsClient } from '../join/gamer/events-client.js';
export { FriendsClient } from '../join/gamer/friends-client.js';
export {
  type LeaderboardEntry,
  type LeaderboardPage,
  type LeaderboardPeriod,
  LeaderboardsClient,
} from '../join/gamer/leaderboards-client.js';
export { PresenceClient } from '../join/gamer/presence-client.js';
export type { Friend } from '../join/gamer/social-types.js';
export { StatsClient } from '../join/gamer/stats-client.js';
export { StorageClient, type StoragePutResult, type StoredDocument } from '../join/gamer/storage-client.js';
export { GamerClient } from '../join/gamer-client.js';
export type { PeerSessionAnswer } from '../join/peer-session-answer.js';
export {
  type Backend,
  type BackendOptions,
  createBackend,
  type ServedBackend,
  serveBackend,
} from './backend.js';
export type { MatchmakingQueue, MatchPoll } from './backend-matchmake-routes.js';
export type { RateLimitOptions } from './backend-rate-limiter.js';
export { Refusal, ROOM_FAILED, ROOM_GONE } from './backend-refusal.js';
export type { RequestInfo, VerifyResult } from './backend-routes.js';
export { DEFAULT_SEAT_LIMITS, type JoinAnswer } from './backend-seat-issuer.js';
export type { Session } from './backend-session-signer.js';
export {
  type ConsumeResult,
  type Directory,
  type PeerSessionCreated,
  type PeerSlotResult,
  PROCESS_GONE,
  type ProcessAddresses,
  type ProcessGone,
  type ProcessLoad,
  type ProcessRecord,
  type ProcessState,
  type ReserveResult,
  type RoomListing,
  type RoomMetadata,
  type RoomQuery,
  type Seat,
  type SeatLimits,
  type SeatState,
  type Ticket,
  type TicketStatus,
  type Unsubscribe,
} from './directory.js';
export { EmbeddedDirectory, type EmbeddedDirectoryOptions } from './embedded-directory.js';
export type { FleetTransportOptions } from './fleet-transports.js';
// game API: a game's rules as a room type (startLocalFleet's `games` does this for you)
export { type FleetGame, gameRoom, gameRoomChannels, spectatorStats } from './game-room.js';
export type { GameRoomOptions } from './game-room-spectators.js';
export type { Account, GamerAccounts } from './gamer/accounts/account-store.js';
export type { IdentityVerifier } from './gamer/accounts/identity-verifiers.js';
export type { GamerDatabaseOptions } from './gamer/gamer-database.js';
export type { GamerRedisOptions } from './gamer/gamer-redis.js';
export {
  type GamerServices,
  type GamerServicesOptions,
  openGamerServices,
} from './gamer/gamer-services.js';
export type { GamerEvent } from './gamer/player-events.js';
export type {
  GamerLeaderboards,
  LeaderboardQuery,
  LeaderboardRecord,
  LeaderboardRecords,
} from './gamer/progress/leaderboards.js';
export type { GamerAchievements } from './gamer/progress/player-achievements.js';
export type { GamerStats, StatUpdate } from './gamer/progress/player-stats.js';
export type {
  AchievementDefinition,
  LeaderboardDefinition,
  LeaderboardReset,
  StatKind,
} from './gamer/progress/progress-definitions.js';
export type { FriendPage, FriendRow, FriendState, RelationState } from './gamer/social/friends.js';
export type { PresenceSetting } from './gamer/social/presence.js';
export type { PresenceState, PresenceView } from './gamer/social/presence-store.js';
export type { GamerFriends, GamerPresence } from './gamer/social/social.js';
export { DEFAULT_SOCIAL_LIMITS, type SocialLimits } from './gamer/social/social-limits.js';
export type {
  GamerStorage,
  StorageDocument,
  StoragePage,
  StorageWriteOptions,
  StorageWriteResult,
} from './gamer/storage/player-storage.js';
export { DEFAULT_STORAGE_LIMITS, type StorageLimits } from './gamer/storage/storage-limits.js';
export { IpcDirectory, type IpcDirectoryOptions } from './ipc-directory.js';
export type { IpcEndpoint } from './ipc-endpoint.js';
export { type FleetRoom, type LocalFleet, type LocalFleetOptions, startLocalFleet } from './local-fleet.js';
export { type ManagedProcess, type ManagedServer, reportToManager } from './managed-process.js';
export type { MatchFormer, MatchRules, SkillWindow } from './match-rules.js';
export {
  type EnqueueRequest,
  Matchmaker,
  type MatchmakerMetrics,
  type MatchmakerOptions,
} from './matchmaker.js';
export type { RendezvousOptions } from './peer-sessions.js';
export { type IssuePeerTokenOptions, issuePeerToken } from './peer-token-issuer.js';
export {
  type DrainOutcome,
  type ExitInfo,
  type MachineReport,
  ProcessManager,
  type ProcessManagerEvents,
  type ProcessManagerOptions,
  type ProcessManagerReport,
  type ProcessReport,
} from './process-manager.js';
export { RedisDirectory, type RedisDirectoryOptions, RedisUnavailableError } from './redis-directory.js';
export type { RelayCounters } from './rendezvous-relay.js';
export {
  type RendezvousCounters,
  RendezvousServer,
  type RendezvousServerOptions,
} from './rendezvous-server.js';
export {
  ROOM_DEFAULTS,
  Room,
  RoomClient,
  type RoomClientState,
  type RoomDefaults,
  type RoomMessage,
  type RoomType,
} from './room.js';
export { type RoomChannelSlot, roomChannel } from './room-channels.js';
export {
  type CreateMatchRoomOptions,
  createMatchRoom,
  TRANSPORT_KINDS,
  type TransportKind,
} from './room-placer.js';
export {
  type CreateRoomResult,
  type RoomFailure,
  RoomServer,
  type RoomServerOptions,
  type RoomServerStats,
  type RoomServerTransport,
} from './room-server.js';
export { decodeSeatUserData, encodeSeatUserData, type SeatClaim } from './seat-token.js';
