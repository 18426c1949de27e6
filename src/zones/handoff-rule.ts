/**
 * When an owned entity should be handed to another zone (memo B4): only once it is more than a
 * margin h past its owner's cells, and not again within a minimum dwell after its last handoff.
 * The margin keeps an entity that jitters on a border with one owner; the dwell bounds how often
 * any entity can change owner (a client walking back and forth on a border causes at most one
 * handoff per dwell), whatever the geometry.
 *
 * The target is the zone the entity is deepest inside. A point lies inside exactly one zone, or
 * on the shared border of several (a grid corner touches up to four), where every one of them is
 * at depth 0: ties go to the lowest zone index, so every zone and gateway that evaluates the rule
 * picks the same target. The target always holds the point, so getting back to the old owner
 * takes more than h of travel as well as the dwell.
 *
 * The rule reads only the server-simulated position: a client cannot cause a handoff by lying.
 */
import type { ZoneMap } from './zone-map.js';

export interface HandoffRuleOptions {
  /**
   * How far past its owner's cells (world units) an entity must be before it is handed on: the
   * memo's h. Keep it below the interest radius, so the target already holds a proxy of the entity.
   */
  readonly margin: number;
  /** Ticks after a handoff during which the entity stays where it is: the memo's d (about 1 s). */
  readonly minDwellTicks: number;
}

export class HandoffRule {
  readonly margin: number;
  readonly minDwellTicks: number;
  private readonly touching: number[] = [];

  constructor(options: HandoffRuleOptions) {
    const { margin, minDwellTicks } = options;
    if (!Number.isFinite(margin) || margin < 0)
      throw new RangeError(`HandoffRule: margin ${margin} must be a finite number >= 0`);
    if (!Number.isSafeInteger(minDwellTicks) || minDwellTicks < 0)
      throw new RangeError(`HandoffRule: minDwellTicks ${minDwellTicks} must be an integer >= 0`);
    this.margin = margin;
    this.minDwellTicks = minDwellTicks;
  }

  /**
   * The zone that the entity owned by `owner` at (x, y) should be handed to now, or null to keep
   * it. `ticksSinceHandoff` counts from its last handoff (from its spawn if it never moved; any
   * value from `minDwellTicks` up means "free to go"). Allocates nothing.
   */
  target(map: ZoneMap, owner: number, x: number, y: number, ticksSinceHandoff: number): number | null {
    if (!Number.isSafeInteger(ticksSinceHandoff) || ticksSinceHandoff < 0)
      throw new RangeError(
        `HandoffRule.target: ticksSinceHandoff ${ticksSinceHandoff} must be an integer >= 0`,
      );
    // Checks owner and position even when the dwell answers, so misuse fails at every call.
    const inMargin = map.isWithin(owner, x, y, this.margin);
    if (ticksSinceHandoff < this.minDwellTicks || inMargin) return null;
    // Past the margin the owner's cells do not touch the point, so the owner is never the target.
    return map.zonesTouching(x, y, this.touching)[0];
  }
}
