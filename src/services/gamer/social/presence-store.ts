/**
 * Where presence lives: in this process (MemoryPresenceStore) or in Redis (RedisPresenceStore, a
 * hash per player that expires unless its backends refresh it, so a crashed backend's players go
 * offline). Both compute the shown state the same way, atomically per player:
 *
 *   in-match (a server said so, until it clears or matchTtlMs passes)
 *   else the player's chosen state (online or away) while any backend holds a stream of theirs
 *   else offline
 *
 * Each change of the shown state (or room) takes the next sequence number: max(previous + 1, now
 * in ms), so it grows even after the record expired and came back.
 */

export type PresenceState = 'online' | 'away' | 'in-match' | 'offline';

/** What a player's friends see. `at` is unix ms of the change; `seq` orders one player's changes. */
export interface PresenceView {
  state: PresenceState;
  roomId: string | null;
  seq: number;
  at: number;
}

export type PresenceOp =
  /** This backend holds a stream of the player's, until `untilMs` unless refreshed. */
  | { kind: 'connect'; untilMs: number }
  /** This backend holds none any more. */
  | { kind: 'disconnect' }
  | { kind: 'choose'; state: 'online' | 'away' }
  /** In a match until `untilMs`, or out of it (roomId null). */
  | { kind: 'match'; roomId: string | null; untilMs: number };

export interface PresenceStore {
  /** Applies `op` for `accountId`: the shown view afterwards, and whether it changed. */
  apply(accountId: string, op: PresenceOp, nowMs: number): Promise<{ view: PresenceView; changed: boolean }>;
  /** The shown views of `accountIds` (offline for the unknown), in one round trip. */
  read(accountIds: readonly string[], nowMs: number): Promise<PresenceView[]>;
  close(): Promise<void>;
}

export const OFFLINE: PresenceView = Object.freeze({ state: 'offline', roomId: null, seq: 0, at: 0 });
