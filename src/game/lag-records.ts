/**
 * A game's lag compensation records, one LagCompensation per entity type with a hitbox: made from
 * the game's wiring, and stamped with every such entity's state once per tick, before the step.
 */
import { LagCompensation } from '../latency/lag-compensation.js';
import type { AnyEntityType } from '../replication/entity-type.js';
import type { Entity, ServerWorld } from '../replication/server-world.js';
import type { GameWiring } from './define-game.js';
import type { EntityHandle } from './game-handles.js';
import { shapeBounds } from './shapes.js';

export type LagRecords = Map<AnyEntityType, LagCompensation<unknown>>;

/** The records of the types with a hitbox (none: an empty map, and no work per tick). */
export function makeLagRecords(
  wiring: GameWiring,
  tickRate: number,
  capacity: number,
  maxClients: number,
): LagRecords {
  const lags: LagRecords = new Map();
  for (const [type, hitbox] of wiring.hitboxes)
    lags.set(
      type,
      new LagCompensation<unknown>({
        interpolator: wiring.interpolators.get(type)!,
        layout: type.layout,
        tickRate,
        capacity,
        maxClients,
        bounds: (state, out) => shapeBounds(hitbox(state), out),
      }),
    );
  return lags;
}

/**
 * Every entity with a hitbox, as stamped at the world's tick (entities made since are not stamped
 * yet). A hitbox that throws or is not finite leaves that entity's tick unrecorded (`failed`).
 */
export function recordLags(
  lags: LagRecords,
  world: ServerWorld,
  handles: readonly (EntityHandle | null)[],
  failed: (error: unknown) => void,
): void {
  if (lags.size === 0 || world.serverTick === 0) return;
  for (const handle of handles) {
    if (handle === null) continue;
    const entity: Entity<unknown> = handle.entity;
    const lag = lags.get(entity.type);
    const id = entity.id;
    if (
      lag === undefined ||
      world.tickedType[id] < 0 ||
      world.tickedGeneration[id] !== entity.generation ||
      world.latestTicks[id] < 0
    )
      continue;
    try {
      lag.recordFrom(world, entity);
    } catch (error) {
      failed(error);
    }
  }
}
