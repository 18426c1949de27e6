/**
 * World ids: one 32-bit id per entity for the whole world, kept across handoffs (a zone's local
 * ServerWorld ids are reused and differ per zone, so they cannot name an entity across zones).
 * Each zone allocates from its own range, `zone << 24 | n`, so zones mint ids without asking
 * anyone; the top byte tells which zone *created* the entity, never which zone owns it now (the
 * store's owner table says that).
 *
 * Ids are not reused: each zone has 2^24 (16,777,216) of them for the life of the world. The
 * allocator's `next` must be written in the zone's snapshot, or a zone taken over from its
 * snapshot would mint ids it had already given out.
 */
import { MAX_ZONES } from './zone-map-description.js';

/** Ids per zone: the low 24 bits. */
export const WORLD_IDS_PER_ZONE = 1 << 24;

/** The world id of the `n`th entity that `zone` created. */
export function worldIdOf(zone: number, n: number): number {
  checkZone('worldIdOf', zone);
  if (!Number.isInteger(n) || n < 0 || n >= WORLD_IDS_PER_ZONE)
    throw new RangeError(`worldIdOf: n ${n} is not an integer from 0 to ${WORLD_IDS_PER_ZONE - 1}`);
  return ((zone << 24) | n) >>> 0;
}

/** The zone that created the entity with this world id (not its owner). */
export function creatorZone(worldId: number): number {
  return worldId >>> 24;
}

/**
 * Why `value` (read from the bus or a snapshot) is not a world id that a zone below `zoneLimit`
 * could have minted, or null. Cheap and total: never throws.
 */
export function worldIdProblem(value: unknown, zoneLimit: number = MAX_ZONES): string | null {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > 0xffff_ffff)
    return `world id ${String(value)} is not a uint32`;
  if (value >>> 24 >= zoneLimit)
    return `world id ${value} is from zone ${value >>> 24}, not below ${zoneLimit}`;
  return null;
}

export class WorldIdAllocator {
  readonly zone: number;
  private n: number;

  /** An allocator for `zone`, resuming at `next` (0 for a new zone, the snapshot's value after a takeover). */
  constructor(zone: number, next = 0) {
    checkZone('WorldIdAllocator', zone);
    if (!Number.isInteger(next) || next < 0 || next > WORLD_IDS_PER_ZONE)
      throw new RangeError(
        `WorldIdAllocator: next ${next} is not an integer from 0 to ${WORLD_IDS_PER_ZONE}`,
      );
    this.zone = zone;
    this.n = next;
  }

  /** The next n to mint: what a snapshot stores. */
  get next(): number {
    return this.n;
  }

  /** Ids left in this zone's range. */
  get remaining(): number {
    return WORLD_IDS_PER_ZONE - this.n;
  }

  /** A world id never given out before by this zone. Throws once the zone's range is used up. */
  allocate(): number {
    if (this.n >= WORLD_IDS_PER_ZONE)
      throw new RangeError(
        `WorldIdAllocator: zone ${this.zone} has used all ${WORLD_IDS_PER_ZONE} of its world ids`,
      );
    return worldIdOf(this.zone, this.n++);
  }
}

function checkZone(method: string, zone: number): void {
  if (!Number.isInteger(zone) || zone < 0 || zone >= MAX_ZONES)
    throw new RangeError(`${method}: zone ${zone} is not an integer from 0 to ${MAX_ZONES - 1}`);
}
