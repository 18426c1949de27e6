/**
 * The game's rules run over one zone: a GameSimulation whose inputs come from the gateways (per
 * tick, by player id) instead of connections, whose events and ownership changes go to the zone's
 * feed, and whose entities and players can leave for another zone and arrive from one without
 * their hooks running (a handoff is not a join, a leave, a spawn or a destroy).
 *
 * Entities carry a world id (world-id-allocator.ts) besides their local id; players a player id
 * (the gateway's) besides their local slot. The rules see local ones, as in a single server.
 */

import { wiringOf } from '../game/define-game.js';
import type { EntityHandle, PlayerHandle } from '../game/game-handles.js';
import type { GameRules } from '../game/game-rules.js';
import { GameSimulation } from '../game/game-simulation.js';
import type { AnyEventType } from '../replication/event.js';
import { ReplicationServer } from '../replication/replication-server.js';
import { SchemaValueError } from '../schema/interpret.js';
import { WorldIdAllocator } from './world-id-allocator.js';
import { checkZonedRefs, EventRefs, worldRefIds } from './zone-event-refs.js';
import { MAX_ZONES } from './zone-map-description.js';
import type { EntityRecord, PlayerOwner, PlayerRecord, ZoneEvent, ZoneInput } from './zone-messages.js';

import { MAX_PENDING_INPUTS, MAX_SINCE_HANDOFF_TICKS } from './zone-wire-fields.js';

/** Inputs one player may have waiting for ticks not simulated yet (all travel with it in a handoff); more are refused. */
const MAX_WAITING_INPUTS = MAX_PENDING_INPUTS;
/** Players whose inputs wait unclaimed at once at most, and how far ahead such an input may be. */
const MAX_UNCLAIMED_PLAYERS = 256;
const MAX_UNCLAIMED_TICKS = 64;

export interface ZoneSimulationOptions {
  zone: number;
  /** Players this zone hosts at once at most (default 1024). */
  maxPlayers?: number;
  /** The world id allocator's next n (0 for a new zone; a snapshot's after a takeover). */
  nextWorldId?: number;
  onError?: (error: unknown, where: string) => void;
}

/** Why an input was refused (`ZoneSimulation.input`), or null when it was kept. */
export type InputRefusal = 'not-hosted' | 'late' | 'too-far-ahead' | 'too-many' | 'invalid';

export class ZoneSimulation extends GameSimulation {
  readonly zone: number;
  readonly allocator: WorldIdAllocator;
  /** Per local id: its world id (-1: none), handoffs so far, tick of its last handoff or spawn. */
  readonly worldIds: Float64Array;
  readonly hseqs: Uint32Array;
  readonly movedAt: Float64Array;
  /** This tick's events, ownership changes and destroyed world ids: the feed's, cleared by `drain`. */
  readonly events: ZoneEvent[] = [];
  readonly owners: PlayerOwner[] = [];
  readonly removed: number[] = [];
  /** Inputs refused, by reason. */
  readonly refusals: Record<InputRefusal, number> = {
    'not-hosted': 0,
    late: 0,
    'too-far-ahead': 0,
    'too-many': 0,
    invalid: 0,
  };
  private readonly byWorldId = new Map<number, EntityHandle>();
  private readonly byPlayerId = new Map<number, PlayerHandle>();
  /** Per slot: the player id (-1: free), its waiting inputs by tick, the last one taken and its view. */
  private readonly playerIds: Float64Array;
  private readonly waiting: Map<number, ZoneInput>[];
  private readonly lastInput: unknown[];
  private readonly lastView: Float64Array;
  private readonly freeSlots: number[] = [];
  /** Inputs for players not hosted here yet, by player id (see keepUnclaimed). */
  private readonly unclaimed = new Map<number, ZoneInput[]>();
  private readonly eventTypes: readonly AnyEventType[];
  private readonly eventRefs: EventRefs;
  /** World ids past this cannot go on the wire in a reference (zone-event-refs.ts): they go as none. */
  private readonly refIds = worldRefIds(MAX_ZONES);
  /** A local id to its world id for an event leaving the zone: -1 (none) for no live entity. */
  private readonly toWorldId = (id: number): number => {
    if (id === -1) return -1;
    if (!Number.isInteger(id) || id < 0 || id >= this.world.capacity)
      throw new SchemaValueError(
        '',
        `entity id ${id} is not -1 (none) or an integer below ${this.world.capacity}`,
      );
    const worldId = this.worldIds[id];
    return worldId < this.refIds ? worldId : -1;
  };
  /** The world id the next create takes (an arriving entity keeps its own), or -1: mint one. */
  private arrivingWorldId = -1;
  private releasing = false;

  constructor(rules: GameRules, options: ZoneSimulationOptions) {
    const maxPlayers = options.maxPlayers ?? 1024;
    // The zone feed and the gateways' mirrors carry whole entities: private parts would leak or
    // lag there, so a game that declares them cannot be zoned yet.
    for (const type of Object.values(
      rules.game.entityTypes as Record<string, { name: string; parts?: readonly unknown[] }>,
    ))
      if ((type.parts?.length ?? 0) > 0)
        throw new RangeError(
          `ZoneSimulation: entity type ${type.name} declares visibility, which a zoned world does not support yet`,
        );
    // Nothing is replicated from a zone (its gateways replicate their mirrors): a one-slot server
    // the world needs, that no connection ever reads.
    super(rules, {
      maxPlayers,
      replicate: (replication) => new ReplicationServer({ ...replication, maxClients: 1 }),
      ...(options.onError === undefined ? {} : { onError: options.onError }),
    });
    this.zone = options.zone;
    this.allocator = new WorldIdAllocator(options.zone, options.nextWorldId ?? 0);
    const capacity = this.world.capacity;
    this.worldIds = new Float64Array(capacity).fill(-1);
    this.hseqs = new Uint32Array(capacity);
    this.movedAt = new Float64Array(capacity);
    this.playerIds = new Float64Array(maxPlayers).fill(-1);
    this.waiting = Array.from({ length: maxPlayers }, () => new Map<number, ZoneInput>());
    this.lastInput = new Array(maxPlayers).fill(null);
    this.lastView = new Float64Array(maxPlayers).fill(Number.NaN);
    for (let slot = maxPlayers - 1; slot >= 0; slot--) this.freeSlots.push(slot);
    // The event list both ends agree on: the control event first (see define-game.ts).
    this.eventTypes = wiringOf('ZoneSimulation', this.definition).events;
    checkZonedRefs('ZoneSimulation', this.definition);
    this.eventRefs = new EventRefs(this.eventTypes);
  }

  /** The player hosted here with this id, or null. */
  playerById(playerId: number): PlayerHandle | null {
    return this.byPlayerId.get(playerId) ?? null;
  }

  /** The entity owned here with this world id, or null. */
  entityByWorldId(worldId: number): EntityHandle | null {
    return this.byWorldId.get(worldId) ?? null;
  }

  /** The entities this zone owns (a copy made once per change, as `entities`). */
  get owned(): readonly EntityHandle[] {
    return this.entities as unknown as readonly EntityHandle[];
  }

  /**
   * Keeps an input for a player not hosted here, for a player arriving with it soon (an input
   * forwarded by the player's old zone can overtake the handoff). Bounded: inputs past the zone's
   * tick are not kept, and once MAX_UNCLAIMED_PLAYERS lists are held the stale ones go first.
   */
  keepUnclaimed(input: ZoneInput): void {
    const tick = this.world.serverTick;
    if (input.tick <= tick) return;
    let list = this.unclaimed.get(input.playerId);
    if (list === undefined) {
      if (this.unclaimed.size >= MAX_UNCLAIMED_PLAYERS) this.dropUnclaimed(tick);
      if (this.unclaimed.size >= MAX_UNCLAIMED_PLAYERS) return;
      list = [];
      this.unclaimed.set(input.playerId, list);
    }
    if (list.length < MAX_WAITING_INPUTS) list.push(input);
  }

  /** Whether every hosted player that has had an input has its input for `tick` waiting. */
  inputsReady(tick: number): boolean {
    for (const player of this.byPlayerId.values()) {
      const slot = player.index;
      if (this.lastInput[slot] !== null && !this.waiting[slot].has(tick)) return false;
    }
    return true;
  }

  /** The inputs waiting for ticks not simulated yet of the player in `slot`, oldest first. */
  waitingInputs(slot: number): ZoneInput[] {
    const tick = this.world.serverTick;
    return [...this.waiting[slot].values()].filter((i) => i.tick > tick).sort((a, b) => a.tick - b.tick);
  }

  /** The player id in slot `slot` (-1: none). */
  playerIdAt(slot: number): number {
    return this.playerIds[slot] ?? -1;
  }

  get hostedPlayers(): number {
    return this.byPlayerId.size;
  }

  /** A new player joins the world here (onJoin runs); false when the zone has no slot left or it is here already. */
  joinPlayer(playerId: number): boolean {
    if (this.byPlayerId.has(playerId) || this.freeSlots.length === 0) return false;
    const slot = this.freeSlots.pop()!;
    this.playerIds[slot] = playerId;
    this.byPlayerId.set(playerId, this.join(slot));
    return true;
  }

  /** The player left the world (onLeave runs, its entity is destroyed); false when it is not hosted here. */
  leavePlayer(playerId: number): boolean {
    const player = this.byPlayerId.get(playerId);
    if (player === undefined) return false;
    this.leave(player);
    this.freeSlot(playerId, player.index);
    return true;
  }

  /**
   * Keeps an input for its tick; refused when it is not for a hosted player or not for a tick
   * ahead (`from`: the first tick still to be simulated, default the next).
   */
  input(input: ZoneInput, from = this.world.serverTick + 1): InputRefusal | null {
    const player = this.byPlayerId.get(input.playerId);
    if (player === undefined) return this.refuse('not-hosted');
    const next = this.world.serverTick + 1;
    if (input.tick < from) return this.refuse('late');
    if (input.tick >= next + MAX_WAITING_INPUTS) return this.refuse('too-far-ahead');
    const waiting = this.waiting[player.index];
    if (waiting.size >= MAX_WAITING_INPUTS && !waiting.has(input.tick)) return this.refuse('too-many');
    if (this.validateInput(input.input, player.index) !== true) return this.refuse('invalid');
    waiting.set(input.tick, input);
    return null;
  }

  /** The entity and its player (if any) as they leave for another zone, then gone from here. */
  release(entity: EntityHandle, hseq: number): EntityRecord {
    const id = entity.id;
    const tick = this.world.serverTick;
    const owner = entity.ownerHandle;
    let player: PlayerRecord | null = null;
    if (
      owner !== null &&
      owner.entityHandle === entity &&
      this.byPlayerId.get(this.playerIds[owner.index]) === owner
    ) {
      const slot = owner.index;
      const playerId = this.playerIds[slot];
      player = { playerId, data: jsonOf(owner.data), inputs: this.waitingInputs(slot) };
      this.depart(owner);
      this.freeSlot(playerId, slot);
    }
    const record: EntityRecord = {
      worldId: this.worldIds[id],
      hseq,
      typeIndex: this.world.typeOf[id],
      state: entity.state,
      data: jsonOf(entity.data),
      sinceHandoffTicks: Math.min(MAX_SINCE_HANDOFF_TICKS, Math.max(0, tick - this.movedAt[id])),
      player,
    };
    this.releasing = true;
    try {
      entity.destroy();
    } finally {
      this.releasing = false;
    }
    return record;
  }

  /**
   * An entity (and its player) arriving from another zone, or restored from a snapshot: owned here
   * from the next tick, its handoff counted from `movedAt`. `missedFrom`: the tick it should have
   * been simulated from here, when this zone has stepped past it (it was ahead of the zone the
   * entity came from): its player's steps of those ticks are run now with the inputs it carried,
   * so its state is what the rules would have made of it (the rules' onTick is not run again).
   * Throws on a record the game refuses (the caller read it hostile-first, so that is a bug).
   */
  receiveEntity(record: EntityRecord, movedAt: number, missedFrom = Number.POSITIVE_INFINITY): EntityHandle {
    const name = Object.keys(this.definition.entityTypes)[record.typeIndex];
    if (name === undefined)
      throw new RangeError(`ZoneSimulation.receiveEntity: no entity type ${record.typeIndex}`);
    this.arrivingWorldId = record.worldId;
    let entity: EntityHandle;
    try {
      entity = this.create('ZoneSimulation.receiveEntity', name, record.state);
    } finally {
      this.arrivingWorldId = -1;
    }
    Object.assign(entity.data, parseData(record.data));
    this.hseqs[entity.id] = record.hseq;
    this.movedAt[entity.id] = movedAt;
    const player = record.player;
    if (player !== null) {
      const serverTick = this.world.serverTick;
      const handle = this.receivePlayer(player, Math.min(missedFrom, serverTick + 1));
      if (handle !== null) {
        this.own(handle, entity);
        for (let tick = missedFrom; tick <= serverTick; tick++) {
          this.simulating = tick - serverTick;
          try {
            this.stepPlayer(handle, tick);
          } finally {
            this.simulating = 0;
          }
        }
      }
    }
    return entity;
  }

  /** A player without an entity, restored from a snapshot; null when no slot is left. */
  receivePlayer(record: PlayerRecord, inputsFrom = this.world.serverTick + 1): PlayerHandle | null {
    if (this.byPlayerId.has(record.playerId) || this.freeSlots.length === 0) return null;
    const slot = this.freeSlots.pop()!;
    this.playerIds[slot] = record.playerId;
    const player = this.arrive(slot);
    Object.assign(player.data, parseData(record.data));
    this.byPlayerId.set(record.playerId, player);
    for (const input of record.inputs) this.input(input, inputsFrom);
    const unclaimed = this.unclaimed.get(record.playerId);
    if (unclaimed !== undefined) {
      this.unclaimed.delete(record.playerId);
      for (const input of unclaimed) this.input(input, inputsFrom);
    }
    return player;
  }

  /** @internal Mints a world id for each new entity (an arriving one keeps its own). */
  override create(where: string, type: string, state: unknown): EntityHandle {
    const handle = super.create(where, type, state);
    const worldId = this.arrivingWorldId >= 0 ? this.arrivingWorldId : this.allocator.allocate();
    this.worldIds[handle.id] = worldId;
    this.hseqs[handle.id] = 0;
    // A new entity may go wherever it is at once: no dwell to wait out.
    this.movedAt[handle.id] = Number.NEGATIVE_INFINITY;
    this.byWorldId.set(worldId, handle);
    return handle;
  }

  /** @internal */
  override forget(entity: EntityHandle): void {
    const id = entity.id;
    const worldId = this.worldIds[id];
    if (worldId >= 0 && this.byWorldId.get(worldId) === entity) {
      this.byWorldId.delete(worldId);
      if (!this.releasing) this.removed.push(worldId);
    }
    this.worldIds[id] = -1;
    super.forget(entity);
  }

  protected override takeInput(index: number, tick: number): unknown | null {
    const waiting = this.waiting[index];
    const input = waiting.get(tick);
    if (input !== undefined) {
      waiting.delete(tick);
      this.lastInput[index] = input.input;
      this.lastView[index] = input.viewTick;
    }
    // Older ones can no longer be taken (their tick has passed).
    for (const t of waiting.keys()) if (t < tick) waiting.delete(t);
    // None for this tick: the last one again, as a connection's input buffer does when starved.
    return this.lastInput[index];
  }

  protected override viewTickOf(index: number): number {
    return this.lastView[index];
  }

  protected override sendEvent(type: AnyEventType, value: unknown, reliable: boolean, to: number): void {
    const typeIndex = this.eventTypes.indexOf(type);
    // Its entity references are local ids: the rest of the world knows their world ids.
    const sent = this.eventRefs.rewrite(typeIndex, structuredClone(value), this.toWorldId);
    this.events.push({ to: to < 0 ? -1 : this.playerIds[to], typeIndex, reliable, value: sent });
  }

  protected override tellOwner(index: number, id: number): void {
    const playerId = this.playerIds[index];
    if (playerId < 0) return;
    this.owners.push({ playerId, worldId: id < 0 ? -1 : this.worldIds[id] });
  }

  /** Forgets each list whose inputs are all past `tick` or more than MAX_UNCLAIMED_TICKS ahead of it. */
  private dropUnclaimed(tick: number): void {
    for (const [playerId, list] of this.unclaimed)
      if (list.every((input) => input.tick <= tick || input.tick > tick + MAX_UNCLAIMED_TICKS))
        this.unclaimed.delete(playerId);
  }

  private freeSlot(playerId: number, slot: number): void {
    this.byPlayerId.delete(playerId);
    this.playerIds[slot] = -1;
    this.waiting[slot].clear();
    this.lastInput[slot] = null;
    this.lastView[slot] = Number.NaN;
    this.freeSlots.push(slot);
  }

  private refuse(reason: InputRefusal): InputRefusal {
    this.refusals[reason]++;
    return reason;
  }
}

/** The rules' data as JSON text; what JSON cannot carry is reported by the caller's codec bound. */
function jsonOf(data: Record<string, unknown>): string {
  try {
    return JSON.stringify(data) ?? '{}';
  } catch {
    return '{}';
  }
}

function parseData(text: string): Record<string, unknown> {
  const value: unknown = JSON.parse(text);
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}
