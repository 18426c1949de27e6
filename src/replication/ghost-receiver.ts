import type { ReadStream } from '../serialize/read-stream.js';
import { CONFIGURATION_DIFFERS } from './configuration.js';
import { PreviousChanges, readStagedDelta, readStagedLanes } from './entity-delta.js';
import { type EntityHistory, HISTORY_HEAD } from './entity-history.js';
import type { EntityLayout } from './entity-layout.js';
import type { AnyEntityType } from './entity-type.js';
import type { SectionGhosts } from './event-receiver.js';
import {
  CONFIGURATION_BITS,
  GENERATION_BITS,
  NEWEST_HELD,
  readBaseline,
  readReference,
  readUpdateCount,
  readUpdateId,
  TICK_BITS,
} from './ghost-wire.js';
import { IdList } from './id-list.js';
import type { LaneState } from './lane-state.js';
import { MASK_LANES } from './previous-changes.js';

/** The blobs of a layout without any. */
const NO_BLOBS: readonly Uint8Array[] = Object.freeze([]);

/** What the receiver needs of the ghosts it has (the mirror's table). */
export interface GhostTable {
  /** Per id: the type index of the ghost held, or -1. */
  readonly typeOf: Int16Array;
  /** Per id: the ghost's received states (null when none). */
  readonly histories: (EntityHistory | null)[];
  /** The tick of the newest section applied (0 before any). */
  readonly newestTick: number;
  /** This end's configuration fingerprint (configurationHash). */
  readonly configuration: number;
  /** Whether a section carrying the server's fingerprint was applied since the connection began. */
  readonly configurationChecked: boolean;
}

const DESTROYED = 1;
const CREATED = 2;
const UPDATED = 4;

/** updateChanged: the state differs from the newest held, is the same, or was not compared. */
export const SAME = 0;
export const CHANGED = 1;
export const UNKNOWN = 2;

/**
 * Reads a ghost section into staged lists without touching the ghosts, refusing the whole of it
 * (with `rs.fail(reason)`) on anything listed in docs/replication.md, "Bad input on the client".
 * States are read into per-type pools reused from packet to packet.
 */
export class GhostReceiver implements SectionGhosts {
  tick = 0;
  /** Whether the section read carried the server's configuration fingerprint (it matched if read). */
  hadConfiguration = false;
  /** Whether the section read was refused because the server's configuration differs. */
  configurationDiffers = false;
  readonly destroys = new IdList(16);
  /** Per destroy: 1 when the entity left the server's world, 0 when it left this client's interest. */
  readonly destroyGone = new IdList(16);
  readonly creates = new IdList(16);
  readonly createTypes = new IdList(16);
  readonly createGenerations = new IdList(16);
  readonly createStates: LaneState[] = [];
  readonly updates = new IdList(16);
  readonly updateStates: LaneState[] = [];
  /**
   * Per update: whether its state differs from the ghost's newest held (CHANGED, SAME), or
   * UNKNOWN when it was read against an older baseline: the mirror compares only those.
   */
  readonly updateChanged = new IdList(16);
  private readonly pools: LaneState[][];
  /** Per type: 1 when its newest states are read straight from the history's record (no blobs, at most MASK_LANES lanes). */
  private readonly flat: Uint8Array;
  private readonly poolUsed: Int32Array;
  private readonly seen: Uint8Array;
  /** The table the last section was read against (for holdsAfter). */
  private table: GhostTable | null = null;
  /** The changed lanes of the update read before, for the repeat bit (entity-delta.ts). */
  private readonly previousChanges: PreviousChanges;

  constructor(
    private readonly types: readonly AnyEntityType[],
    private readonly capacity: number,
  ) {
    this.pools = types.map(() => []);
    this.flat = Uint8Array.from(types, (t) =>
      t.layout.blobs.length === 0 && t.layout.lanes.length <= MASK_LANES ? 1 : 0,
    );
    this.poolUsed = new Int32Array(types.length);
    this.seen = new Uint8Array(capacity);
    this.previousChanges = new PreviousChanges(Math.max(0, ...types.map((t) => t.layout.lanes.length)));
  }

  private state(typeIndex: number): LaneState {
    const pool = this.pools[typeIndex];
    const used = this.poolUsed[typeIndex]++;
    if (used === pool.length) pool.push(this.types[typeIndex].layout.createState());
    return pool[used];
  }

  private clear(): void {
    this.unmark(this.destroys);
    this.unmark(this.creates);
    this.unmark(this.updates);
    this.destroys.clear();
    this.destroyGone.clear();
    this.creates.clear();
    this.createTypes.clear();
    this.createGenerations.clear();
    this.updates.clear();
    this.updateChanged.clear();
    this.poolUsed.fill(0);
  }

  private unmark(list: IdList): void {
    for (let i = 0; i < list.length; i++) this.seen[list.items[i]] = 0;
  }

  /** Parses a section against `table`; false (the stream failed with a reason) when it is bad. */
  read(rs: ReadStream, table: GhostTable): boolean {
    this.clear();
    this.table = table;
    this.hadConfiguration = false;
    this.configurationDiffers = false;
    const { capacity, seen } = this;
    const tick = rs.bits(0, TICK_BITS);
    if (!rs.ok) return false;
    if (tick === 0) return this.refuse(rs, 'section tick 0');
    if (tick < table.newestTick)
      return this.refuse(rs, `stale section: tick ${tick} is older than ${table.newestTick}`);
    this.tick = tick;
    if (rs.bits(0, 1) === 1) {
      const configuration = rs.bits(0, CONFIGURATION_BITS);
      if (!rs.ok) return false;
      if (configuration !== table.configuration) {
        this.configurationDiffers = true;
        return this.refuse(rs, CONFIGURATION_DIFFERS);
      }
      this.hadConfiguration = true;
    } else if (rs.ok && !table.configurationChecked)
      return this.refuse(rs, "section without the server's configuration before the client checked it");
    while (rs.ok && rs.bool(false)) {
      const id = rs.int(0, 0, capacity - 1);
      const gone = rs.bits(0, 1);
      if (!rs.ok) break;
      if (seen[id] !== 0) return this.refuse(rs, `ghost ${id} destroyed twice`);
      seen[id] = DESTROYED;
      this.destroys.push(id);
      this.destroyGone.push(gone);
    }
    while (rs.ok && rs.bool(false)) {
      const id = rs.int(0, 0, capacity - 1);
      const type = rs.int(0, 0, this.types.length - 1);
      const generation = rs.bits(0, GENERATION_BITS);
      if (!rs.ok) break;
      if ((seen[id] & CREATED) !== 0) return this.refuse(rs, `ghost ${id} created twice`);
      const layout = this.types[type].layout as EntityLayout<unknown>;
      const state = this.state(type);
      if (readStagedDelta(rs, layout, layout.zero, state, null) < 0) break;
      seen[id] |= CREATED;
      this.creates.push(id);
      this.createTypes.push(type);
      this.createGenerations.push(generation);
      this.createStates[this.creates.length - 1] = state;
    }
    const count = readUpdateCount(rs, capacity);
    const reference = count > 0 ? readReference(rs, tick) : -1;
    let previous = -1;
    this.previousChanges.reset();
    // Each update takes at least a bit, so a count past the input ends with the stream.
    for (let u = 0; u < count && rs.ok; u++) {
      const id = readUpdateId(rs, previous, capacity);
      if (!rs.ok) break;
      previous = id;
      if (seen[id] !== 0)
        return this.refuse(rs, `ghost ${id} updated in the section that creates or destroys it`);
      const type = table.typeOf[id];
      if (type < 0) return this.refuse(rs, `update of ghost ${id}, which the client does not have`);
      const baselineTick = readBaseline(rs, tick, reference);
      if (!rs.ok) break;
      const history = table.histories[id]!;
      const layout = this.types[type].layout as EntityLayout<unknown>;
      const state = this.state(type);
      let changed: number;
      if (baselineTick === NEWEST_HELD && this.flat[type] === 1 && history.size > 0) {
        // The common case, read where the newest state lies in the history's record (its state
        // object, a view of the same lanes, left untouched: a pointer chase less per entity).
        const record = history.record;
        const at = history.lanes0 + record[history.offset + HISTORY_HEAD] * layout.lanes.length;
        changed = readStagedLanes(rs, layout, record, at, NO_BLOBS, state, this.previousChanges);
      } else {
        // -1: the zero state; NEWEST_HELD: the newest held; else the tick of one held.
        const newest = history.latest;
        let baseline = baselineTick === -1 || newest === null ? layout.zero : newest;
        if (baselineTick >= 0) {
          const exact = history.exact(baselineTick);
          if (exact === null)
            return this.refuse(
              rs,
              `update of ghost ${id} against tick ${baselineTick}, which it does not hold`,
            );
          baseline = exact;
        }
        changed = readStagedDelta(rs, layout, baseline, state, this.previousChanges);
        if (changed >= 0 && baseline !== newest) changed = UNKNOWN;
      }
      if (changed < 0) break;
      this.updateChanged.push(changed);
      seen[id] = UPDATED;
      this.updates.push(id);
      this.updateStates[this.updates.length - 1] = state;
    }
    return rs.ok;
  }

  // --- events hook: what the events part of the section may name ---
  /** Whether the client holds ghost `id` once the section just read is applied. */
  holdsAfter(id: number): boolean {
    const seen = this.seen[id];
    if ((seen & CREATED) !== 0) return true;
    return (seen & DESTROYED) === 0 && this.table !== null && this.table.typeOf[id] >= 0;
  }
  // --- end events hook ---

  /**
   * A state read against the zero state must carry every blob: an empty one is the zero state's
   * placeholder, never an encoding (each variable-size field takes at least one bit).
   */
  private refuse(rs: ReadStream, reason: string): false {
    rs.fail(reason);
    return false;
  }
}
