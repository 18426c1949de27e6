/**
 * The peer sessions of the embedded directory: each a list of slots, held by a user id or free
 * (null), lapsing ttlMs after it was created or a slot was last taken. One process, one thread:
 * every call is atomic as it stands.
 */
import type { PeerSlotResult } from './directory.js';
import { checkPeerSession, checkTtl } from './directory-checks.js';

export class EmbeddedPeerSessions {
  private readonly sessions = new Map<string, { players: (string | null)[]; expiresAt: number }>();

  constructor(private readonly now: () => number) {}

  create(sessionId: string, maxPeers: number, userId: string, ttlMs: number): boolean {
    checkPeerSession(sessionId, userId, maxPeers);
    checkTtl(ttlMs);
    if (this.live(sessionId) !== undefined) return false;
    const players: (string | null)[] = new Array(maxPeers).fill(null);
    players[0] = userId;
    this.sessions.set(sessionId, { players, expiresAt: this.now() + ttlMs });
    return true;
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
    return { ok: true, slot, players: [...session.players] };
  }

  leave(sessionId: string, userId: string): boolean {
    checkPeerSession(sessionId, userId);
    const session = this.live(sessionId);
    const slot = session === undefined ? -1 : session.players.indexOf(userId);
    if (session === undefined || slot < 0) return false;
    session.players[slot] = null;
    return true;
  }

  /** Drops the lapsed sessions (the directory's sweep). */
  sweep(): void {
    const now = this.now();
    for (const [id, session] of this.sessions) if (session.expiresAt <= now) this.sessions.delete(id);
  }

  private live(sessionId: string) {
    const session = this.sessions.get(sessionId);
    if (session === undefined || session.expiresAt > this.now()) return session;
    this.sessions.delete(sessionId);
    return undefined;
  }
}
