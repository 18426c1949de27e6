/**
 * The priority accumulator: per client and relevant entity, a priority that grows every tick by
 *
 *     base(entity) × importance(view, entity, distance)
 *
 * and is reset to 0 when the entity is sent (see PrioritySelection). What does not fit keeps
 * growing, so everything relevant is sent eventually and the important things more often.
 *
 * `base` is per entity (set it from the entity's type: a projectile 2, a crate 0.25); default 1.
 * The default importance falls with distance from the view's center:
 *
 *     importance(d) = 1 / (1 + d / scale)        (scale default 50 m: 1 at d = 0, ½ at 50 m, ¼ at 150 m)
 *
 * so an entity at the edge of a 150 m view is sent about a quarter as often as one beside the
 * player. Pass `importance` to replace it (it must return a finite number ≥ 0).
 * The priorities live in each view's `priority` column (one float per relevant entity), so an
 * entity that leaves relevancy drops its priority and one that enters starts at 0.
 */
import { checkIndex } from '../channels/check-index.js';
import { checkNonNegative, checkPositive } from './check-argument.js';
import type { InterestManager } from './interest-manager.js';
import type { InterestView } from './interest-view.js';

/** How much a view wants an entity, per tick; `distance` is from the view's center. */
export type Importance = (view: InterestView, id: number, distance: number) => number;

export interface PriorityOptions {
  /** The distance at which the default importance is ½ (default 50 world units). */
  distanceScale?: number;
  /** Replaces the default importance. */
  importance?: Importance;
}

export const DEFAULT_DISTANCE_SCALE = 50;

export class PriorityAccumulator {
  private readonly interest: InterestManager;
  private readonly base: Float32Array;
  private readonly inverseScale: number;
  private readonly importance: Importance | undefined;

  constructor(interest: InterestManager, options: PriorityOptions = {}) {
    this.interest = interest;
    this.base = new Float32Array(interest.grid.capacity).fill(1);
    const scale = checkPositive(
      'PriorityAccumulator',
      'distanceScale',
      options.distanceScale ?? DEFAULT_DISTANCE_SCALE,
    );
    this.inverseScale = 1 / scale;
    this.importance = options.importance;
  }

  /** Sets an entity's base priority (from its type); 0 means it only goes out when room is left. */
  setBase(id: number, base: number): void {
    checkIndex('PriorityAccumulator.setBase', 'id', id, this.base.length);
    this.base[id] = checkNonNegative('PriorityAccumulator.setBase', 'base', base);
  }

  getBase(id: number): number {
    return this.base[checkIndex('PriorityAccumulator.getBase', 'id', id, this.base.length)];
  }

  /** @internal Whether the default importance is used: then `weight` gives what `accumulate` adds. */
  get byDistance(): boolean {
    return this.importance === undefined;
  }

  /**
   * @internal What one tick adds to the priority of `id`, relevant to `view`, under the default importance
   * (byDistance): the very number `accumulate` adds, so a caller may add it to the members it
   * keeps and skip those whose priority it resets anyway.
   */
  weight(view: InterestView, id: number): number {
    return distanceWeight(
      this.interest.grid.positions,
      this.base,
      id,
      view.centerX,
      view.centerY,
      view.centerZ,
      this.inverseScale,
    );
  }

  /** Adds one tick of priority to every entity relevant to every view. */
  accumulateAll(): void {
    for (const view of this.interest.allViews) this.accumulate(view);
  }

  /** Adds one tick of priority to every entity relevant to one view. */
  accumulate(view: InterestView): void {
    const positions = this.interest.grid.positions;
    const { ids, priority, count } = view;
    const { base, importance } = this;
    const cx = view.centerX;
    const cy = view.centerY;
    const cz = view.centerZ;
    if (importance === undefined) {
      const inverseScale = this.inverseScale;
      for (let slot = 0; slot < count; slot++)
        priority[slot] += distanceWeight(positions, base, ids[slot], cx, cy, cz, inverseScale);
      return;
    }
    for (let slot = 0; slot < count; slot++) {
      const id = ids[slot];
      const p = id * 3;
      const dx = positions[p] - cx;
      const dy = positions[p + 1] - cy;
      const dz = positions[p + 2] - cz;
      const weight = importance(view, id, Math.sqrt(dx * dx + dy * dy + dz * dz));
      if (!(weight >= 0 && weight !== Number.POSITIVE_INFINITY))
        throw new RangeError(`PriorityAccumulator: importance returned ${weight} for entity ${id}`);
      priority[slot] += base[id] * weight;
    }
  }
}

/** The default importance's weight of `id` seen from (cx, cy, cz). */
function distanceWeight(
  positions: Float64Array,
  base: Float32Array,
  id: number,
  cx: number,
  cy: number,
  cz: number,
  inverseScale: number,
): number {
  const p = id * 3;
  const dx = positions[p] - cx;
  const dy = positions[p + 1] - cy;
  const dz = positions[p + 2] - cz;
  return base[id] / (1 + Math.sqrt(dx * dx + dy * dy + dz * dz) * inverseScale);
}
