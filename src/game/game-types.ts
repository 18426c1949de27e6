/**
 * A declared game's own types, named from its definition, for code that passes them around:
 * `GameClient<typeof coins>`, `StateOf<typeof coins, 'coin'>`, `InputOf<typeof coins>`.
 */
import type { PrivateOptional } from './client-state.js';
import type { GameDefinition } from './define-game.js';

/** The state of entity type `K` of game `G` (default: the players' own type): `StateOf<typeof tag, 'avatar'>`. */
export type StateOf<G extends GameDefinition, K extends keyof G['entityTypes'] = G['player']> =
  G extends GameDefinition<infer E, infer _P, infer _I, infer _V, infer _M> ? E[K & keyof E] : never;

/**
 * The state of entity type `K` of game `G` as a client holds it: `StateOf` with each private
 * field (its `visibility`) optional, absent where this client does not hold it. Without
 * `visibility` it is `StateOf` exactly. What `client.me`, `client.entities` and replays show;
 * several types (`keyof G['entityTypes']`): the union of theirs.
 */
export type ClientStateOf<
  G extends GameDefinition,
  K extends keyof G['entityTypes'] = G['player'],
> = K extends unknown
  ? PrivateOptional<StateOf<G, K>, G['privateFields'][K & keyof G['privateFields']][number]>
  : never;

/** One tick's input of game `G`: `InputOf<typeof tag>`. */
export type InputOf<G extends GameDefinition> =
  G extends GameDefinition<infer _E, infer _P, infer I, infer _V, infer _M> ? I : never;

/** The value of event `K` of game `G` (what `client.on(K, handler)` hands the handler). */
export type EventOf<G extends GameDefinition, K extends keyof G['eventTypes']> =
  G extends GameDefinition<infer _E, infer _P, infer _I, infer V, infer _M> ? V[K & keyof V] : never;

/** The value of message `K` of game `G` (what `client.send(K, value)` takes). */
export type MessageOf<G extends GameDefinition, K extends keyof G['messageTypes']> =
  G extends GameDefinition<infer _E, infer _P, infer _I, infer _V, infer M> ? M[K & keyof M] : never;
