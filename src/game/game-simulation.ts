/**
 * The server side of a game, transport-free (browser-safe): the world and its replication, the
 * players' inputs, lag compensation for every entity type with a hitbox, and the rules' hooks.
 * GameServer drives it with a clock and a MessageServer; the room type with its room's ticks.
 */
import { InputReceiver } from '../latency/input-receiver.js';
import type { LagCompensation } from '../latency/lag-compensation.js';
import type { AnyEntityType } from '../replication/entity-type.js';
import type { AnyEventType } from '../replication/event.js';
import type { ReplicationServer, ReplicationServerOptions } from '../replication/replication-server.js';
import { type Entity, ServerWorld } from '../replication/server-world.js';
import { SchemaValueError } from '../schema/interpret.js';
import { type GameDefinition, type GameWiring, wiringOf } from './define-game.js';
import { EntityHandle, PlayerHandle } from './game-handles.js';
import type { ClaimedInput } from './game-prediction.js';
import type {
  AnyGameEntity,
  EmitOptions,
  GameEntity,
  GameHooks,
  GamePlayer,
  GameRules,
  ServerGame,
} from './game-rules.js';
import { makeLagRecords, recordLags } from './lag-records.js';
import { RuleErrors } from './rule-errors.js';
import { fieldOf, schemaError } from './schema-error.js';
import { checkShape, type Shape, shapeBounds, shapesOverlap } from './shapes.js';
import { SpawnJudge, type SpawnStats } from './spawn-judge.js';

export interface GameSimulationOptions {
  /** Player slots: indices are in [0, maxPlayers). */
  maxPlayers: number;
  /** Makes the world's replication (GameServer: a ReplicationServer of its own; a room: Room.replicate). */
  replicate: (options: Omit<ReplicationServerOptions, 'maxClients'>) => ReplicationServer;
  /** A hook threw: reported here, never thrown (default console.error). */
  onError?: (error: unknown, where: string) => void;
}

/** What the simulation counts (`stats()`; GameServer.stats sums them with its own). */
export interface GameSimulationStats extends SpawnStats {
  ticks: number;
  inputsTaken: number;
  inputsRefused: number;
  hitTests: number;
  hookErrors: number;
  /**
   * Times `step` threw or returned a state outside its entity type's schema: the entity kept its
   * previous state (reported to onError as 'step', at most once a second).
   */
  stepErrors: number;
  /** Players' messages handed to onMessage. */
  messages: number;
}

/** Messages taken from one player per tick at most; the rest wait in its channel (bounded there). */
export const MAX_MESSAGES_PER_TICK = 16;

/** Implements ServerGame (its generic signatures are checked at the hooks' boundary, `game`). */
export class GameSimulation {
  // The expert's way in: the layers under the rules.
  readonly definition: GameDefinition;
  readonly world: ServerWorld;
  /** Whether an entity type declares visibility (then teams set the clients' groups). */
  private readonly hasParts: boolean;
  readonly replication: ReplicationServer;
  readonly inputs: InputReceiver<unknown>;
  readonly lags: Map<AnyEntityType, LagCompensation<unknown>>;
  readonly data: Record<string, unknown> = {};
  private readonly counters: Omit<GameSimulationStats, 'hookErrors' | 'stepErrors' | keyof SpawnStats> = {
    ticks: 0,
    inputsTaken: 0,
    inputsRefused: 0,
    hitTests: 0,
    messages: 0,
  };
  private readonly wiring: GameWiring;
  private readonly hooks: GameHooks;
  private readonly playerList: PlayerHandle[] = [];
  private readonly bySlot: (PlayerHandle | null)[];
  private readonly handles: (EntityHandle | null)[];
  /** The live entities in creation order; `entities` hands out a copy made once per change. */
  private readonly entityList: EntityHandle[] = [];
  private entitiesShown: readonly EntityHandle[] | null = null;
  private readonly errors: RuleErrors;
  /** Moves and spawns (the game's `move`s and `spawns`), and the clients' claims judged. */
  private readonly judge: SpawnJudge;
  private readonly box = new Float64Array(6);
  /** @internal The tick hooks see is the world's + this (1 while simulating the next; a zone's catch-up sets others). */
  protected simulating = 0;
  /** This simulation as the hooks see it. */
  private readonly game = this as unknown as ServerGame;

  constructor(rules: GameRules, options: GameSimulationOptions) {
    const where = 'GameSimulation';
    if (typeof rules !== 'object' || rules === null || typeof rules.hooks !== 'object')
      throw new TypeError(`${where}: rules must be what game.rules(...) returned`);
    const game = rules.game;
    this.wiring = wiringOf(where, game);
    this.definition = game;
    this.hooks = rules.hooks;
    const maxPlayers = options.maxPlayers;
    if (!Number.isInteger(maxPlayers) || maxPlayers < 1 || maxPlayers > 65536)
      throw new RangeError(`${where}: maxPlayers must be an integer in [1, 65536], got ${maxPlayers}`);
    this.errors = new RuleErrors(
      options.onError ?? ((error, at) => console.error(`ghostwire game ${game.name}: ${at} threw`, error)),
      game.tickRate,
    );
    this.world = new ServerWorld({ types: this.wiring.types, capacity: game.maxEntities });
    this.hasParts = this.world.types.some((type) => type.partOf !== undefined);
    this.replication = options.replicate({ world: this.world, events: this.wiring.events });
    this.bySlot = new Array(maxPlayers).fill(null);
    this.handles = new Array(game.maxEntities).fill(null);
    const claimed = this.wiring.prediction.wireInput !== null;
    this.judge = new SpawnJudge(
      {
        world: this.world,
        replication: this.replication,
        game: this.game,
        hooks: this.hooks,
        errors: this.errors,
        get tick() {
          return self.tick;
        },
        create: (where, type, state) => this.create(where, type, state),
        entityHandles: () => this.entities as EntityHandle[],
      },
      this.wiring.prediction,
    );
    const self = this;
    this.inputs = new InputReceiver<unknown>({
      // With spawns, inputs carry the client's claims: the rules see the game's input only.
      schema: this.wiring.prediction.wireInput ?? game.input,
      tickRate: game.tickRate,
      maxClients: maxPlayers,
      ...(this.hooks.validateInput === undefined
        ? {}
        : {
            validate: (input, slot) =>
              this.validateInput(claimed ? (input as ClaimedInput).input : input, slot),
          }),
      onRefusal: () => this.counters.inputsRefused++,
    });
    this.lags = makeLagRecords(this.wiring, game.tickRate, game.maxEntities, maxPlayers);
  }

  get players(): readonly GamePlayer[] {
    return this.playerList;
  }

  // biome-ignore lint/suspicious/noExplicitAny: entities of any type: the rules see them typed through ServerGame
  get entities(): readonly AnyGameEntity<any>[] {
    // A new array only after a change: the rules may destroy entities while they iterate one.
    if (this.entitiesShown === null) this.entitiesShown = [...this.entityList];
    return this.entitiesShown;
  }

  get tick(): number {
    return this.world.serverTick + this.simulating;
  }

  /** The player in slot `index`, or null. @internal */
  playerAt(index: number): PlayerHandle | null {
    return this.bySlot[index] ?? null;
  }

  /** A connection took slot `index`: its player joins (onJoin). @internal */
  join(index: number, userId: string | null = null): PlayerHandle {
    if (this.bySlot[index] !== null) throw new RangeError(`GameSimulation.join: slot ${index} is taken`);
    const player = new PlayerHandle(this, index, userId);
    this.bySlot[index] = player;
    this.playerList.push(player);
    // A new player sees no team's fields until it has a team (a zone's one-slot replication
    // never has parts: zones refuse visibility).
    if (this.hasParts) this.replication.setGroups(index, 0);
    this.errors.call('onJoin', () => this.hooks.onJoin?.(this.game, player));
    return player;
  }

  /** The player is back on a new connection (a room's reconnection): same player and entity, new slot. @internal */
  move(player: PlayerHandle, index: number): void {
    if (player.index >= 0 && this.bySlot[player.index] === player) this.bySlot[player.index] = null;
    this.bySlot[index] = player;
    player.index = index;
    this.teamChanged(player);
    const entity = player.entity;
    if (entity?.alive) this.own(player, entity as EntityHandle);
  }

  /** A player arriving with its entity from another zone: in slot `index`, without onJoin. @internal */
  arrive(index: number): PlayerHandle {
    if (this.bySlot[index] !== null) throw new RangeError(`GameSimulation.arrive: slot ${index} is taken`);
    const player = new PlayerHandle(this, index);
    this.bySlot[index] = player;
    this.playerList.push(player);
    return player;
  }

  /** A player leaving for another zone: gone from here without onLeave; its entity stays until released. @internal */
  depart(player: PlayerHandle): void {
    const at = this.playerList.indexOf(player);
    if (at < 0) return;
    this.playerList.splice(at, 1);
    if (player.index >= 0 && this.bySlot[player.index] === player) this.bySlot[player.index] = null;
    const entity = player.entityHandle;
    if (entity !== null && entity.ownerHandle === player) entity.ownerHandle = null;
    player.entityHandle = null;
  }

  /** The player's connection dropped (a room holds its seat): it stays, idle, until `move` or `leave`. @internal */
  drop(player: PlayerHandle): void {
    if (player.index >= 0 && this.bySlot[player.index] === player) this.bySlot[player.index] = null;
    player.index = -1;
  }

  /** The player left for good (onLeave), and its entity goes. @internal */
  leave(player: PlayerHandle): void {
    const at = this.playerList.indexOf(player);
    if (at < 0) return;
    this.errors.call('onLeave', () => this.hooks.onLeave?.(this.game, player));
    this.playerList.splice(at, 1);
    this.judge.forget(player);
    if (player.index >= 0 && this.bySlot[player.index] === player) this.bySlot[player.index] = null;
    const entity = player.entity as EntityHandle | null;
    if (entity?.alive) entity.destroy();
    player.entityHandle = null;
  }

  /** What the simulation counted (a new object). */
  stats(): GameSimulationStats {
    return {
      ...this.counters,
      ...this.judge.stats(),
      hookErrors: this.errors.hookErrors,
      stepErrors: this.errors.stepErrors,
    };
  }

  /** @internal A message from a player: onMessage. */
  deliver(player: PlayerHandle, name: string, value: unknown): void {
    this.counters.messages++;
    this.errors.call('onMessage', () => this.hooks.onMessage?.(this.game, player, { name, value }));
  }

  /**
   * Simulates the next tick (the world's serverTick + 1) without stamping it: records the hit
   * shapes of the last tick stamped, applies each player's input with `step` (onInput), then onTick.
   */
  simulate(): void {
    const tick = this.world.serverTick + 1;
    // The game's hitbox threw or gave a shape that is not finite: that tick goes unrecorded.
    recordLags(this.lags, this.world, this.handles, (error) => this.errors.hitboxFailed(error, this.tick));
    this.simulating = 1;
    try {
      this.judge.moveAll();
      for (const player of this.playerList) {
        if (player.index < 0) continue; // dropped: its entity waits for its return
        this.stepPlayer(player, tick);
      }
      this.errors.call('onTick', () => this.hooks.onTick?.(this.game));
    } finally {
      this.simulating = 0;
    }
    this.counters.ticks++;
  }

  /**
   * One player's part of a tick: its input for `tick` applied to its entity with `step`, then
   * onInput. @internal (a zone also runs it for ticks an arriving player missed).
   */
  stepPlayer(player: PlayerHandle, tick: number): void {
    const taken = this.takeInput(player.index, tick);
    if (taken === null) return;
    this.counters.inputsTaken++;
    const claimed = this.wiring.prediction.wireInput !== null && this.inputs.lastInputTick(player.index) >= 0;
    const input = claimed ? (taken as ClaimedInput).input : taken;
    player.input = input;
    const entity = player.entityHandle;
    if (entity?.alive) this.applyStep(entity, input);
    if (claimed)
      this.judge.spawn(
        player,
        input,
        (taken as ClaimedInput).claims ?? 0,
        this.inputs.lastInputTick(player.index),
      );
    // A zone's inputs come without claims or input ticks: its spawns run on each input, unanswered.
    else if (this.wiring.prediction.spawns !== null) this.judge.spawn(player, input, 0, -1);
    this.errors.call('onInput', () => this.hooks.onInput?.(this.game, player, input));
  }

  /** Creates an entity no player owns (ServerGame.spawn). */
  spawn(type: string, state: unknown): GameEntity {
    return this.create(`game.spawn('${type}')`, type, state);
  }

  /** @internal `where`: the call named in errors. */
  create(where: string, type: string, state: unknown): EntityHandle {
    const entityType = this.typeNamed('spawn', type);
    let entity: Entity<unknown>;
    try {
      entity = this.world.create(entityType, state);
    } catch (error) {
      throw schemaError(where, error);
    }
    const handle = new EntityHandle(this, entity, type);
    this.handles[entity.id] = handle;
    this.entityList.push(handle);
    this.entitiesShown = null;
    return handle;
  }

  /** Makes `entity` the player's own: ownership in the world and the client told (a reliable event). @internal */
  own(player: PlayerHandle, entity: EntityHandle): void {
    player.entityHandle = entity;
    entity.ownerHandle = player;
    if (player.index < 0) return; // dropped: told when it is back (move)
    this.world.setOwner(entity.entity, player.index);
    this.teamChanged(player);
    this.tellOwner(player.index, entity.id);
  }

  /** The player's team (or slot) changed: its groups and its own entity's group follow. @internal */
  teamChanged(player: PlayerHandle): void {
    const team = player.team;
    if (this.hasParts && player.index >= 0)
      this.replication.setGroups(player.index, team === null ? 0 : (1 << team) >>> 0);
    const entity = player.entity;
    if (entity !== null) this.world.setGroup((entity as EntityHandle).entity, team);
  }

  /** An entity was destroyed: forget its handle and its history. @internal */
  forget(entity: EntityHandle): void {
    if (this.handles[entity.id] === entity) this.handles[entity.id] = null;
    const at = this.entityList.indexOf(entity);
    if (at >= 0) this.entityList.splice(at, 1);
    this.entitiesShown = null;
    this.lags.get(entity.entity.type)?.remove(entity.id);
    const owner = entity.ownerHandle;
    if (owner === null || owner.entityHandle !== entity) return;
    owner.entityHandle = null;
    if (owner.index >= 0 && this.bySlot[owner.index] === owner) this.tellOwner(owner.index, -1);
  }

  emit(name: string, value: unknown, options: EmitOptions = {}): void {
    const type = this.definition.eventTypes[name];
    if (type === undefined || typeof name !== 'string' || !Object.hasOwn(this.definition.eventTypes, name))
      throw new RangeError(`game.emit: ${JSON.stringify(name)} is not one of the game's events`);
    const to = options.to;
    if (to !== undefined && !(to instanceof PlayerHandle && this.playerList.includes(to)))
      throw new RangeError('game.emit: to must be a player in this game');
    if (to !== undefined && to.index < 0) return; // dropped: a returning client is sent the world, not its events
    const part = options.part;
    if (part !== undefined && !(part.entity instanceof EntityHandle && part.entity.alive))
      throw new RangeError('game.emit: part.entity must be a live entity of this game');
    if (
      part !== undefined &&
      !(part.entity as EntityHandle).entity.type.parts?.some((p) => p.field === part.field)
    )
      throw new RangeError(
        `game.emit: part.field ${JSON.stringify(part.field)} is not a private field of ${part.entity.type} (see visibility)`,
      );
    try {
      this.sendEvent(
        type,
        value,
        options.reliable ?? true,
        to === undefined ? -1 : to.index,
        part === undefined ? undefined : { entity: (part.entity as EntityHandle).entity, field: part.field },
      );
    } catch (error) {
      throw schemaError(`game.emit('${name}')`, error);
    }
  }

  // biome-ignore lint/suspicious/noExplicitAny: entities of any type: the rules see them typed through ServerGame
  hitTest(player: GamePlayer, shape?: Shape): AnyGameEntity<any>[] {
    const where = 'game.hitTest';
    if (!(player instanceof PlayerHandle) || !this.playerList.includes(player))
      throw new RangeError(`${where}: player must be a player in this game`);
    let test = shape;
    if (test === undefined) {
      const own = player.entityHandle;
      const hitbox = own === null ? undefined : this.wiring.hitboxes.get(own.entity.type);
      if (own === null || hitbox === undefined)
        throw new RangeError(`${where}: give a shape (the player has no entity with a hitbox)`);
      test = hitbox(own.state);
    }
    checkShape(where, test);
    this.counters.hitTests++;
    const volume = shapeBounds(test, this.box);
    const own = player.entityHandle?.id ?? -1;
    // biome-ignore lint/suspicious/noExplicitAny: entities of any type: the rules see them typed through ServerGame
    const hits: AnyGameEntity<any>[] = [];
    const view = this.viewTickOf(player.index);
    for (const [type, lag] of this.lags) {
      if (lag.presentTick < 0) continue;
      const hitbox = this.wiring.hitboxes.get(type)!;
      // No view yet (no render tick shown): the present is what the player is judged against.
      const at = Number.isFinite(view) ? view : lag.presentTick;
      const base = Math.floor(at);
      lag.rewind(player.index, base, at - base, volume, (id, state) => {
        const handle = this.handles[id];
        if (id === own || handle === null || !shapesOverlap(test, hitbox(state))) return;
        // biome-ignore lint/suspicious/noExplicitAny: entities of any type: the rules see them typed through ServerGame
        hits.push(handle as AnyGameEntity<any>);
      });
    }
    return hits;
  }

  // The seams a zone overrides (src/zones/zone-simulation.ts): where inputs come from, where
  // events and ownership go. By default: the players' connections, through the replication.

  /** @internal The player's input for `tick` (null: none yet), as InputReceiver.take. */
  protected takeInput(index: number, tick: number): unknown | null {
    return this.inputs.take(index, tick);
  }

  /**
   * @internal How far behind the present the player saw the others with its newest input: the
   * present tick minus its view tick, in ticks, in [0, 255] (0 before it has shown anything).
   */
  viewDelayTicks(index: number): number {
    const view = this.viewTickOf(index);
    if (!Number.isFinite(view)) return 0;
    return Math.min(255, Math.max(0, this.world.serverTick - view));
  }

  /** @internal The render tick the player's client showed with its input (NaN: none yet). */
  protected viewTickOf(index: number): number {
    return this.inputs.viewTick(index);
  }

  /** @internal Sends an event to the player in slot `to`, or to everyone (-1). */
  protected sendEvent(
    type: AnyEventType,
    value: unknown,
    reliable: boolean,
    to: number,
    part?: { entity: Entity<unknown>; field: string },
  ): void {
    const about = part === undefined ? {} : { entity: part.entity, part: part.field };
    this.replication.emit(type, value, to < 0 ? { reliable, ...about } : { reliable, to, ...about });
  }

  /** @internal Tells the player in slot `index` which entity is its own (-1: none). */
  protected tellOwner(index: number, id: number): void {
    this.replication.emit(this.wiring.owner, { id }, { to: index, reliable: true });
  }

  /** @internal The rules' validateInput for the player in `slot`: true or why it is refused. */
  protected validateInput(input: unknown, slot: number): true | string {
    const validate = this.hooks.validateInput;
    if (validate === undefined) return true;
    const player = this.bySlot[slot];
    if (player === null) return 'no player';
    try {
      return validate(input, player);
    } catch (error) {
      this.errors.hookFailed(error, 'validateInput');
      return 'validateInput threw';
    }
  }

  /**
   * The player's input applied to its entity with `step`. Its input may come from a remote peer, so
   * neither a throw nor a state outside the schema may stop the tick: the entity keeps its state.
   */
  private applyStep(entity: EntityHandle, input: unknown): void {
    let next: unknown;
    try {
      // A fresh copy each tick: whatever the step does to its input, the world's state is untouched.
      next = this.definition.step(this.world.get(entity.entity), input);
    } catch (error) {
      this.errors.stepFailed(error, this.tick);
      return;
    }
    try {
      // The world checks the state before it changes anything: a refused one leaves the previous.
      entity.state = next;
    } catch (error) {
      const cause = (error as Error).cause;
      const field = cause instanceof SchemaValueError ? fieldOf(cause) : String(error);
      const failure = `step: the ${entity.type} state it returned does not fit its schema: ${field}`;
      this.errors.stepFailed(new RangeError(failure, { cause: error }), this.tick);
    }
  }

  private typeNamed(where: string, name: string): AnyEntityType {
    const type = this.definition.entityTypes[name] as AnyEntityType | undefined;
    if (type === undefined || !Object.hasOwn(this.definition.entityTypes, name))
      throw new RangeError(`game.${where}: ${JSON.stringify(name)} is not one of the game's entity types`);
    return type;
  }
}
