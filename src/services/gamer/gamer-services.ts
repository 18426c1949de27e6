/**
 * Gamer services: what a game keeps about its players beside its rooms — accounts, stats and
 * achievements, leaderboards, friends and presence, player storage — in PostgreSQL (a server, or
 * embedded in this process by default), with Redis for fast ranks and events across backends.
 *
 *   const gamer = await openGamerServices({ stats: { zaps: 'sum' }, leaderboards: { zaps: {} } });
 *   const backend = createBackend({ directory, privateKey, protocolId, gamer });
 *   await gamer.stats.update(accountId, { zaps: 1 });   // from game servers only
 */
import type { Hono, MiddlewareHandler } from 'hono';
import type { BackendEnv } from '../backend-routes.js';
import { addAccountRoutes } from './accounts/account-routes.js';
import { type AccountSignIn, accountSignIn } from './accounts/account-sign-in.js';
import { AccountStore, type GamerAccounts } from './accounts/account-store.js';
import { banCheckedSession } from './accounts/ban-check.js';
import { checkIdentities, type IdentityVerifier } from './accounts/identity-verifiers.js';
import type { GamerContext } from './gamer-context.js';
import { type GamerDatabase, type GamerDatabaseOptions, openGamerDatabase } from './gamer-database.js';
import { type GamerRedisOptions, openGamerRedis } from './gamer-redis.js';
import { MemoryPlayerEvents } from './memory-player-events.js';
import { openGamerProgress } from './progress/gamer-progress.js';
import type { GamerLeaderboards } from './progress/leaderboards.js';
import type { GamerAchievements } from './progress/player-achievements.js';
import type { GamerStats } from './progress/player-stats.js';
import {
  type AchievementDefinition,
  type LeaderboardDefinition,
  progressDefinitions,
  type StatKind,
} from './progress/progress-definitions.js';
import { RedisPlayerEvents } from './social/redis-player-events.js';
import { type GamerFriends, type GamerPresence, openSocial } from './social/social.js';
import { type SocialLimits, socialLimits } from './social/social-limits.js';
import { type GamerStorage, PlayerStorage } from './storage/player-storage.js';
import { type StorageLimits, storageLimits } from './storage/storage-limits.js';
import { addStorageRoutes } from './storage/storage-routes.js';

export interface GamerServicesOptions {
  /** Where the data lives (default: PostgreSQL embedded in this process, in memory). */
  database?: GamerDatabaseOptions;
  /** Redis for leaderboard ranks, presence and events shared by several backends (default: none, in process). */
  redis?: GamerRedisOptions;
  /** The clock, unix milliseconds (default Date.now). */
  nowMs?: () => number;
  /**
   * Outside identities players sign in with (POST /auth { provider, token }): each checks a token
   * and answers the player's id with that provider, or null to refuse it.
   */
  identities?: Readonly<Record<string, IdentityVerifier>>;
  /** Player storage's limits over the defaults (16 KiB a value, 256 documents a player …). */
  storage?: Partial<StorageLimits>;
  /** The game's stats by name and how each folds updates: { zaps: 'sum', bestLapMs: 'min' }. */
  stats?: Readonly<Record<string, StatKind>>;
  /** Achievements by id: on a stat threshold ({ stat: 'zaps', atLeast: 100 }) or unlocked by a server ({}). */
  achievements?: Readonly<Record<string, AchievementDefinition>>;
  /** Leaderboards by name: fed by a stat or by servers' submit(), with their order and reset. */
  leaderboards?: Readonly<Record<string, LeaderboardDefinition>>;
  /** Friends, presence and event stream limits (docs/gamer-services.md, Limits). */
  social?: Partial<SocialLimits>;
}

export interface GamerServices {
  /** Which database holds the data. */
  readonly databaseKind: 'embedded' | 'postgres';
  /** Accounts: look up, find by display name, ban. */
  readonly accounts: GamerAccounts;
  /** Player storage: read and write any player's documents, 'server' ones too. */
  readonly storage: GamerStorage;
  /** Stats: update (game servers only) and read. */
  readonly stats: GamerStats;
  /** Achievements: unlock one explicitly, list a player's. */
  readonly achievements: GamerAchievements;
  /** Leaderboards: submit (game servers only), new seasons, queries. */
  readonly leaderboards: GamerLeaderboards;
  /** Friends, for room code: list(accountId), areFriends(a, b). */
  readonly friends: GamerFriends;
  /** Presence, for room code: set(accountId, { state: 'in-match', roomId }), clear, get. */
  readonly presence: GamerPresence;
  /** Closes the database and Redis connections (after the backend stopped using them). */
  close(): Promise<void>;
}

type RouteInstaller = (app: Hono<BackendEnv>, session: MiddlewareHandler<BackendEnv>) => void;

/** Each open services' routes, for the backend that mounts them (not a public method). */
const installers = new WeakMap<GamerServices, RouteInstaller>();

/** Each open services' sign-in, for a backend's POST /auth without a verify of its own. */
const signIns = new WeakMap<GamerServices, AccountSignIn>();

/** Each open services' ban check, wrapped around a backend's session check. */
const banChecks = new WeakMap<
  GamerServices,
  (session: MiddlewareHandler<BackendEnv>) => MiddlewareHandler<BackendEnv>
>();

/**
 * `session` with `gamer`'s ban check after it: the backend's room, matchmaking, spectate and peer
 * routes refuse a banned account as the gamer routes do.
 */
export function gamerBanCheck(
  gamer: GamerServices,
  session: MiddlewareHandler<BackendEnv>,
): MiddlewareHandler<BackendEnv> {
  const check = banChecks.get(gamer);
  if (check === undefined) throw new TypeError('createBackend: gamer must come from openGamerServices()');
  return check(session);
}

/** The sign-in through `gamer`'s accounts; throws for an object openGamerServices did not make. */
export function gamerSignIn(gamer: GamerServices): AccountSignIn {
  const signIn = signIns.get(gamer);
  if (signIn === undefined) throw new TypeError('createBackend: gamer must come from openGamerServices()');
  return signIn;
}

/** Mounts `gamer`'s routes on a backend's app; throws for an object openGamerServices did not make. */
export function mountGamerRoutes(
  gamer: GamerServices,
  app: Hono<BackendEnv>,
  session: MiddlewareHandler<BackendEnv>,
): void {
  const install = installers.get(gamer);
  if (install === undefined) throw new TypeError('createBackend: gamer must come from openGamerServices()');
  install(app, session);
}

export async function openGamerServices(options: GamerServicesOptions = {}): Promise<GamerServices> {
  if (options === null || typeof options !== 'object')
    throw new TypeError('openGamerServices: options must be an object');
  progressDefinitions(options); // a misdeclared stat throws before a database opens
  const database = await openGamerDatabase(options.database);
  try {
    return await openGamerServicesOn(database, options);
  } catch (error) {
    await database.close();
    throw error;
  }
}

/** The services on a database already open (tests share one database across many services). */
export async function openGamerServicesOn(
  database: GamerDatabase,
  options: GamerServicesOptions = {},
): Promise<GamerServices> {
  const nowMs = options.nowMs ?? Date.now;
  if (typeof nowMs !== 'function') throw new TypeError('openGamerServices: nowMs must be a function');
  const progressDefined = progressDefinitions(options);
  const identities = checkIdentities(options.identities);
  const limits = storageLimits(options.storage);
  socialLimits(options.social); // misuse throws before any connection opens
  const redis = options.redis === undefined ? null : await openGamerRedis(options.redis);
  const events = redis === null ? new MemoryPlayerEvents() : new RedisPlayerEvents(redis);
  const context: GamerContext = { db: database.db, redis, events, nowMs };
  const accounts = new AccountStore(context, identities);
  const storage = new PlayerStorage(context, limits);
  const progress = openGamerProgress(context, progressDefined);
  const social = openSocial(context, options.social);
  let closed: Promise<void> | null = null;
  const gamer: GamerServices = {
    databaseKind: database.kind,
    accounts,
    storage,
    stats: progress.playerStats,
    achievements: progress.achievements,
    leaderboards: progress.leaderboards,
    friends: social.friends,
    presence: social.presence,
    close() {
      closed ??= (async () => {
        await social.close();
        await events.close();
        await redis?.close();
        await database.close();
      })();
      return closed;
    },
  };
  signIns.set(gamer, accountSignIn(accounts));
  banChecks.set(gamer, (session) => banCheckedSession(session, accounts));
  // Every gamer route's session check refuses banned accounts too.
  installers.set(gamer, (app, signedIn) => {
    const session = banCheckedSession(signedIn, accounts);
    addAccountRoutes(app, session, accounts);
    addStorageRoutes(app, session, storage);
    progress.install(app, session);
    social.install(app, session);
  });
  return gamer;
}
