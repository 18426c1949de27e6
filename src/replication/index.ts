/**
 * `ghostwire/replication`: the server's world of entities, replicated to each client's mirror by
 * priority, interest and bandwidth, with events and commands beside them. Browser-safe.
 */
export {
  BandwidthBudget,
  type BandwidthBudgetOptions,
  DEFAULT_BYTES_PER_PACKET,
  DEFAULT_KBPS,
} from './bandwidth-budget.js';
export {
  ClientMirror,
  type ClientMirrorOptions,
  type ClientMirrorStats,
  type Ghost,
  type GhostEndEvent,
  type GhostEndReason,
  type GhostEvent,
  isGhostOf,
} from './client-mirror.js';
export {
  type AnyCommandType,
  type CommandMessage,
  type CommandOptions,
  type CommandSink,
  type CommandTarget,
  type CommandType,
  defineCommand,
  isCommandType,
  sendCommand,
} from './command.js';
export {
  type CommandEntity,
  type CommandHandler,
  type CommandOutcome,
  type CommandRefusal,
  CommandRouter,
  type CommandRouterOptions,
  type CommandStats,
} from './command-router.js';
export { EntityHistory } from './entity-history.js';
export {
  type AnyEntityType,
  defineEntity,
  type EntityPart,
  type EntityPosition,
  type EntityType,
  type EntityTypeOptions,
  type EntityValue,
} from './entity-type.js';
export {
  type AnyEventType,
  defineEvent,
  type EventHandler,
  type EventType,
  type EventValue,
  isEventType,
  type ReceivedEvent,
} from './event.js';
export type { EmitOptions, EventLimits, EventStats } from './event-hub.js';
export type { FieldBits } from './field-bits.js';
export { FlowControl, type FlowControlOptions, type FlowMode } from './flow-control.js';
export { InterestManager, type InterestManagerOptions, type RelevanceFilter } from './interest-manager.js';
export { DEFAULT_LEAVE_FACTOR, InterestView, type InterestViewOptions } from './interest-view.js';
export type { PacketTrace, TraceBits, TracedEntity, TraceVerdict, TraceWaitReason } from './packet-trace.js';
export {
  DEFAULT_DISTANCE_SCALE,
  type Importance,
  PriorityAccumulator,
  type PriorityOptions,
} from './priority-accumulator.js';
export { DEFAULT_MAX_MISFITS, PrioritySelection } from './priority-selection.js';
export type { ReplayChunk, ReplayHeader } from './recording/gwr-format.js';
export { Recorder, type RecorderOptions } from './recording/recorder.js';
export { RecordingCut } from './recording/recording-cut.js';
export { ReplayError } from './recording/replay-error.js';
export {
  ReplayFile,
  type ReplayFileLimits,
  type ReplayFrames,
  type ReplayMirrorOptions,
} from './recording/replay-file.js';
export {
  type GhostHolder,
  type InspectedPacket,
  type InspectOptions,
  ReplicationInspector,
} from './replication-inspector.js';
export {
  type ReplicationInterestOptions,
  ReplicationServer,
  type ReplicationServerOptions,
  type ReplicationStats,
} from './replication-server.js';
export { type Entity, ServerWorld, type ServerWorldOptions } from './server-world.js';
export { type GridVisitor, SpatialGrid, type SpatialGridOptions } from './spatial-grid.js';
export { type Audience, group, owner, type Visibility, when } from './visibility.js';
