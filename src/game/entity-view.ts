/**
 * What a GameClient shows: its own entity as predicted, and every other ghost interpolated at the
 * render tick (a GhostSampler per ghost, with the interpolator of its type). The objects are kept
 * per ghost and refreshed in place each frame, so drawing allocates nothing.
 */
import { GhostSampler } from '../latency/ghost-sampler.js';
import type { LatencyClient } from '../latency/latency-client.js';
import type { PredictedWorld } from '../latency/predicted-world.js';
import type { ClientMirror, Ghost } from '../replication/client-mirror.js';
import type { GameWiring } from './define-game.js';

/** An entity as the client shows it. `state` is refreshed in place by each update: copy what you keep. */
export interface ShownEntity<K extends string = string, S = unknown> {
  readonly id: number;
  readonly type: K;
  readonly state: S;
  /**
   * True when predicted (ahead of the server, like `me`): a spawn of this player's input (a
   * negative id until the server's entity matches it) or a neighbour of a type predicted near.
   */
  readonly predicted: boolean;
}

interface Shown {
  id: number;
  type: string;
  state: unknown;
  predicted: boolean;
  sampler: GhostSampler<unknown>;
}

export class EntityView {
  /** The others, rebuilt by `refresh`. */
  readonly others: ShownEntity[] = [];
  private readonly shown = new Map<number, Shown>();
  private ownId = -1;
  private readonly mine: ShownEntity = { id: -1, type: '', state: null, predicted: true };
  /** The local spawns shown, by their (negative) id. */
  private readonly locals = new Map<
    number,
    { id: number; type: string; state: unknown; predicted: boolean }
  >();

  constructor(
    private readonly wiring: GameWiring,
    private readonly mirror: ClientMirror,
    // biome-ignore lint/suspicious/noExplicitAny: the latency client of any game
    private readonly latency: LatencyClient<any, any>,
    /** The entities predicted besides `me` (null: the game predicts none). */
    private readonly predictedWorld: PredictedWorld | null = null,
  ) {}

  created(ghost: Ghost): void {
    const interpolator = this.wiring.interpolators.get(ghost.type)!;
    this.shown.set(ghost.id, {
      id: ghost.id,
      type: this.wiring.typeNames.get(ghost.type)!,
      state: ghost.value,
      predicted: false,
      sampler: new GhostSampler(interpolator),
    });
  }

  destroyed(ghost: Ghost): void {
    this.shown.delete(ghost.id);
    this.predictedWorld?.forget(ghost.id);
  }

  /** The server said which entity is this player's (-1: none): it is predicted from now on. */
  own(id: number): void {
    this.ownId = id;
    this.latency.follow(id >= 0 && id < this.mirror.capacity ? id : -1);
  }

  /** A new connection: the mirror starts over, and so does ownership. */
  reset(): void {
    this.own(-1);
  }

  /** Own entity: the prediction, else the newest state received; null when there is none. */
  get me(): ShownEntity | null {
    const id = this.ownId;
    const ghost = id < 0 ? null : this.mirror.ghost(id);
    if (ghost === null || ghost.type !== this.wiring.playerType) return null;
    const mine = this.mine as { id: number; type: string; state: unknown };
    mine.id = id;
    mine.type = this.wiring.typeNames.get(ghost.type)!;
    mine.state = withParts(this.latency.shown() ?? ghost.value, ghost);
    return this.mine;
  }

  /** Samples every other ghost at the render tick (before one is known: its newest state). */
  refresh(): void {
    const others = this.others;
    others.length = 0;
    const renderTick = this.latency.renderTick;
    const receivedTick = this.latency.newestServerTick;
    const world = this.predictedWorld;
    const alpha = this.latency.clock.alpha;
    if (world !== null) this.predictNear(world);
    for (const entry of this.shown.values()) {
      if (entry.id === this.ownId) continue;
      const ghost = this.mirror.ghost(entry.id);
      if (ghost === null) continue;
      const history = this.mirror.history(entry.id);
      const sampled =
        Number.isNaN(renderTick) || history === null
          ? null
          : entry.sampler.sample(history, renderTick, receivedTick);
      entry.state = withParts(sampled ?? ghost.value, ghost);
      if (world !== null) {
        entry.predicted = world.predicts(entry.id);
        const shown = world.shown(entry.id, entry.state, alpha);
        if (shown === null) continue; // predicted gone: the server's destroy follows
        entry.state = withParts(shown, ghost);
      }
      others.push(entry);
    }
    if (world !== null) this.showLocals(world, alpha);
  }

  /** The player's spawns the server has not answered yet, shown as predicted. */
  private showLocals(world: PredictedWorld, alpha: number): void {
    for (const id of this.locals.keys()) if (!world.predicts(id)) this.locals.delete(id);
    for (const [id, type] of world.locals()) {
      let entry = this.locals.get(id);
      if (entry === undefined) {
        entry = { id, type: this.wiring.typeNames.get(type)!, state: null, predicted: true };
        this.locals.set(id, entry);
      }
      const state = world.shown(id, null, alpha);
      if (state === null) continue;
      entry.state = state;
      this.others.push(entry);
    }
  }

  /** Ghosts of types predicted near the player start or stop being predicted by their distance. */
  private predictNear(world: PredictedWorld): void {
    const me = this.ownId < 0 ? null : this.me;
    const position = me === null ? undefined : this.wiring.playerType.position;
    const center = me === null || position === undefined ? null : position(me.state);
    world.updateNear(this.shown.keys(), center);
  }
}

/**
 * A shown state with the ghost's private fields as this client holds them (the received value:
 * histories, prediction and interpolation carry the public fields only). A field not held is
 * absent, as in the mirror's value (no key, never a key holding undefined): one behaviour on
 * every client path.
 */
function withParts(state: unknown, ghost: Ghost): unknown {
  const parts = ghost.type.parts;
  if (parts === undefined || parts.length === 0 || state === ghost.value) return state;
  const shown = state as Record<string, unknown>;
  const received = ghost.value as Record<string, unknown>;
  for (const part of parts) {
    const field = part.field;
    if (field in received) shown[field] = received[field];
    else if (field in shown) delete shown[field];
  }
  return state;
}
