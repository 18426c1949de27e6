/**
 * `ghostwire/node`: everything in `ghostwire` plus what needs Node's modules: UDP sockets and the
 * fastest AEAD Node has, registered here as the default: libsodium's WebAssembly ChaCha20-Poly1305
 * (loaded by a top-level await), else node:crypto's. It loads no optional
 * package: the WebSocket server is in `ghostwire/websocket`, the WebRTC server in `ghostwire/webrtc`,
 * the fleet in `ghostwire/services`.
 */
// Registers the default AEAD on import (a top-level await: libsodium's WebAssembly loads first).
import './connection/aead-node-default.js';
// GameClient's UDP, registered on import as the AEAD is (GameServer loads ws / node-datachannel only to serve them).
import './game/udp-opener.js';

export { nodeAead } from './connection/aead-node.js';
export { loadWasmAead } from './connection/aead-wasm.js';
// game API: the server (its helpers' types too)
export type { GameHostStats } from './game/game-host.js';
export { GameInspector, type GamePacketTrace } from './game/game-inspector.js';
export {
  GameServer,
  type GameServerOptions,
  type GameServerStats,
  type KillcamResult,
  type RelevancyOptions,
} from './game/game-server.js';
export type { GameSimulation, GameSimulationStats } from './game/game-simulation.js';
export type { JoinVerdict } from './game/join-endpoint.js';
export type { KillcamStats } from './game/killcam-queue.js';
export type { GameTransportKind } from './game/server-transports.js';
export type { SpawnStats } from './game/spawn-judge.js';
export type { SpectatorDelayStats } from './game/spectator-delay.js';
export type { SpectatorOptions, SpectatorStats } from './game/spectator-seats.js';
export {
  type AnyGameEntity,
  type Box,
  type Circle,
  type ClientStateOf,
  defineGame,
  type EntitySpec,
  type EventOf,
  GameClient,
  type GameClientExpert,
  type GameClientOptions,
  type GameClientStats,
  type GameClientStatus,
  type GameClientToken,
  type GameDefinition,
  type GameEmitOptions,
  type GameEntity,
  type GameHooks,
  type GameMessage,
  type GamePlayer,
  type GameRules,
  type GameSpec,
  type Infer,
  type InputOf,
  type MessageOf,
  type PredictMode,
  type Recorder,
  type RecordingCut,
  ReplayError,
  type ReplayPlayer,
  type Schema,
  SchemaValueError,
  type ServerGame,
  type Shape,
  type ShownEntity,
  type SpawnOf,
  type StateOf,
  t,
} from './index.js';
export type {
  FieldBits,
  GhostHolder,
  InspectedPacket,
  InspectOptions,
  PacketTrace,
  TraceBits,
  TracedEntity,
  TraceVerdict,
  TraceWaitReason,
} from './replication/index.js';
export { UdpTransport, type UdpTransportOptions } from './transport/udp-transport.js';
