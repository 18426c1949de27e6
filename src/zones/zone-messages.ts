/**
 * What zones and gateways tell each other, as values. zone-wire.ts encodes each one in bits with
 * the game's own schemas (states, inputs, events, messages) and reads them back hostile-first:
 * every message may come from a process that is stale, buggy or not ours.
 *
 * Entities are named by world id (world-id-allocator.ts), players by a player id the gateway
 * gives (unique in the world while the player plays). States and inputs are the game's values;
 * `typeIndex` is the entity type's place in the game's entity list. `data` fields are the
 * rules' free per-entity and per-player data, carried as JSON text (bounded).
 */

/** One player's input for one tick, as the gateway took it from the player's connection. */
export interface ZoneInput {
  playerId: number;
  /** The tick it is applied at (the tick its zone stamps next). */
  tick: number;
  /** The render tick the player's client showed when it sent the input (lag compensation); NaN: none yet. */
  viewTick: number;
  input: unknown;
}

/** One of the game's client-to-server messages, from a player. */
export interface ZonePlayerMessage {
  playerId: number;
  /** The message type's place in the game's message list. */
  typeIndex: number;
  value: unknown;
}

/**
 * A gateway's traffic for one zone, once a tick: players who joined (the zone runs onJoin: only
 * the world's spawn zone gets joins), who left (sent to the zone hosting them), their inputs and
 * their messages.
 */
export interface GatewayBatch {
  gateway: number;
  tick: number;
  joins: number[];
  leaves: number[];
  inputs: ZoneInput[];
  messages: ZonePlayerMessage[];
}

/** One entity's state, as the feed carries it. */
export interface FeedEntity {
  worldId: number;
  typeIndex: number;
  state: unknown;
}

/** An event the zone's rules emitted, for its gateway(s) to send on. */
export interface ZoneEvent {
  /** The player it is for, or -1: every player. */
  to: number;
  typeIndex: number;
  reliable: boolean;
  value: unknown;
}

/** Which entity is a player's own (worldId -1: none), as the zone hosting the player says. */
export interface PlayerOwner {
  playerId: number;
  worldId: number;
}

/**
 * A zone's state after one tick, published to its neighbours and the gateways (lossy: a later
 * batch supersedes an earlier one). A keyframe lists every entity and player the zone owns; the
 * others list what changed since the previous batch.
 */
export interface FeedBatch {
  zone: number;
  /** The zone's lease epoch: readers drop batches from an epoch below the highest they saw. */
  epoch: number;
  tick: number;
  keyframe: boolean;
  entities: FeedEntity[];
  /** World ids destroyed this tick (not handed off: a handed-off entity goes on in its new zone's batch). */
  removed: number[];
  /** Players this zone hosts whose own entity changed (every hosted player in a keyframe). */
  owners: PlayerOwner[];
  events: ZoneEvent[];
}

/** A player moving with its entity (or a player without one, in a snapshot). */
export interface PlayerRecord {
  playerId: number;
  /** The player's `data`, as JSON text. */
  data: string;
  /** The inputs taken for ticks the new zone has not simulated yet, oldest first. */
  inputs: ZoneInput[];
}

/** An entity as it moves from zone to zone (a handoff's payload) or sits in a snapshot. */
export interface EntityRecord {
  worldId: number;
  /** Handoffs it has had (the store's handoff sequence): its next handoff commits hseq + 1. */
  hseq: number;
  typeIndex: number;
  state: unknown;
  /** The entity's `data`, as JSON text. */
  data: string;
  /** Ticks since its last handoff (or spawn), capped: the handoff rule's dwell. */
  sinceHandoffTicks: number;
  /** The player whose own entity it is, or null. */
  player: PlayerRecord | null;
}

/** What a zone writes to the store every few ticks and restores from after a takeover. */
export interface ZoneSnapshotRecord {
  zone: number;
  tick: number;
  /** The zone's world id allocator's next n. */
  nextWorldId: number;
  /** The rules' `game.data`, as JSON text. */
  gameData: string;
  entities: EntityRecord[];
  /** Hosted players with no entity. */
  players: PlayerRecord[];
}
