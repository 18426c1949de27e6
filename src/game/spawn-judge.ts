/**
 * The server's side of predicted spawns and moves. Each tick, before the players' steps, every
 * entity of a type with a `move` is moved (null: destroyed). After a player's step, the game's
 * `spawns` runs on its state and input, and each spawn the rules allow is created. The claims its
 * client sent with the input are only compared with those: a claimed key the server spawned is
 * matched (a reliable event about the new entity, so it arrives with its create), any other claimed
 * key is refused. A claim never creates anything.
 */
import type { EventType } from '../replication/event.js';
import type { ReplicationServer } from '../replication/replication-server.js';
import type { ServerWorld } from '../replication/server-world.js';
import { SchemaValueError } from '../schema/interpret.js';
import type { EntityHandle, PlayerHandle } from './game-handles.js';
import { claimCount, type GamePrediction, MAX_SPAWN_KEYS } from './game-prediction.js';
import type { GameHooks, ServerGame } from './game-rules.js';
import type { RuleErrors } from './rule-errors.js';
import { fieldOf } from './schema-error.js';

/** What the judge counts (in GameSimulation's stats). */
export interface SpawnStats {
  /** Entities the game's spawns created. */
  spawnsCreated: number;
  /** Spawns the rules' allowSpawn vetoed, or that were invalid (bad key, type or state, over maxSpawnsPerTick). */
  spawnsVetoed: number;
  /** Claims matched with a spawn of the server, and refused. */
  claimsMatched: number;
  claimsRefused: number;
  /** Claims dropped unanswered: more than maxSpawnsPerTick in one input, or on an input already taken. */
  claimsDropped: number;
}

/** What the judge needs of the simulation. */
export interface SpawnHost {
  readonly world: ServerWorld;
  readonly replication: ReplicationServer;
  readonly game: ServerGame;
  readonly hooks: GameHooks;
  readonly errors: RuleErrors;
  readonly tick: number;
  create(where: string, type: string, state: unknown): EntityHandle;
  entityHandles(): readonly EntityHandle[];
}

export class SpawnJudge {
  private readonly counters: SpawnStats = {
    spawnsCreated: 0,
    spawnsVetoed: 0,
    claimsMatched: 0,
    claimsRefused: 0,
    claimsDropped: 0,
  };
  /** The input tick each slot's spawns last ran for (a repeated input spawns nothing). */
  private readonly lastTick: Map<PlayerHandle, number> = new Map();
  private readonly made: (EntityHandle | null)[] = new Array(MAX_SPAWN_KEYS).fill(null);

  constructor(
    private readonly host: SpawnHost,
    private readonly prediction: GamePrediction,
  ) {}

  /** Moves every entity of a type with a move (before this tick's spawns, which start next tick). */
  moveAll(): void {
    const types = this.prediction.types;
    if (types.size === 0) return;
    const world = this.host.world;
    for (const handle of this.host.entityHandles()) {
      const spec = types.get(handle.entity.type);
      if (spec === undefined || !handle.alive) continue;
      let next: unknown;
      try {
        next = spec.move(world.get(handle.entity));
      } catch (error) {
        this.host.errors.stepFailed(error, this.host.tick);
        continue;
      }
      if (next === null) {
        handle.destroy();
        continue;
      }
      try {
        handle.state = next;
      } catch (error) {
        const cause = (error as Error).cause;
        const field = cause instanceof SchemaValueError ? fieldOf(cause) : String(error);
        const failure = `move: the ${handle.type} state it returned does not fit its schema: ${field}`;
        this.host.errors.stepFailed(new RangeError(failure, { cause: error }), this.host.tick);
      }
    }
  }

  /** The player's spawns for input tick `inputTick` (its entity stepped), judged against `claims`. */
  spawn(player: PlayerHandle, input: unknown, claims: number, inputTick: number): void {
    const spawns = this.prediction.spawns;
    if (spawns === null) return;
    // A repeated input (its next one has not arrived) was spawned from already: nothing again.
    const fresh = inputTick < 0 || inputTick > (this.lastTick.get(player) ?? -1);
    if (!fresh) {
      if (claims !== 0) this.counters.claimsDropped += claimCount(claims);
      return;
    }
    if (inputTick >= 0) this.lastTick.set(player, inputTick);
    const made = this.made;
    made.fill(null);
    const entity = player.entityHandle;
    if (entity?.alive) this.run(player, entity, input);
    if (claims !== 0 && player.index >= 0) this.answer(player, claims, inputTick);
  }

  /** What the judge counted (live: copy it to keep). */
  stats(): Readonly<SpawnStats> {
    return this.counters;
  }

  /** The player left: forget its input tick. */
  forget(player: PlayerHandle): void {
    this.lastTick.delete(player);
  }

  private run(player: PlayerHandle, entity: EntityHandle, input: unknown): void {
    const host = this.host;
    let list: readonly { type: string; key: number; state: unknown }[];
    try {
      list = this.prediction.spawns!(host.world.get(entity.entity), input);
    } catch (error) {
      host.errors.stepFailed(error, host.tick);
      return;
    }
    if (!Array.isArray(list)) {
      host.errors.stepFailed(new TypeError('spawns: it must return an array'), host.tick);
      return;
    }
    let count = 0;
    for (const spawn of list) {
      const key = spawn?.key;
      if (
        count >= this.prediction.maxSpawnsPerTick ||
        !Number.isInteger(key) ||
        key < 0 ||
        key >= MAX_SPAWN_KEYS ||
        this.made[key] !== null
      ) {
        this.counters.spawnsVetoed++;
        continue;
      }
      let allowed = true;
      const allow = host.hooks.allowSpawn;
      if (allow !== undefined)
        host.errors.call('allowSpawn', () => {
          allowed = allow(host.game, player, spawn as never) === true;
        });
      if (!allowed) {
        this.counters.spawnsVetoed++;
        continue;
      }
      try {
        this.made[key] = host.create(`spawns ('${spawn.type}')`, spawn.type, spawn.state);
      } catch (error) {
        this.counters.spawnsVetoed++;
        host.errors.stepFailed(error, host.tick);
        continue;
      }
      count++;
      this.counters.spawnsCreated++;
    }
  }

  private answer(player: PlayerHandle, claims: number, inputTick: number): void {
    // More claims than spawns allowed: not an honest client; nothing answered, nothing made.
    if (claimCount(claims) > this.prediction.maxSpawnsPerTick || inputTick < 0) {
      this.counters.claimsDropped += claimCount(claims);
      return;
    }
    const verdict = this.prediction.verdict as EventType<unknown, string>;
    for (let key = 0; key < MAX_SPAWN_KEYS; key++) {
      if ((claims & (1 << key)) === 0) continue;
      const made = this.made[key];
      if (made?.alive) {
        this.counters.claimsMatched++;
        this.host.replication.emit(
          verdict,
          { tick: inputTick, key, id: made.id },
          { entity: made.entity, to: player.index, reliable: true },
        );
      } else {
        this.counters.claimsRefused++;
        this.host.replication.emit(
          verdict,
          { tick: inputTick, key, id: -1 },
          { to: player.index, reliable: true },
        );
      }
    }
  }
}
