/**
 * Friends, presence and the event stream, built on the gamer services' shared context:
 * `gamer.friends` and `gamer.presence` for room code, and the routes for players.
 */
import type { Hono, MiddlewareHandler } from 'hono';
import type { BackendEnv } from '../../backend-routes.js';
import { randomId } from '../../seat-token.js';
import type { GamerContext } from '../gamer-context.js';
import { EventStreams } from './event-streams.js';
import { type FriendRow, Friends } from './friends.js';
import { MemoryPresenceStore } from './memory-presence-store.js';
import { PlayerRate } from './player-rate.js';
import { Presence, type PresenceSetting } from './presence.js';
import type { PresenceView } from './presence-store.js';
import { RedisPresenceStore } from './redis-presence-store.js';
import { type SocialLimits, socialLimits } from './social-limits.js';
import { addSocialRoutes } from './social-routes.js';

/** Room code's view of friends (`gamer.friends`). */
export interface GamerFriends {
  /** Every friend of `accountId` (at most the friend cap), with display names. */
  list(accountId: string): Promise<FriendRow[]>;
  areFriends(a: string, b: string): Promise<boolean>;
}

/** Room code's presence (`gamer.presence`): a match's players are in-match until cleared. */
export interface GamerPresence {
  set(accountId: string, setting: PresenceSetting): Promise<PresenceView>;
  clear(accountId: string): Promise<PresenceView>;
  get(accountId: string): Promise<PresenceView>;
}

export interface Social {
  readonly friends: GamerFriends;
  readonly presence: GamerPresence;
  install(app: Hono<BackendEnv>, session: MiddlewareHandler<BackendEnv>): void;
  close(): Promise<void>;
}

export function openSocial(context: GamerContext, options: Partial<SocialLimits> = {}): Social {
  const limits = socialLimits(options);
  const store =
    context.redis === null
      ? new MemoryPresenceStore()
      : new RedisPresenceStore(context.redis, randomId(), limits.presenceTtlMs);
  const friends = new Friends(context, limits);
  const presence = new Presence(context, store, friends, limits);
  const streams = new EventStreams(context, presence, limits);
  const rate = new PlayerRate(limits.requestBurst, limits.requestsPerMinute);
  const presenceRate = new PlayerRate(limits.presenceBurst, limits.presencePerMinute);
  return {
    friends,
    presence,
    install(app, session) {
      addSocialRoutes(app, session, { context, friends, presence, streams, rate, presenceRate, limits });
    },
    async close() {
      await streams.close();
      await presence.close();
      await store.close();
    },
  };
}
