/**
 * GameServerOptions.relevancy: relevancy by distance for a GameServer, as the replication
 * layer's interest options (browser-safe).
 */
import type { ReplicationInterestOptions } from '../replication/replication-server.js';

/** GameServerOptions.relevancy. */
export interface RelevancyOptions {
  radius: number;
  bounds: readonly [number, number, number, number];
  /** The spatial grid's cell size (default the radius). */
  cellSize?: number;
}

/** The ReplicationServer's interest options for `relevancy` (checked). */
export function interestOf(
  where: string,
  relevancy: RelevancyOptions | undefined,
): { interest?: ReplicationInterestOptions } {
  if (relevancy === undefined) return {};
  const { radius, bounds, cellSize } = relevancy ?? {};
  if (!(Number.isFinite(radius) && radius > 0))
    throw new RangeError(`${where}: relevancy.radius must be a number > 0, got ${radius}`);
  if (
    !Array.isArray(bounds) ||
    bounds.length !== 4 ||
    !bounds.every(Number.isFinite) ||
    !(bounds[2] > bounds[0] && bounds[3] > bounds[1])
  )
    throw new RangeError(`${where}: relevancy.bounds must be [minX, minY, maxX, maxY] with max > min`);
  const cell = cellSize ?? radius;
  if (!(Number.isFinite(cell) && cell > 0))
    throw new RangeError(`${where}: relevancy.cellSize must be a number > 0, got ${cellSize}`);
  return {
    interest: { grid: { min: [bounds[0], bounds[1]], max: [bounds[2], bounds[3]], cellSize: cell }, radius },
  };
}
