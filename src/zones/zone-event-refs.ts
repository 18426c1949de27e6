/**
 * Entity references (`t.entity()`) in a zoned world's events. An id means something only in the
 * id space it was written in: a zone's rules write local ids, the zone wire carries world ids,
 * a gateway's clients see its mirror's ids. So a zone rewrites an event's references to world ids
 * as the event leaves (ZoneSimulation), the wire sends them as world ids, and the gateway rewrites
 * them to mirror ids before replicating the event; an id that side cannot name becomes -1 (none),
 * never another entity's id.
 *
 * References in entity states, inputs and messages are not translated (an entity's state would
 * have to name entities its zone does not hold): a zoned world refuses such a game at its start.
 */
import { type GameDefinition, wiringOf } from '../game/define-game.js';
import type { AnyEventType } from '../replication/event.js';
import { type EntityIdMap, type EntityRefRewriter, entityRefRewriter } from '../schema/entity-refs.js';
import { MAX_ENTITY_IDS } from '../schema/schema.js';
import { WORLD_IDS_PER_ZONE } from './world-id-allocator.js';

/**
 * World ids an event's reference can carry on the zone wire, with zones below `zoneLimit`: all of
 * them but the very last id of zone 255 (2^32 - 1), which the 32 bits need for none; a zone sends
 * a reference to that one entity as none.
 */
export function worldRefIds(zoneLimit: number): number {
  return Math.min(zoneLimit * WORLD_IDS_PER_ZONE, MAX_ENTITY_IDS);
}

/** Each event type's reference rewriter (null: it has none, and its values go untouched). */
export class EventRefs {
  private readonly rewriters: readonly (EntityRefRewriter | null)[];

  /** `events`: the wiring's event list, in its order (the feed's type indexes). */
  constructor(events: readonly AnyEventType[]) {
    this.rewriters = events.map((event) => entityRefRewriter(event.schema));
  }

  /** The value with its references mapped (copied on the way to them), or the value itself when it has none. */
  rewrite(typeIndex: number, value: unknown, map: EntityIdMap): unknown {
    const rewriter = this.rewriters[typeIndex] ?? null;
    return rewriter === null ? value : rewriter(value, map);
  }
}

/**
 * Throws a TypeError naming the first entity state, input or message of `game` that holds an
 * entity reference: a zoned world translates references in events only.
 */
export function checkZonedRefs(where: string, game: GameDefinition): void {
  const place = wiringOf(where, game).refsOutsideEvents[0];
  if (place !== undefined)
    throw new TypeError(
      `${where}: ${place} holds an entity reference (t.entity()); a zoned world translates ` +
        'references in events only (docs/zones.md, limits)',
    );
}
