/**
 * What the gamer services push to a player in real time (an achievement unlocked, a friend's
 * presence, a friend request), and the bus that carries it to wherever that player's event
 * stream is open: in this process (MemoryPlayerEvents) or across backends (RedisPlayerEvents).
 */

/** An event pushed to one player. Each kind is a module's; `at` is unix ms. */
export type GamerEvent =
  | { kind: 'achievement'; id: string; at: number }
  | { kind: 'presence'; accountId: string; state: string; roomId: string | null; seq: number; at: number }
  | { kind: 'friend'; accountId: string; state: string; at: number };

export type Unsubscribe = () => void;

export interface PlayerEvents {
  /** Sends `event` to every open stream of `accountId` (none: dropped). Order per recipient kept. */
  publish(accountId: string, event: GamerEvent): Promise<void>;
  /** Sends `event` to each of `accountIds` as one batch (one round trip across backends). */
  publishMany(accountIds: readonly string[], event: GamerEvent): Promise<void>;
  /** Listens to `accountId`'s events until the returned function is called. */
  subscribe(accountId: string, listener: (event: GamerEvent) => void): Unsubscribe;
  close(): Promise<void>;
}
