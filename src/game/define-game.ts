/**
 * The game declared once, in a module both ends import: its name (which the netcode protocol id is
 * derived from), tick rate, entity types, the input schema, the deterministic step and the events.
 * GameServer, GameClient and the room type read every setting from here and nowhere else.
 */
import { type AnyMessageType, defineMessage, MessageFactory, type MessageType } from '../channels/message.js';
import { compileInterpolator, type Interpolator } from '../latency/interpolation.js';
import { type AnyEntityType, defineEntity, type EntityType } from '../replication/entity-type.js';
import { type AnyEventType, defineEvent, type EventType } from '../replication/event.js';
import { type Audience, group, owner } from '../replication/visibility.js';
import { bindEntityRefs, hasEntityRefs } from '../schema/entity-refs.js';
import type { Schema } from '../schema/schema.js';
import { t } from '../schema/schema.js';
import type { PrivateFieldsOf, VisibilityKeys, VisibilityNamesFields } from './client-state.js';
import { type GamePrediction, type PredictMode, type SpawnOf, wirePrediction } from './game-prediction.js';
import type { GameHooks, GameRules } from './game-rules.js';
import type { Shape } from './shapes.js';

/** One entity type: its replicated state and, when it can be hit, its hit shape. */
export interface EntitySpec<S> {
  /** The replicated state (a `t.object(...)`): its TypeScript type is inferred from it. */
  state: Schema<S>;
  /** Its hit shape in a given state: entities of types with one are recorded for lag-compensated hit tests. */
  hitbox?: (state: S) => Shape;
  /** How much it matters when bandwidth is short, relative to the others (default 1). */
  priority?: number;
  /** Where it is, [x, y]: a zoned world places it by this, and players see it by distance. */
  position?: (state: S) => readonly [number, number];
  /**
   * Top-level fields only some players see: `'owner'` (the player whose own entity it is) or
   * `'team'` (the players of the entity's team, `player.team` / `entity.team`). The others get
   * the entity without them (on their clients the field is absent: no key) and never their
   * bytes. Client-side types make each of these fields optional (`ammo?: number`); the server's
   * keep them required. `step`, `hitbox` and interpolation see only the public fields on clients.
   */
  visibility?: { readonly [K in keyof S]?: 'owner' | 'team' };
  /**
   * Its state after one tick without input (deterministic, like `step`); null: it is destroyed.
   * The server runs it each tick for every entity of the type; clients predicting one run it too.
   */
  move?: (state: S) => S | null;
  /**
   * Predicted by clients, not interpolated: 'spawner' (the spawns of a player's input, on that
   * player's screen) or `{ near: metres }` (within that distance of the player; needs `position`).
   */
  predict?: PredictMode;
}

/** What `defineGame` takes. `E` maps entity type names to states, `I` is the input, `V` maps event names to values. */
export interface GameSpec<E, P extends keyof E, I, V, M> {
  /** The game's name: the netcode protocol id is derived from it and `version`, so two games never mix. */
  name: string;
  /** Bump it when the wire changes (types, input, events) so old clients are refused (default 1). */
  version?: number;
  /** Server ticks per second: the server's clock, the clients' clocks, inputs, interpolation, lag compensation (default 30). */
  tickRate?: number;
  /** Entities alive at once at most (default 1024). */
  maxEntities?: number;
  /** The entity types by name. */
  entities: { [K in keyof E]: EntitySpec<E[K]> };
  /**
   * Each player's own entity type: its client predicts it with `step`; the others are interpolated
   * (default: the only entity type; required when there are several).
   */
  player?: P;
  /** One tick's input of a player (a `t.object(...)`). */
  input: Schema<I>;
  /**
   * The deterministic step: a player's state after one tick of `input`. The server runs it on each
   * input it takes; the client runs it ahead of the server (prediction) and again on corrections.
   * It must depend on nothing else (no clock, no randomness, no other entity).
   */
  step: (state: E[P], input: I) => E[P];
  /**
   * The entities a player's input spawns this tick, from its state after `step` (deterministic;
   * run by the server and by the client predicting them). Each has a key unique in the tick, 0..15.
   */
  spawns?: (state: E[P], input: I) => readonly SpawnOf<E>[];
  /** Spawns a player may make in one tick (default 2, at most 16); the server drops more. */
  maxSpawnsPerTick?: number;
  /** Server-to-client events by name, each with its schema (default none). */
  events?: { [K in keyof V]: Schema<V[K]> };
  /** Client-to-server messages by name, each with its schema (default none): chat, "ready"... Reliable, in order. */
  messages?: { [K in keyof M]: Schema<M[K]> };
}

/**
 * A declared game: hand it to GameClient.connect, and its `rules(...)` to GameServer or a fleet.
 * `H` maps each entity type to the names of its private fields (`{ avatar: 'ammo' | 'ping' }`),
 * as defineGame read them from `visibility`; any (written by hand): every field may be private.
 */
// biome-ignore lint/suspicious/noExplicitAny: any game's types by default (the rules and hooks of one game are typed by defineGame)
export interface GameDefinition<E = any, P extends keyof E = any, I = any, V = any, M = any, H = any> {
  readonly name: string;
  readonly version: number;
  /** The netcode protocol id (64 bits), derived from name and version. */
  readonly protocolId: bigint;
  readonly tickRate: number;
  readonly maxEntities: number;
  readonly player: P;
  readonly input: Schema<I>;
  readonly step: (state: E[P], input: I) => E[P];
  /** The entity types as the replication layer knows them (for the expert layers). */
  readonly entityTypes: { readonly [K in keyof E]: EntityType<E[K], K & string> };
  /** The event types as the replication layer knows them (for the expert layers). */
  readonly eventTypes: { readonly [K in keyof V]: EventType<V[K], K & string> };
  /** The message types as the channels layer knows them (for the expert layers). */
  readonly messageTypes: { readonly [K in keyof M]: MessageType<M[K], K & string> };
  /**
   * Per entity type, its private fields (those its `visibility` names; none: empty), in the
   * order declared. On clients these are optional in the types (`ClientStateOf`).
   */
  readonly privateFields: { readonly [K in keyof E]: readonly (K extends keyof H ? H[K] : never)[] };
  /** The server side, written once: run it with GameServer.start or as a fleet's room type. */
  rules(hooks: GameHooks<E, P, I, V, M>): GameRules<E, P, I, V, M>;
}

/** The wiring both ends derive alike from a definition: lists in a fixed order, the control event. */
export interface GameWiring {
  readonly types: readonly AnyEntityType[];
  readonly typeNames: ReadonlyMap<AnyEntityType, string>;
  readonly playerType: AnyEntityType;
  readonly hitboxes: ReadonlyMap<AnyEntityType, (state: unknown) => Shape>;
  readonly interpolators: ReadonlyMap<AnyEntityType, Interpolator<unknown>>;
  /** The reliable event telling a client which entity is its own (id -1: none). */
  readonly owner: EventType<{ id: number }, string>;
  /** Every event type, the control event first, in the order both ends list them. */
  readonly events: readonly AnyEventType[];
  readonly eventNames: ReadonlyMap<AnyEventType, string>;
  /** The message factory of the game's message channel (the game's client-to-server messages). */
  readonly factory: MessageFactory;
  readonly messageNames: ReadonlyMap<AnyMessageType, string>;
  /** Types with a move, the spawns and the input's claims (see game-prediction.ts). */
  readonly prediction: GamePrediction;
  /** Where entity references (t.entity()) are outside events: `entities.<type>.state`, `input`, `messages.<name>`. */
  readonly refsOutsideEvents: readonly string[];
}

const wirings = new WeakMap<object, GameWiring>();

/** The wiring of a definition made by defineGame; throws a TypeError naming `where` for anything else. */
export function wiringOf(where: string, game: GameDefinition): GameWiring {
  const wiring = typeof game === 'object' && game !== null ? wirings.get(game) : undefined;
  if (wiring === undefined) throw new TypeError(`${where}: game must be what defineGame returned`);
  return wiring;
}

/** FNV-1a, 64 bits: a stable protocol id from the game's name and version. */
export function protocolIdOf(name: string, version: number): bigint {
  let hash = 0xcbf29ce484222325n;
  for (const byte of new TextEncoder().encode(`ghostwire game ${name} v${version}`)) {
    hash ^= BigInt(byte);
    hash = (hash * 0x100000001b3n) & 0xffffffffffffffffn;
  }
  return hash;
}

const NAME = /^[A-Za-z_][A-Za-z0-9_-]{0,63}$/;

/**
 * Declares a game. Throws (TypeError / RangeError naming the setting) on a bad declaration: a
 * name that is not 1–64 letters, digits, `_` or `-`, a tick rate outside (0, 1000], a player
 * type that is not one of `entities`, a step that is not a function.
 */
export function defineGame<
  E,
  P extends keyof E & string,
  I,
  V = Record<never, never>,
  M = Record<never, never>,
  X = Record<never, never>,
>(
  // X: each type's `visibility` as written, inferred for its keys alone (client-state.ts).
  spec: GameSpec<E, P, I, V, M> & VisibilityKeys<X> & NoInfer<VisibilityNamesFields<E, X>>,
): GameDefinition<E, P, I, V, M, PrivateFieldsOf<E, X>> {
  type H = PrivateFieldsOf<E, X>;
  const where = 'defineGame';
  if (typeof spec !== 'object' || spec === null) throw new TypeError(`${where}: give the game's declaration`);
  if (typeof spec.name !== 'string' || !NAME.test(spec.name))
    throw new RangeError(
      `${where}: name must be 1-64 letters, digits, _ or -, got ${JSON.stringify(spec.name)}`,
    );
  const version = spec.version ?? 1;
  if (!Number.isInteger(version) || version < 0)
    throw new RangeError(`${where}: version must be an integer >= 0, got ${version}`);
  const tickRate = spec.tickRate ?? 30;
  if (!(tickRate > 0 && tickRate <= 1000))
    throw new RangeError(`${where}: tickRate must be in (0, 1000] ticks per second, got ${tickRate}`);
  const maxEntities = spec.maxEntities ?? 1024;
  if (!Number.isInteger(maxEntities) || maxEntities < 1 || maxEntities > 65536)
    throw new RangeError(`${where}: maxEntities must be an integer in [1, 65536], got ${maxEntities}`);
  if (typeof spec.entities !== 'object' || spec.entities === null || Object.keys(spec.entities).length === 0)
    throw new TypeError(`${where}: entities must name at least one entity type`);
  if (typeof spec.step !== 'function')
    throw new TypeError(`${where}: step must be a function (state, input) => state`);
  if (typeof spec.input !== 'object' || spec.input === null)
    throw new TypeError(`${where}: input must be a schema (t.object(...))`);

  const refsOutsideEvents: string[] = [];
  const entityTypes: Record<string, AnyEntityType> = {};
  const typeNames = new Map<AnyEntityType, string>();
  const hitboxes = new Map<AnyEntityType, (state: unknown) => Shape>();
  const interpolators = new Map<AnyEntityType, Interpolator<unknown>>();
  for (const [name, entity] of Object.entries(spec.entities) as [string, EntitySpec<unknown>][]) {
    if (typeof entity?.state !== 'object' || entity.state === null)
      throw new TypeError(`${where}: entities.${name}.state must be a schema (t.object(...))`);
    if (entity.position !== undefined && typeof entity.position !== 'function')
      throw new TypeError(`${where}: entities.${name}.position must be a function (state) => [x, y]`);
    if (entity.hitbox !== undefined && typeof entity.hitbox !== 'function')
      throw new TypeError(`${where}: entities.${name}.hitbox must be a function (state) => shape`);
    // Entity references (t.entity()) name this game's ids: sent in the bits maxEntities needs.
    const state = bindEntityRefs(entity.state, maxEntities);
    if (hasEntityRefs(state)) refsOutsideEvents.push(`entities.${name}.state`);
    const type = defineEntity(name, state, {
      ...(entity.priority === undefined ? {} : { priority: entity.priority }),
      ...(entity.position === undefined ? {} : { position: entity.position }),
      ...(entity.visibility === undefined
        ? {}
        : { visibility: audiences(`${where}: entities.${name}`, entity.visibility) }),
    });
    entityTypes[name] = type;
    typeNames.set(type, name);
    // Histories hold the public fields only: the interpolator blends those.
    interpolators.set(type, compileInterpolator(type.layout.schema));
    if (entity.hitbox !== undefined) hitboxes.set(type, entity.hitbox);
  }
  const names = Object.keys(entityTypes);
  if (spec.player === undefined && names.length > 1)
    throw new RangeError(`${where}: player must name the players' entity type (one of ${names.join(', ')})`);
  const player = (spec.player ?? names[0]) as P;
  const playerType = entityTypes[player];
  if (playerType === undefined || !Object.hasOwn(entityTypes, player))
    throw new RangeError(`${where}: player must name one of the entity types, got ${JSON.stringify(player)}`);

  const owner = defineEvent('ghostwire.owner', t.object({ id: t.int(-1, maxEntities - 1) }));
  const eventTypes: Record<string, AnyEventType> = {};
  const eventNames = new Map<AnyEventType, string>([[owner, 'ghostwire.owner']]);
  for (const [name, schema] of Object.entries(spec.events ?? {}) as [string, Schema<unknown>][]) {
    if (typeof schema !== 'object' || schema === null)
      throw new TypeError(`${where}: events.${name} must be a schema (t.object(...))`);
    const type = defineEvent(name, bindEntityRefs(schema, maxEntities));
    eventTypes[name] = type;
    eventNames.set(type, name);
  }
  const messageTypes: Record<string, AnyMessageType> = {};
  const messageNames = new Map<AnyMessageType, string>();
  for (const [name, schema] of Object.entries(spec.messages ?? {}) as [string, Schema<unknown>][]) {
    if (typeof schema !== 'object' || schema === null)
      throw new TypeError(`${where}: messages.${name} must be a schema (t.object(...))`);
    if (hasEntityRefs(schema)) refsOutsideEvents.push(`messages.${name}`);
    const type = defineMessage(name, bindEntityRefs(schema, maxEntities));
    messageTypes[name] = type;
    messageNames.set(type, name);
  }
  const messages = Object.values(messageTypes);
  const input = bindEntityRefs(spec.input, maxEntities);
  const prediction = wirePrediction(
    where,
    spec.entities as never,
    entityTypes,
    spec.spawns,
    spec.maxSpawnsPerTick,
    input,
    maxEntities,
  );
  const wiring: GameWiring = {
    types: Object.values(entityTypes),
    typeNames,
    playerType,
    hitboxes,
    interpolators,
    owner,
    // The spawn verdict last, and only with spawns: other games' wire is unchanged.
    events: [
      owner,
      ...Object.values(eventTypes),
      ...(prediction.spawns === null ? [] : [prediction.verdict]),
    ],
    eventNames,
    // A factory needs a type: a game without messages lists a placeholder no one sends.
    factory: new MessageFactory(
      messages.length > 0 ? messages : [defineMessage('ghostwire.none', t.object({ n: t.uint8() }))],
    ),
    messageNames,
    prediction,
    refsOutsideEvents: hasEntityRefs(spec.input) ? [...refsOutsideEvents, 'input'] : refsOutsideEvents,
  };
  const privateFields: Record<string, readonly string[]> = {};
  for (const [name, entity] of Object.entries(spec.entities) as [string, EntitySpec<unknown>][])
    privateFields[name] = Object.freeze(Object.keys(entity.visibility ?? {}));
  const game: GameDefinition<E, P, I, V, M, H> = Object.freeze({
    name: spec.name,
    version,
    protocolId: protocolIdOf(spec.name, version),
    tickRate,
    maxEntities,
    player,
    input,
    step: spec.step,
    entityTypes: Object.freeze(entityTypes) as GameDefinition<E, P, I, V, M>['entityTypes'],
    eventTypes: Object.freeze(eventTypes) as GameDefinition<E, P, I, V, M>['eventTypes'],
    messageTypes: Object.freeze(messageTypes) as GameDefinition<E, P, I, V, M>['messageTypes'],
    privateFields: Object.freeze(privateFields) as GameDefinition<E, P, I, V, M, H>['privateFields'],
    rules: (hooks: GameHooks<E, P, I, V, M>): GameRules<E, P, I, V, M> => defineRules(game, hooks),
  });
  wirings.set(game, wiring);
  return game;
}

/** The rules object: the game and its hooks, checked once. */
function defineRules<E, P extends keyof E, I, V, M>(
  game: GameDefinition<E, P, I, V, M>,
  hooks: GameHooks<E, P, I, V, M>,
): GameRules<E, P, I, V, M> {
  if (typeof hooks !== 'object' || hooks === null)
    throw new TypeError(`${game.name}.rules: give an object of hooks`);
  for (const name of [
    'onJoin',
    'onLeave',
    'onInput',
    'onMessage',
    'onTick',
    'validateInput',
    'allowSpawn',
  ] as const)
    if (hooks[name] !== undefined && typeof hooks[name] !== 'function')
      throw new TypeError(`${game.name}.rules: ${name} must be a function`);
  return Object.freeze({ game, hooks });
}

/** A game's `visibility` ('owner' | 'team' per field) as the replication layer's audiences. */
function audiences(where: string, visibility: object): Record<string, Audience> {
  if (visibility === null || typeof visibility !== 'object')
    throw new TypeError(`${where}.visibility must be an object of field: 'owner' | 'team'`);
  const out: Record<string, Audience> = {};
  for (const [field, kind] of Object.entries(visibility)) {
    if (kind !== 'owner' && kind !== 'team')
      throw new TypeError(
        `${where}.visibility.${field} must be 'owner' or 'team', got ${JSON.stringify(kind)}`,
      );
    out[field] = kind === 'owner' ? owner() : group();
  }
  return out;
}
