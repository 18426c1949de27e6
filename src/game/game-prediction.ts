/**
 * What a game declares for prediction beyond the player's own entity, checked once and wired alike
 * on both ends: each type's `move` and `predict`, the `spawns` of a player's input, the verdict
 * event and the input as the wire carries it (the game's input and the claims of its spawns).
 */
import type { PredictedTypeOptions } from '../latency/predicted-world.js';
import type { AnyEntityType } from '../replication/entity-type.js';
import { defineEvent, type EventType } from '../replication/event.js';
import type { ReplicationServer } from '../replication/replication-server.js';
import type { Schema } from '../schema/schema.js';
import { t } from '../schema/schema.js';

/** Keys of a player's spawns in one tick are in [0, MAX_SPAWN_KEYS). */
export const MAX_SPAWN_KEYS = 16;

/** One entity a player's input spawns this tick: its type, a key unique in the tick (0..15) and its state. */
export type SpawnOf<E> = { [K in keyof E & string]: { type: K; key: number; state: E[K] } }[keyof E & string];

/** How a type is predicted: 'spawner' (its spawns, by the player who spawned them), or near the player. */
export type PredictMode = 'spawner' | { near: number };

/** The input as the wire carries it when the game has spawns: the game's input and the claimed keys. */
export interface ClaimedInput<I = unknown> {
  input: I;
  /** Bit k: the client predicted a spawn with key k this tick (absent: none, 1 bit on the wire). */
  claims?: number;
}

export interface GamePrediction {
  /** Types with a move: what the server moves each tick, what a client can predict. */
  readonly types: ReadonlyMap<AnyEntityType, PredictedTypeOptions>;
  /** Types predicted by their spawner (`predict: 'spawner'`): a client claims its spawns of these. */
  readonly spawner: ReadonlySet<AnyEntityType>;
  readonly spawns:
    | ((state: unknown, input: unknown) => readonly { type: string; key: number; state: unknown }[])
    | null;
  readonly maxSpawnsPerTick: number;
  /** The reliable verdict on a claimed spawn, to its player: id -1 refused, else its entity. */
  readonly verdict: EventType<{ tick: number; key: number; id: number }, string>;
  /** The input on the wire (null: the game's own, no claims). */
  readonly wireInput: Schema<ClaimedInput> | null;
}

interface TypeDeclaration {
  move?: unknown;
  predict?: unknown;
  position?: (state: never) => readonly [number, number];
}

/** Checks and wires a game's prediction settings; throws naming the setting on a bad declaration. */
export function wirePrediction(
  where: string,
  entities: Readonly<Record<string, TypeDeclaration>>,
  types: Readonly<Record<string, AnyEntityType>>,
  spawns: unknown,
  maxSpawnsPerTick: number | undefined,
  input: Schema<unknown>,
  maxEntities: number,
): GamePrediction {
  const predicted = new Map<AnyEntityType, PredictedTypeOptions>();
  const spawner = new Set<AnyEntityType>();
  for (const [name, entity] of Object.entries(entities)) {
    const { move, predict } = entity;
    if (move !== undefined && typeof move !== 'function')
      throw new TypeError(`${where}: entities.${name}.move must be a function (state) => state | null`);
    if (predict !== undefined) {
      if (move === undefined) throw new TypeError(`${where}: entities.${name}.predict needs a move`);
      const near =
        typeof predict === 'object' && predict !== null ? (predict as { near?: unknown }).near : undefined;
      if (predict !== 'spawner' && !(typeof near === 'number' && near > 0 && near <= 1e6))
        throw new RangeError(`${where}: entities.${name}.predict must be 'spawner' or { near: metres > 0 }`);
      if (near !== undefined && entity.position === undefined)
        throw new TypeError(`${where}: entities.${name}.predict near needs a position`);
    }
    if (typeof move !== 'function') continue;
    if (predict === 'spawner') spawner.add(types[name]!);
    const near =
      typeof predict === 'object' && predict !== null ? (predict as { near: number }).near : undefined;
    predicted.set(types[name]!, {
      move: move as (state: unknown) => unknown,
      ...(near === undefined
        ? {}
        : { near, position: entity.position as (state: unknown) => readonly [number, number] }),
    });
  }
  if (spawns !== undefined && typeof spawns !== 'function')
    throw new TypeError(`${where}: spawns must be a function (state, input) => [{ type, key, state }]`);
  const max = maxSpawnsPerTick ?? 2;
  if (!Number.isInteger(max) || max < 1 || max > MAX_SPAWN_KEYS)
    throw new RangeError(
      `${where}: maxSpawnsPerTick must be an integer in [1, ${MAX_SPAWN_KEYS}], got ${max}`,
    );
  return {
    types: predicted,
    spawner,
    spawns: (spawns as GamePrediction['spawns']) ?? null,
    maxSpawnsPerTick: max,
    verdict: defineEvent(
      'ghostwire.spawn',
      t.object({ tick: t.uint32(), key: t.int(0, MAX_SPAWN_KEYS - 1), id: t.int(-1, maxEntities - 1) }),
    ),
    wireInput:
      spawns === undefined
        ? null
        : (t.object({ input, claims: t.optional(t.int(1, 0xffff)) }) as Schema<ClaimedInput>),
  };
}

/** The number of keys claimed in a claims mask. */
export function claimCount(claims: number): number {
  let n = 0;
  for (let c = claims; c !== 0; c &= c - 1) n++;
  return n;
}

/**
 * Refuses every key of `claims` (a reliable verdict each, to client `to`) where no spawn is judged
 * (a zone gateway): its client removes the predictions, and shows the zones' entities as they
 * come. More claims than `max` are dropped unanswered. Returns the claims refused.
 */
export function refuseClaims(
  replication: ReplicationServer,
  prediction: GamePrediction,
  to: number,
  inputTick: number,
  claims: number,
): number {
  const count = claimCount(claims);
  if (count === 0 || count > prediction.maxSpawnsPerTick || inputTick < 0) return 0;
  for (let key = 0; key < MAX_SPAWN_KEYS; key++)
    if ((claims & (1 << key)) !== 0)
      replication.emit(prediction.verdict as never, { tick: inputTick, key, id: -1 } as never, {
        to,
        reliable: true,
      });
  return count;
}
