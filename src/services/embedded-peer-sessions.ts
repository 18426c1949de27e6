/**
 * The peer sessions of the embedded directory: each a list of slots, held by a user id or free
 * (null), lapsing ttlMs after it was created or a slot was last taken (emptyTtlMs after its last
 * holder left), with a generation counting the slots handed out. Each user's created sessions are
 * indexed until they end, so that a cap on them costs a look at at most that many; a session counts
 * against its creator while it lives, held by the creator or not — else leaving sessions to
 * another account would keep them alive past the cap. One process, one thread: every call is
 * atomic as it stands.
 */
import type { PeerSessionCreated, PeerSlotResult } from './directory.js';
import {
  checkMaxPerUser,
  checkPeerSession,
  checkTtl,
  DEFAULT_EMPTY_PEER_SESSION_TTL_MS,
} from './directory-checks.js';

interface PeerSessionRecord {
  players: (string | null)[];
  creator: string;
  expiresAt: number;
  generation: number;
}

export class EmbeddedPeerSessions {
  private readonly sessions = new Map<string, PeerSessionRecord>();
  /** The ids of the capped sessions each user created (pruned of those that ended). */
  private readonly created = new Map<string, Set<string>>();

  constructor(private readonly now: () => number) {}

  create(
    sessionId: string,
    maxPeers: number,
    userId: string,
    ttlMs: number,
    maxPerUser = Number.POSITIVE_INFINITY,
  ): PeerSessionCreated {
    checkPeerSession(sessionId, userId, maxPeers);
    checkTtl(ttlMs);
    checkMaxPerUser(maxPerUser);
    if (this.live(sessionId) !== undefined) return 'taken';
    // Only sessions made under a cap are indexed: uncapped callers would grow the index unbounded.
    const mine = Number.isFinite(maxPerUser) ? this.createdBy(userId) : null;
    if (mine !== null && mine.size >= maxPerUser) return 'limit';
    const players: (string | null)[] = new Array(maxPeers).fill(null);
    players[0] = userId;
    this.sessions.set(sessionId, { players, creator: userId, expiresAt: this.now() + ttlMs, generation: 1 });
    if (mine !== null) this.created.set(userId, mine.add(sessionId));
    return 'created';
  }

  take(sessionId: string, userId: string, ttlMs: number): PeerSlotResult {
    checkPeerSession(sessionId, userId);
    checkTtl(ttlMs);
    const session = this.live(sessionId);
    if (session === undefined) return { ok: false, reason: 'no such session' };
    let slot = session.players.indexOf(userId);
    if (slot < 0) slot = session.players.indexOf(null);
    if (slot < 0) return { ok: false, reason: 'full' };
    session.players[slot] = userId;
    session.expiresAt = this.now() + ttlMs;
    session.generation++;
    return { ok: true, slot, generation: session.generation, players: [...session.players] };
  }

  leave(sessionId: string, userId: string, emptyTtlMs = DEFAULT_EMPTY_PEER_SESSION_TTL_MS): boolean {
    checkPeerSession(sessionId, userId);
    checkTtl(emptyTtlMs);
    const session = this.live(sessionId);
    const slot = session === undefined ? -1 : session.players.indexOf(userId);
    if (session === undefined || slot < 0) return false;
    session.players[slot] = null;
    if (session.players.every((p) => p === null))
      session.expiresAt = Math.min(session.expiresAt, this.now() + emptyTtlMs);
    return true;
  }

  /** Drops the lapsed sessions (the directory's sweep). */
  sweep(): void {
    const now = this.now();
    for (const [id, session] of this.sessions) if (session.expiresAt <= now) this.sessions.delete(id);
    for (const userId of this.created.keys())
      if (this.createdBy(userId).size === 0) this.created.delete(userId);
  }

  /** The live sessions `userId` created (an id since reused by another is no longer its). */
  private createdBy(userId: string): Set<string> {
    const mine = this.created.get(userId) ?? new Set<string>();
    for (const id of mine) if (this.live(id)?.creator !== userId) mine.delete(id);
    return mine;
  }

  private live(sessionId: string) {
    const session = this.sessions.get(sessionId);
    if (session === undefined || session.expiresAt > this.now()) return session;
    this.sessions.delete(sessionId);
    return undefined;
  }
}
