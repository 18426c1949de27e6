/**
 * ghostwire: a game network protocol stack. This entry point is browser-safe (no `node:` imports);
 * Node-only transports live in their own entry points.
 */
export { BitReader, BitWriter, bitsRequired, bitsRequired64 } from './bits/index.js';
export * from './channels/index.js';
export * from './connection/index.js';
export type { GameClientOptions, GameClientToken } from './game/client-connect.js';
export type { ShownEntity } from './game/client-view.js';
// game API
export {
  defineGame,
  type EntitySpec,
  type GameDefinition,
  type GameSpec,
} from './game/define-game.js';
export {
  GameClient,
  type GameClientExpert,
  type GameClientStats,
  type GameClientStatus,
} from './game/game-client.js';
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
export type { Box, Circle, Shape } from './game/shapes.js';
export * from './latency/index.js';
export * from './lockstep/index.js';
export {
  DEFAULT_RELIABLE_CONFIG,
  type ReliableConfig,
  type ReliableCounters,
  ReliableEndpoint,
  type ReliableHandler,
  reliableConfig,
  SequenceBuffer,
  sequenceGreaterThan,
  sequenceLessThan,
} from './packet/index.js';
export { prng } from './random/prng.js';
export * from './replication/index.js';
export {
  type Codec,
  type CodecOptions,
  codegenAvailable,
  compile,
  type DecodeBound,
  type DecodeResult,
  decodeBound,
  fixedBits,
  type Infer,
  maxBits,
  type Schema,
  SchemaValueError,
  t,
} from './schema/index.js';
export * from './serialize/index.js';
export * from './transport/index.js';
