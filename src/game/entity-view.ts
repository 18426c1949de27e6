/**
 * What a GameClient shows: its own entity as predicted, and every other ghost interpolated at the
 * render tick (a GhostSampler per ghost, with the interpolator of its type). The objects are kept
 * per ghost and refreshed in place each frame, so drawing allocates nothing.
 */
import { GhostSampler } from '../latency/ghost-sampler.js';
import type { LatencyClient } from '../latency/latency-client.js';
import type { ClientMirror, Ghost } from '../replication/client-mirror.js';
import type { GameWiring } from './define-game.js';

/** An entity as the client shows it. `state` is refreshed in place by each update: copy what you keep. */
export interface ShownEntity<K extends string = string, S = unknown> {
  readonly id: number;
  readonly type: K;
  readonly state: S;
}

interface Shown {
  id: number;
  type: string;
  state: unknown;
  sampler: GhostSampler<unknown>;
}

export class EntityView {
  /** The others, rebuilt by `refresh`. */
  readonly others: ShownEntity[] = [];
  private readonly shown = new Map<number, Shown>();
  private ownId = -1;
  private readonly mine: { id: number; type: string; state: unknown } = { id: -1, type: '', state: null };

  constructor(
    private readonly wiring: GameWiring,
    private readonly mirror: ClientMirror,
    // biome-ignore lint/suspicious/noExplicitAny: the latency client of any game
    private readonly latency: LatencyClient<any, any>,
  ) {}

  created(ghost: Ghost): void {
    const interpolator = this.wiring.interpolators.get(ghost.type)!;
    this.shown.set(ghost.id, {
      id: ghost.id,
      type: this.wiring.typeNames.get(ghost.type)!,
      state: ghost.value,
      sampler: new GhostSampler(interpolator),
    });
  }

  destroyed(ghost: Ghost): void {
    this.shown.delete(ghost.id);
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
    this.mine.id = id;
    this.mine.type = this.wiring.typeNames.get(ghost.type)!;
    this.mine.state = withParts(this.latency.shown() ?? ghost.value, ghost);
    return this.mine;
  }

  /** Samples every other ghost at the render tick (before one is known: its newest state). */
  refresh(): void {
    const others = this.others;
    others.length = 0;
    const renderTick = this.latency.renderTick;
    const receivedTick = this.latency.newestServerTick;
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
      others.push(entry);
    }
  }
}

/**
 * A shown state with the ghost's private fields as this client holds them (the received value:
 * histories, prediction and interpolation carry the public fields only); undefined when not held.
 */
function withParts(state: unknown, ghost: Ghost): unknown {
  const parts = ghost.type.parts;
  if (parts === undefined || parts.length === 0 || state === ghost.value) return state;
  const shown = state as Record<string, unknown>;
  const received = ghost.value as Record<string, unknown>;
  for (const part of parts) shown[part.field] = received[part.field];
  return state;
}
