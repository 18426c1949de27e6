/**
 * The server side of a game as its author sees it: the hooks (join, leave, input, tick), and the
 * `game`, players and entities they are handed. The same rules run in GameServer and as a room
 * type of the services layer.
 */
import type { GameDefinition } from './define-game.js';
import type { Shape } from './shapes.js';

/** A live entity on the server. `state` reads the replicated value; assigning it sends the change. */
export interface GameEntity<K extends string = string, S = unknown> {
  /** Its id: the same number clients see (`client.entities[i].id`, events that name it). */
  readonly id: number;
  readonly type: K;
  /** The state as clients will receive it (quantized); assign a whole new state to change it. */
  state: S;
  /** False once destroyed (its player left, or `destroy()`); reading or assigning `state` then throws. */
  readonly alive: boolean;
  /** The player whose own entity it is, or null. */
  readonly owner: GamePlayer | null;
  /**
   * The rules' own data for this entity (free for them to use; the server never reads it). In a
   * zoned world it moves with the entity from zone to zone, so keep it to what JSON can carry.
   */
  readonly data: Record<string, unknown>;
  /**
   * Its team (an integer in [0, 31]; null: none): players of that team see its `'team'` fields
   * (see `visibility`) from the next tick. A player's own entity takes the player's team.
   */
  team: number | null;
  destroy(): void;
}

/** Any entity of the game, narrowed by `type`: `if (e.type === 'avatar') e.state.x`. */
export type AnyGameEntity<E> = { [K in keyof E & string]: GameEntity<K, E[K]> }[keyof E & string];

/** A connected player. The object lives as long as the player is in the game (across a room reconnection). */
// biome-ignore lint/suspicious/noExplicitAny: any game's types by default (the rules and hooks of one game are typed by defineGame)
export interface GamePlayer<E = any, P extends keyof E = any, I = any> {
  /** A number for this player unique in this game while it plays (its connection's slot). */
  readonly index: number;
  /** Its own entity (predicted by its client), or null before `spawn` and after it is destroyed. */
  readonly entity: GameEntity<P & string, E[P]> | null;
  /** Its entity's state (null without one); assigning it sets the entity's state. */
  get state(): E[P] | null;
  set state(value: E[P]);
  /** The input taken this tick (null before its first one arrives). */
  readonly input: I | null;
  /** The game's own per-player data (free for the rules to use). */
  readonly data: Record<string, unknown>;
  /**
   * Who the player signed in as: the user id its seat was issued to (in rooms, the backend
   * session's; on a GameServer, what its `auth` answered as `{ userId }`), or null when the join
   * named none. The account id gamer services use (stats, leaderboards, presence).
   */
  readonly userId: string | null;
  /** Creates its own entity (destroying the one it had) and tells its client it is its own. */
  spawn(state: E[P]): GameEntity<P & string, E[P]>;
  /**
   * Its team (an integer in [0, 31]; null: none, the default). From the next tick it sees the
   * `'team'` fields (see `visibility`) of that team's entities and no longer those of its old
   * team; its own entity joins the team too.
   */
  team: number | null;
}

// biome-ignore lint/suspicious/noExplicitAny: any game's types by default (the rules and hooks of one game are typed by defineGame)
export interface EmitOptions<E = any, P extends keyof E = any, I = any> {
  /** Only this player (default every player). */
  to?: GamePlayer<E, P, I>;
  /** Resent until acked, exactly once, in order (default true); false: at most once, sooner dropped. */
  reliable?: boolean;
  /**
   * Only the players who see this private field of this entity (its `visibility` audience): an
   * event about a secret must not reach the others, or it leaks what the field hides.
   */
  part?: { entity: GameEntity; field: string };
}

/** The game as the hooks see it on the server. */
// biome-ignore lint/suspicious/noExplicitAny: any game's types by default (the rules and hooks of one game are typed by defineGame)
export interface ServerGame<E = any, P extends keyof E = any, I = any, V = any> {
  readonly definition: GameDefinition<E, P, I, V>;
  /** The players in the game now, in joining order. */
  readonly players: readonly GamePlayer<E, P, I>[];
  /** Every live entity. */
  readonly entities: readonly AnyGameEntity<E>[];
  /** The tick being simulated (ticks are 1 / tickRate seconds apart). */
  readonly tick: number;
  /** The rules' own state for this game (one per GameServer, one per room): free for them to use. */
  readonly data: Record<string, unknown>;
  /** Creates an entity that belongs to no player (a pickup, a projectile…). */
  spawn<K extends keyof E & string>(type: K, state: E[K]): GameEntity<K, E[K]>;
  /** Sends an event to every player, or one (`to`). */
  emit<K extends keyof V & string>(name: K, value: V[K], options?: EmitOptions<E, P, I>): void;
  /**
   * The entities of types with a hitbox that `shape` touched as `player` saw them when it sent this
   * tick's input (lag compensation: the others rewound to the render tick its client showed), its
   * own entity left out. Default shape: the player's own hitbox now.
   */
  hitTest(player: GamePlayer<E, P, I>, shape?: Shape): AnyGameEntity<E>[];
}

/** The hooks of a game's server side; each is optional. A throw is reported (onError) and the game goes on. */
// biome-ignore lint/suspicious/noExplicitAny: any game's types by default (the rules and hooks of one game are typed by defineGame)
export interface GameHooks<E = any, P extends keyof E = any, I = any, V = any, M = any> {
  /** A player connected: usually `player.spawn(...)`. */
  onJoin?(game: ServerGame<E, P, I, V>, player: GamePlayer<E, P, I>): void;
  /** A player left (its entity is destroyed right after this hook). */
  onLeave?(game: ServerGame<E, P, I, V>, player: GamePlayer<E, P, I>): void;
  /** A player's input was applied to its entity with `step` this tick (inputs that act on others: fire, tag). */
  onInput?(game: ServerGame<E, P, I, V>, player: GamePlayer<E, P, I>, input: I): void;
  /**
   * A message from a player (the game's `messages`), before the tick's inputs; at most
   * MAX_MESSAGES_PER_TICK a player a tick are taken, the rest wait.
   */
  onMessage?(game: ServerGame<E, P, I, V>, player: GamePlayer<E, P, I>, message: GameMessage<M>): void;
  /** Once per tick, after every player's input. */
  onTick?(game: ServerGame<E, P, I, V>): void;
  /** A check of each input as it arrives: true, or why it is refused (it is then replaced by the player's previous one). */
  validateInput?(input: I, player: GamePlayer<E, P, I>): true | string;
  /**
   * A veto on each spawn of a player's input (the game's `spawns`) before it is created: false
   * refuses it (its client removes its prediction). Default: every spawn is allowed.
   */
  allowSpawn?(
    game: ServerGame<E, P, I, V>,
    player: GamePlayer<E, P, I>,
    spawn: { type: keyof E & string; key: number; state: E[keyof E] },
  ): boolean;
}

/** A game's server side: its definition and hooks (what `game.rules(...)` returns). */
// biome-ignore lint/suspicious/noExplicitAny: any game's types by default (the rules and hooks of one game are typed by defineGame)
export interface GameRules<E = any, P extends keyof E = any, I = any, V = any, M = any> {
  readonly game: GameDefinition<E, P, I, V, M>;
  readonly hooks: GameHooks<E, P, I, V, M>;
}

/** A message from a player, narrowed by `name`: `if (message.name === 'chat') say(message.value.text)`. */
export type GameMessage<M> = { [K in keyof M & string]: { readonly name: K; readonly value: M[K] } }[keyof M &
  string];
