/** What every gamer module is built on: the database, Redis when configured, the event bus, the clock. */
import type { Hono, MiddlewareHandler } from 'hono';
import type { Kysely } from 'kysely';
import type { BackendEnv } from '../backend-routes.js';
import type { GamerRedis } from './gamer-redis.js';
import type { GamerTables } from './gamer-tables.js';
import type { PlayerEvents } from './player-events.js';

export interface GamerContext {
  readonly db: Kysely<GamerTables>;
  /** Redis when the services were given one (leaderboard ranks, presence, events across backends). */
  readonly redis: GamerRedis | null;
  readonly events: PlayerEvents;
  /** Unix milliseconds. */
  readonly nowMs: () => number;
}

/** What a module's routes are mounted with: the backend's app and its session check (401 without). */
export interface GamerRouteContext {
  readonly app: Hono<BackendEnv>;
  readonly session: MiddlewareHandler<BackendEnv>;
}
