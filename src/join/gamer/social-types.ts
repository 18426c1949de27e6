/**
 * What the friends, presence and event routes answer, as the client sees it (the services'
 * types, restated here so the browser bundle imports nothing from the Node-only services).
 */

export type FriendState = 'friends' | 'sent' | 'received' | 'blocked';
/** A relation as the caller sees it after a change ('none': nothing between the two). */
export type RelationState = FriendState | 'none';
export type PresenceState = 'online' | 'away' | 'in-match' | 'offline';

/** What friends see of a player: `seq` grows with each change, `at` is unix ms. */
export interface PresenceView {
  state: PresenceState;
  roomId: string | null;
  seq: number;
  at: number;
}

export interface Friend {
  accountId: string;
  displayName: string | null;
  state: FriendState;
  /** Unix ms of the relation's last change. */
  sinceMs: number;
  /** Present for friends only. */
  presence?: PresenceView;
}

export interface FriendPage {
  items: Friend[];
  /** Pass it back for the next page; null on the last. */
  cursor: string | null;
}

/** An event pushed to this player (achievements, friends' presence, friend requests). */
export type GamerEvent =
  | { kind: 'achievement'; id: string; at: number }
  | {
      kind: 'presence';
      accountId: string;
      state: PresenceState;
      roomId: string | null;
      seq: number;
      at: number;
    }
  | { kind: 'friend'; accountId: string; state: RelationState; at: number };
