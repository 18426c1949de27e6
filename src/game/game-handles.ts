/** The server's player and entity objects the rules are handed (GamePlayer, GameEntity). */
import type { Entity } from '../replication/server-world.js';
import type { GameEntity, GamePlayer } from './game-rules.js';
import type { GameSimulation } from './game-simulation.js';
import { schemaError } from './schema-error.js';

export class EntityHandle implements GameEntity<string, unknown> {
  /** @internal The player whose own entity it is. */
  ownerHandle: PlayerHandle | null = null;
  readonly data: Record<string, unknown> = {};
  /** The value read back from the world (quantized) since the last assignment; undefined: read it again. */
  private cached: unknown = undefined;

  constructor(
    private readonly simulation: GameSimulation,
    /** @internal */
    readonly entity: Entity<unknown>,
    readonly type: string,
  ) {}

  get id(): number {
    return this.entity.id;
  }

  get alive(): boolean {
    return this.simulation.world.isAlive(this.entity);
  }

  get owner(): GamePlayer | null {
    return this.ownerHandle;
  }

  get team(): number | null {
    return this.alive ? this.simulation.world.groupOf(this.entity) : null;
  }

  set team(team: number | null) {
    if (!this.alive) throw new RangeError(`GameEntity.team: ${this.type} ${this.id} was destroyed`);
    this.simulation.world.setGroup(this.entity, checkTeam('GameEntity.team', team));
  }

  get state(): unknown {
    if (!this.alive) throw new RangeError(`GameEntity.state: ${this.type} ${this.id} was destroyed`);
    // Frozen: changing a field in place would not reach the clients; assigning `state` does.
    if (this.cached === undefined) this.cached = Object.freeze(this.simulation.world.get(this.entity));
    return this.cached;
  }

  set state(value: unknown) {
    const where = `GameEntity.state (${this.type} ${this.id})`;
    if (!this.alive) throw new RangeError(`${where}: it was destroyed`);
    try {
      this.simulation.world.set(this.entity, value);
    } catch (error) {
      throw schemaError(where, error);
    }
    this.cached = undefined;
  }

  destroy(): void {
    if (!this.alive) return;
    this.simulation.world.destroy(this.entity);
    this.simulation.forget(this);
  }
}

export class PlayerHandle implements GamePlayer {
  /** @internal */
  entityHandle: EntityHandle | null = null;
  input: unknown = null;
  readonly data: Record<string, unknown> = {};
  private teamValue: number | null = null;

  constructor(
    private readonly simulation: GameSimulation,
    public index: number,
    readonly userId: string | null = null,
  ) {}

  get entity(): EntityHandle | null {
    return this.entityHandle?.alive ? this.entityHandle : null;
  }

  get state(): unknown {
    return this.entity?.state ?? null;
  }

  set state(value: unknown) {
    const entity = this.entity;
    if (entity === null)
      throw new RangeError(`GamePlayer.state: player ${this.index} has no entity; spawn one`);
    entity.state = value;
  }

  get team(): number | null {
    return this.teamValue;
  }

  set team(team: number | null) {
    this.teamValue = checkTeam('GamePlayer.team', team);
    this.simulation.teamChanged(this);
  }

  spawn(state: unknown): EntityHandle {
    if (this.simulation.playerAt(this.index) !== this)
      throw new RangeError(`GamePlayer.spawn: player ${this.index} is not in the game`);
    const type = this.simulation.definition.player;
    const entity = this.simulation.create(`GamePlayer.spawn (${type})`, type, state);
    const old = this.entity;
    if (old !== null) {
      old.ownerHandle = null; // no "none" event for the old one: the new one follows at once
      old.destroy();
    }
    this.simulation.own(this, entity);
    return entity;
  }
}

function checkTeam(where: string, team: number | null): number | null {
  if (team === null || (Number.isInteger(team) && team >= 0 && team <= 31)) return team;
  throw new RangeError(`${where}: a team is an integer in [0, 31] or null, got ${team}`);
}
