/**
 * `ghostwire`: what a game needs, browser-safe (no `node:` imports). The expert layers underneath
 * have their own entry points (`ghostwire/replication`, `ghostwire/latency`, `ghostwire/p2p`, …);
 * the Node parts are in `ghostwire/node`. Every name here is a promise: keep this list short
 * (test/architecture.test.ts caps it at 100 names).
 */

// game API

// The client: connects, predicts its own entity, interpolates the others.
export type { GameClientOptions, GameClientToken } from './game/client-connect.js';
// The game, declared once (both ends import it), and its server side's shapes.
export { defineGame, type EntitySpec, type GameDefinition, type GameSpec } from './game/define-game.js';
export type { ShownEntity } from './game/entity-view.js';
export {
  GameClient,
  type GameClientExpert,
  type GameClientStats,
  type GameClientStatus,
} from './game/game-client.js';
export type { PredictMode, SpawnOf } from './game/game-prediction.js';
export type {
  AnyGameEntity,
  EmitOptions as GameEmitOptions,
  GameEntity,
  GameHooks,
  GameMessage,
  GamePlayer,
  GameRules,
  ServerGame,
} from './game/game-rules.js';
// A game's own types named from its definition: StateOf<typeof tag, 'avatar'>; ClientStateOf: as a
// client holds it (private fields optional).
export type { ClientStateOf, EventOf, InputOf, MessageOf, StateOf } from './game/game-types.js';
export type { Box, Circle, Shape } from './game/shapes.js';
// Recordings and kill-cams: GameServer.record() gives a Recorder, GameClient.openReplay a ReplayPlayer.
export type { ReplayPlayer } from './latency/replay-player.js';
export type { Recorder } from './replication/recording/recorder.js';
export type { RecordingCut } from './replication/recording/recording-cut.js';
export { ReplayError } from './replication/recording/replay-error.js';
// The schema builder: a game declares its entity states and inputs with it.
export { type Infer, type Schema, SchemaValueError, t } from './schema/index.js';
