import { checkIndex } from '../channels/check-index.js';
import { EntityHistory, historyRecordWords, pushLanes } from './entity-history.js';
import type { EntityLayout } from './entity-layout.js';
import { type AnyEntityType, checkTypes, type EntityType, expandTypes } from './entity-type.js';
import { IdList } from './id-list.js';
import { copyState, type LaneState, sameState } from './lane-state.js';
import { checkParts, PartScratch, partValue, readParts } from './part-scratch.js';

/** A handle to a live entity: its id (reused after a destroy) and the generation that tells uses apart. */
export interface Entity<T = unknown> {
  readonly id: number;
  readonly generation: number;
  readonly type: EntityType<T, string>;
}

export interface ServerWorldOptions {
  /** Every entity type, in the same order the clients list them (a type's parts follow it, unlisted). */
  types: readonly AnyEntityType[];
  /** Entity ids are integers in [0, capacity); at most 65536. */
  capacity: number;
  /** Distinct states kept per entity for baselines (default 32, at least 2, at most 256). */
  historyLength?: number;
}

/** Generations are 16 bits on the wire; they wrap. */
export const GENERATION_MASK = 0xffff;
const FREE = -1;
/** Ids per block of history records an entity type's store allocates at once (ids come low first). */
const STORE_IDS = 64;

/**
 * The server's replicated entities. `create`, `set` and `destroy` take effect for clients at the
 * next `tick()`: it stamps the new server tick and copies each entity changed since the last
 * tick into its history once, shared by every client (the work is O(changed), never a scan).
 * Every call checks its arguments: a value outside its schema, an unknown type, a full world or
 * a handle to a destroyed entity throws naming what is wrong.
 */
export class ServerWorld {
  readonly types: readonly AnyEntityType[];
  readonly capacity: number;
  readonly historyLength: number;
  private ticks = 0;
  /** Per id: the type index of the live entity, or -1. */
  readonly typeOf: Int16Array;
  /** Per id: the generation of the live (or last) entity. */
  readonly generationOf: Uint16Array;
  /** Per id, as of the last tick: the type index replicated (-1: none) and its generation. */
  readonly tickedType: Int16Array;
  readonly tickedGeneration: Uint16Array;
  /** Per id: the states of the entity as of recent ticks. */
  readonly histories: (EntityHistory | null)[];
  /**
   * @internal Per id: the flat record of its history (EntityHistory's `record`, `offset`): the
   * records of one type's ids in blocks of STORE_IDS, so the shared deltas read the rings of
   * neighbouring ids from neighbouring memory, without the objects.
   */
  readonly historyStores: (Uint32Array | null)[];
  /** @internal Per id: where its record starts in its store. */
  readonly historyOffsets: Int32Array;
  /** Per type index, per block of STORE_IDS ids: the store of their records, made on first use. */
  private readonly stores: (Uint32Array | undefined)[][];
  /**
   * Per id, as of the last tick: the tick of the newest and of the oldest state in its history
   * (-1: none). The same as the history's, in flat arrays: senders read them for every
   * candidate of every client, without touching the history object.
   */
  readonly latestTicks: Float64Array;
  readonly oldestTicks: Float64Array;
  /**
   * Per id: the state the last set left (what the next tick records). Its lanes are a view of the
   * words right after the id's history record, so the tick compares and copies them in the store.
   */
  private readonly current: (LaneState | null)[];
  /** Per type index: its scalar lanes, whether it has blobs (1) and a position (1). */
  private readonly laneCounts: Uint16Array;
  private readonly blobTypes: Uint8Array;
  private readonly positioned: Uint8Array;
  /** Per id: the position its type reports (x, y, z), refreshed by create and set. */
  readonly positions: Float64Array;
  private readonly handles: (Entity<unknown> | null)[];
  /** Per id: the client index that owns the live entity (may command it), or -1. */
  private readonly owners: Int32Array;
  private readonly typeIndex = new Map<AnyEntityType, number>();
  private readonly free: IdList;
  private readonly dirty: IdList;
  private readonly isDirty: Uint8Array;
  /** Ids destroyed or created since the last tick (their replicated slot changes at the tick). */
  private readonly lifecycle: IdList;
  private readonly inLifecycle: Uint8Array;
  /** @internal Called by tick() for each id whose entity appeared, vanished or moved (set by ReplicationServer). */
  onTicked: ((id: number, typeIndex: number, moved: boolean) => void) | undefined;
  /**
   * @internal Told when a tick starts and of each entity whose new state it records, right after
   * (set by ReplicationServer: its shared deltas encode ahead while the history is in cache).
   */
  recorder: { beginTick(tick: number): void; recorded(id: number): void } | undefined;
  /** @internal Per entity id with private fields: the ids of its parts' companions (else null). */
  readonly partIds: (Int32Array | null)[];
  /** @internal Per companion id: its entity's id (else -1). */
  readonly parentOf: Int32Array;
  /** @internal Per id: the entity's group (world.setGroup), or -1. */
  readonly groupOfId: Int8Array;
  /** Per companion id: the value its quantizer reads (its entity's id, generation and field). */
  private readonly partValues: (Record<string, unknown> | null)[];
  /** The states `set` quantizes parts into before comparing them with the current ones. */
  private readonly partScratch = new PartScratch();
  /** @internal Told of each entity whose audience may have changed (owner, group, revisit). */
  onAudience: ((id: number) => void) | undefined;

  constructor(options: ServerWorldOptions) {
    const where = 'ServerWorld';
    checkTypes(where, options.types);
    const types = expandTypes(options.types);
    checkTypes(where, types);
    const { capacity } = options;
    if (!Number.isInteger(capacity) || capacity < 1 || capacity > 65536)
      throw new RangeError(`${where}: capacity must be an integer in [1, 65536], got ${capacity}`);
    const historyLength = options.historyLength ?? 32;
    if (!Number.isInteger(historyLength) || historyLength < 2 || historyLength > 256)
      throw new RangeError(`${where}: historyLength must be an integer in [2, 256], got ${historyLength}`);
    this.types = Object.freeze(types);
    for (let i = 0; i < this.types.length; i++) this.typeIndex.set(this.types[i], i);
    this.capacity = capacity;
    this.historyLength = historyLength;
    this.laneCounts = Uint16Array.from(this.types, (type) => type.layout.lanes.length);
    this.blobTypes = Uint8Array.from(this.types, (type) => (type.layout.blobs.length > 0 ? 1 : 0));
    this.positioned = Uint8Array.from(this.types, (type) => (type.position === undefined ? 0 : 1));
    this.typeOf = new Int16Array(capacity).fill(FREE);
    this.generationOf = new Uint16Array(capacity);
    this.tickedType = new Int16Array(capacity).fill(FREE);
    this.tickedGeneration = new Uint16Array(capacity);
    this.histories = new Array(capacity).fill(null);
    this.historyStores = new Array(capacity).fill(null);
    this.historyOffsets = new Int32Array(capacity);
    this.stores = this.types.map(() => []);
    this.latestTicks = new Float64Array(capacity).fill(-1);
    this.oldestTicks = new Float64Array(capacity).fill(-1);
    this.current = new Array(capacity).fill(null);
    this.positions = new Float64Array(capacity * 3);
    this.handles = new Array(capacity).fill(null);
    this.owners = new Int32Array(capacity).fill(FREE);
    this.free = new IdList(capacity);
    for (let id = capacity - 1; id >= 0; id--) this.free.push(id);
    this.dirty = new IdList(64);
    this.isDirty = new Uint8Array(capacity);
    this.lifecycle = new IdList(64);
    this.inLifecycle = new Uint8Array(capacity);
    this.partIds = new Array(capacity).fill(null);
    this.parentOf = new Int32Array(capacity).fill(FREE);
    this.groupOfId = new Int8Array(capacity).fill(FREE);
    this.partValues = new Array(capacity).fill(null);
  }

  /** The server tick of the last `tick()`: 0 before the first, then 1, 2, ... */
  get serverTick(): number {
    return this.ticks;
  }

  /** Live entities. */
  get size(): number {
    return this.capacity - this.free.length;
  }

  /** Creates an entity (clients see it from the next tick); throws when full or the value is bad. */
  create<T>(type: EntityType<T, string>, value: T): Entity<T> {
    const index = this.typeIndex.get(type as AnyEntityType);
    if (index === undefined)
      throw new RangeError(
        `ServerWorld.create: entity type ${(type as AnyEntityType)?.name ?? type} is not in this world's types`,
      );
    if ((type as AnyEntityType).partOf !== undefined)
      throw new RangeError(
        `ServerWorld.create: ${type.name} is a part's companion type, made with its entity`,
      );
    const parts = type.parts ?? [];
    if (this.free.length < 1 + parts.length)
      throw new RangeError(`ServerWorld.create: the world is full (capacity ${this.capacity})`);
    checkParts(parts, value); // every part's value, before anything changes
    const entity = this.createOne(index, type, value);
    if (parts.length > 0) {
      const ids = new Int32Array(parts.length);
      for (let i = 0; i < parts.length; i++) {
        const partType = parts[i].type;
        const tagged = partValue(parts[i], entity.id, entity.generation, value);
        const companion = this.createOne(this.typeIndex.get(partType)!, partType, tagged);
        ids[i] = companion.id;
        this.parentOf[companion.id] = entity.id;
        this.partValues[companion.id] = tagged;
        this.copyPosition(entity.id, companion.id);
      }
      this.partIds[entity.id] = ids;
    }
    this.groupOfId[entity.id] = FREE;
    return entity;
  }

  private createOne<T>(index: number, type: EntityType<T, string>, value: T): Entity<T> {
    const id = this.free.items[this.free.length - 1];
    const layout = type.layout as EntityLayout<unknown>;
    let history = this.histories[id];
    if (history === null || history.layout !== layout) {
      history = this.newHistory(index, layout, id);
      this.histories[id] = history;
    }
    const state = this.current[id]!;
    // Quantized before anything changes, so a bad value leaves the world as it was.
    state.lanes.fill(0);
    layout.quantize(value, state);
    this.locate(type, id, value, 'create');
    this.free.length--;
    this.typeOf[id] = index;
    this.owners[id] = FREE;
    this.generationOf[id] = (this.generationOf[id] + 1) & GENERATION_MASK;
    const entity: Entity<T> = Object.freeze({ id, generation: this.generationOf[id], type });
    this.handles[id] = entity as Entity<unknown>;
    this.markDirty(id);
    this.markLifecycle(id);
    return entity;
  }

  /** Replaces an entity's value (clients see it from the next tick); throws naming a bad field. */
  set<T>(entity: Entity<T>, value: T): void {
    const id = this.check('set', entity);
    const layout = entity.type.layout;
    layout.quantize(value, this.current[id]!);
    this.locate(entity.type, id, value, 'set');
    this.markDirty(id);
    const ids = this.partIds[id];
    if (ids === null) return;
    const parts = entity.type.parts!;
    for (let i = 0; i < ids.length; i++) {
      const companion = ids[i];
      const tagged = this.partValues[companion]!;
      const field = parts[i].field;
      tagged[field] = (value as Record<string, unknown>)[field];
      this.copyPosition(id, companion);
      if (this.partScratch.update(parts[i].type.layout, tagged, this.current[companion]!))
        this.markDirty(companion);
    }
  }

  /** The entity's value as clients will see it (quantized), built anew. */
  get<T>(entity: Entity<T>): T {
    const id = this.check('get', entity);
    const value = entity.type.layout.dequantize(this.current[id]!);
    const ids = this.partIds[id];
    if (ids === null) return value;
    readParts(
      value,
      entity.type.parts!,
      Array.from(ids, (companion) => this.current[companion]!),
    );
    return value;
  }

  /** Whether a handle still names a live entity. */
  isAlive(entity: Entity<unknown>): boolean {
    return this.handles[entity.id] === entity;
  }

  /** Destroys an entity; its id may be reused at once, with a new generation. */
  destroy(entity: Entity<unknown>): void {
    const id = this.check('destroy', entity);
    const ids = this.partIds[id];
    if (ids !== null) {
      for (let i = 0; i < ids.length; i++) {
        this.destroyOne(ids[i]);
        this.parentOf[ids[i]] = FREE;
        this.partValues[ids[i]] = null;
      }
      this.partIds[id] = null;
    }
    this.destroyOne(id);
    this.groupOfId[id] = FREE;
  }

  private destroyOne(id: number): void {
    this.typeOf[id] = FREE;
    this.handles[id] = null;
    this.owners[id] = FREE;
    this.free.push(id);
    this.markLifecycle(id);
  }

  /**
   * Puts an entity in a group (an integer in [0, 31], e.g. a team; null: none): the clients whose
   * groups (`ReplicationServer.setGroups`) include it see its `group()` fields, from the next tick.
   */
  setGroup(entity: Entity<unknown>, group: number | null): void {
    const id = this.check('setGroup', entity);
    if (group !== null && !(Number.isInteger(group) && group >= 0 && group <= 31))
      throw new RangeError(`ServerWorld.setGroup: group must be an integer in [0, 31] or null, got ${group}`);
    const next = group === null ? FREE : group;
    if (this.groupOfId[id] === next) return;
    this.groupOfId[id] = next;
    if (this.partIds[id] !== null) this.onAudience?.(id);
  }

  /** The entity's group, or null. */
  groupOf(entity: Entity<unknown>): number | null {
    const group = this.groupOfId[this.check('groupOf', entity)];
    return group === FREE ? null : group;
  }

  /** Asks the `when(test)` of an entity's private fields again for every client (what the test reads changed). */
  revisit(entity: Entity<unknown>): void {
    const id = this.check('revisit', entity);
    if (this.partIds[id] !== null) this.onAudience?.(id);
  }

  /** @internal The handle of an entity's part companion (for an event restricted to the part's holders). */
  partEntity(entity: Entity<unknown>, field: string): Entity<unknown> {
    const id = this.check('partEntity', entity);
    const parts = entity.type.parts ?? [];
    const index = parts.findIndex((part) => part.field === field);
    if (index < 0)
      throw new RangeError(
        `${entity.type.name} has no private field ${JSON.stringify(field)} (see visibility)`,
      );
    return this.handles[this.partIds[id]![index]]!;
  }

  private copyPosition(from: number, to: number): void {
    this.positions[to * 3] = this.positions[from * 3];
    this.positions[to * 3 + 1] = this.positions[from * 3 + 1];
    this.positions[to * 3 + 2] = this.positions[from * 3 + 2];
  }

  /**
   * Makes a client the owner of an entity (null: nobody): only the owner's commands may target
   * it (see CommandRouter). A new entity has no owner; a destroy or the owner's disconnect ends it.
   */
  setOwner(entity: Entity<unknown>, clientIndex: number | null): void {
    const id = this.check('setOwner', entity);
    const next =
      clientIndex === null ? FREE : checkIndex('ServerWorld.setOwner', 'clientIndex', clientIndex, 65536);
    if (this.owners[id] === next) return;
    this.owners[id] = next;
    if (this.partIds[id] !== null) this.onAudience?.(id);
  }

  /** The client index owning an entity, or null. */
  ownerOf(entity: Entity<unknown>): number | null {
    const owner = this.owners[this.check('ownerOf', entity)];
    return owner === FREE ? null : owner;
  }

  /** Whether `clientIndex` owns the live entity with this id (no checks: the command path). */
  ownsId(clientIndex: number, id: number): boolean {
    return this.owners[id] === clientIndex;
  }

  /** Ends every ownership a client holds (its connection ended); O(capacity), once per disconnect. */
  disown(clientIndex: number): number {
    let count = 0;
    for (let id = 0; id < this.capacity; id++) {
      if (this.owners[id] !== clientIndex) continue;
      this.owners[id] = FREE;
      if (this.partIds[id] !== null) this.onAudience?.(id);
      count++;
    }
    return count;
  }

  /** The live entity with this id, or null. */
  entity(id: number): Entity<unknown> | null {
    return this.handles[checkIndex('ServerWorld.entity', 'id', id, this.capacity)];
  }

  /**
   * Advances the server tick and records every entity created, set or destroyed since the last
   * one: each changed state is copied into its history once, stamped with the new tick.
   */
  tick(): number {
    if (this.ticks >= 0xfffffffe) throw new RangeError('ServerWorld.tick: the tick counter is exhausted');
    const tick = ++this.ticks;
    const recorder = this.recorder;
    recorder?.beginTick(tick);
    for (let i = 0; i < this.lifecycle.length; i++) {
      const id = this.lifecycle.items[i];
      this.inLifecycle[id] = 0;
      const type = this.typeOf[id];
      const generation = this.generationOf[id];
      if (this.tickedType[id] === type && (type === FREE || this.tickedGeneration[id] === generation))
        continue;
      this.tickedType[id] = type;
      this.tickedGeneration[id] = generation;
      if (type !== FREE) this.histories[id]!.clear();
      this.latestTicks[id] = -1;
      this.oldestTicks[id] = -1;
      this.onTicked?.(id, type, false);
    }
    this.lifecycle.clear();
    const length = this.historyLength;
    const { dirty, isDirty, typeOf, laneCounts, historyStores, historyOffsets } = this;
    for (let i = 0; i < dirty.length; i++) {
      const id = dirty.items[i];
      isDirty[id] = 0;
      const type = typeOf[id];
      if (type === FREE) continue;
      if (this.positioned[type] === 1) {
        this.onTicked?.(id, type, true);
        const ids = this.partIds[id];
        if (ids !== null) for (let j = 0; j < ids.length; j++) this.onTicked?.(ids[j], typeOf[ids[j]], true);
      }
      let oldest: number;
      if (this.blobTypes[type] === 0) {
        // In the store alone: the current lanes follow the record (see newHistory).
        const lanes = laneCounts[type];
        const offset = historyOffsets[id];
        const from = offset + historyRecordWords(length, lanes);
        oldest = pushLanes(historyStores[id]!, offset, length, lanes, from, tick);
        if (oldest < 0) continue;
      } else {
        const history = this.histories[id]!;
        const state = this.current[id]!;
        const latest = history.latest;
        if (latest !== null && sameState(latest, state)) continue;
        // The states are this world's own (no shape checks).
        copyState(state, history.slotFor(tick));
        oldest = history.oldestTick;
      }
      this.latestTicks[id] = tick;
      this.oldestTicks[id] = oldest;
      if (recorder !== undefined) recorder.recorded(id);
    }
    this.dirty.clear();
    return tick;
  }

  /**
   * A history for `id` in its type's store (its place there is the id's: ids come low first), and
   * the id's current state, whose lanes are the words right after the record.
   */
  private newHistory(type: number, layout: EntityLayout<unknown>, id: number): EntityHistory {
    const lanes = layout.lanes.length;
    const record = historyRecordWords(this.historyLength, lanes);
    const words = record + lanes;
    const blocks = this.stores[type];
    const block = Math.floor(id / STORE_IDS);
    let store = blocks[block];
    if (store === undefined) {
      store = new Uint32Array(words * STORE_IDS);
      blocks[block] = store;
    }
    const offset = (id % STORE_IDS) * words;
    this.historyStores[id] = store;
    this.historyOffsets[id] = offset;
    this.current[id] = {
      lanes: store.subarray(offset + record, offset + words),
      blobs: layout.createState().blobs,
    };
    return new EntityHistory(layout, this.historyLength, store, offset);
  }

  private check(what: string, entity: Entity<unknown>): number {
    const id = entity?.id;
    if (!Number.isInteger(id) || id < 0 || id >= this.capacity || typeof entity !== 'object')
      throw new TypeError(`ServerWorld.${what}: not an entity handle of this world`);
    if (this.handles[id] !== entity)
      throw new RangeError(
        `ServerWorld.${what}: ${entity.type?.name ?? 'entity'} ${id} (generation ${entity.generation}) was destroyed or is not of this world`,
      );
    return id;
  }

  private locate<T>(type: EntityType<T, string>, id: number, value: T, what: string): void {
    if (type.position === undefined) return;
    const p = type.position(value);
    const x = p[0];
    const y = p[1];
    const z = p.length > 2 ? (p[2] as number) : 0;
    if (!(x - x === 0 && y - y === 0 && z - z === 0))
      throw new RangeError(`ServerWorld.${what}: ${type.name}'s position is not finite: [${p.join(', ')}]`);
    this.positions[id * 3] = x;
    this.positions[id * 3 + 1] = y;
    this.positions[id * 3 + 2] = z;
  }

  private markDirty(id: number): void {
    if (this.isDirty[id] !== 0) return;
    this.isDirty[id] = 1;
    this.dirty.push(id);
  }

  private markLifecycle(id: number): void {
    if (this.inLifecycle[id] !== 0) return;
    this.inLifecycle[id] = 1;
    this.lifecycle.push(id);
  }
}
