/**
 * Presence: what a player's friends see of them (online, away, in a match, offline), and its push
 * to those friends. A change is pushed as one batch to at most the friend cap (one query for the
 * friends, one publish round trip), in order: one player's pushes run one after another, each
 * with a larger seq. A player whose presence flaps is pushed at most once per presenceIntervalMs:
 * the changes in between are coalesced into the latest.
 */
import type { GamerContext } from '../gamer-context.js';
import type { Friends } from './friends.js';
import type { PresenceState, PresenceStore, PresenceView } from './presence-store.js';
import type { SocialLimits } from './social-limits.js';

/** What a server may set: a match (with its room), or the player's chosen state. */
export type PresenceSetting = { state: 'in-match'; roomId: string } | { state: 'online' | 'away' };

interface Pushing {
  pending: PresenceView | null;
  cooling: ReturnType<typeof setTimeout> | null;
  chain: Promise<void>;
}

const ROOM_ID = /^[A-Za-z0-9_.:-]{1,64}$/;

export class Presence {
  private readonly pushing = new Map<string, Pushing>();
  private closed = false;

  constructor(
    private readonly context: GamerContext,
    private readonly store: PresenceStore,
    private readonly friends: Friends,
    private readonly limits: SocialLimits,
    /** Told of every push failure (the bus or database down): the change itself is kept. */
    private readonly onError: (error: unknown) => void = () => {},
  ) {}

  /** Sets `accountId`'s presence from a server: in a match (room code), or online / away. */
  async set(accountId: string, setting: PresenceSetting): Promise<PresenceView> {
    checkId(accountId);
    if (setting === null || typeof setting !== 'object') throw new TypeError('presence.set: give { state }');
    const now = this.context.nowMs();
    if (setting.state === 'in-match') {
      if (typeof setting.roomId !== 'string' || !ROOM_ID.test(setting.roomId))
        throw new TypeError('presence.set: in-match needs a roomId of 1..64 [A-Za-z0-9_.:-]');
      return this.apply(accountId, {
        kind: 'match',
        roomId: setting.roomId,
        untilMs: now + this.limits.matchTtlMs,
      });
    }
    if (setting.state !== 'online' && setting.state !== 'away')
      throw new TypeError(
        `presence.set: state must be 'in-match', 'online' or 'away', got ${String((setting as { state?: unknown }).state)}`,
      );
    return this.apply(accountId, { kind: 'choose', state: setting.state });
  }

  /** Ends `accountId`'s match presence (back to online or offline, as their streams say). */
  async clear(accountId: string): Promise<PresenceView> {
    checkId(accountId);
    return this.apply(accountId, { kind: 'match', roomId: null, untilMs: 0 });
  }

  /** What `accountId`'s friends see now. */
  async get(accountId: string): Promise<PresenceView> {
    checkId(accountId);
    const [view] = await this.store.read([accountId], this.context.nowMs());
    return view;
  }

  /** The views of many players, one round trip. */
  read(accountIds: readonly string[]): Promise<PresenceView[]> {
    return this.store.read(accountIds, this.context.nowMs());
  }

  /** The player's own choice, from POST /presence. */
  choose(accountId: string, state: 'online' | 'away'): Promise<PresenceView> {
    return this.apply(accountId, { kind: 'choose', state });
  }

  /** This backend holds a stream of theirs (or refreshes its lease). */
  connect(accountId: string): Promise<PresenceView> {
    return this.apply(accountId, {
      kind: 'connect',
      untilMs: this.context.nowMs() + this.limits.presenceTtlMs,
    });
  }

  /** This backend holds no stream of theirs any more. */
  disconnect(accountId: string): Promise<PresenceView> {
    return this.apply(accountId, { kind: 'disconnect' });
  }

  /** Resolves when every push begun so far is done (tests, benchmarks, close). */
  async settled(): Promise<void> {
    await Promise.all([...this.pushing.values()].map((p) => p.chain));
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const p of this.pushing.values()) if (p.cooling !== null) clearTimeout(p.cooling);
    await this.settled();
    this.pushing.clear();
  }

  private async apply(accountId: string, op: Parameters<PresenceStore['apply']>[1]): Promise<PresenceView> {
    const { view, changed } = await this.store.apply(accountId, op, this.context.nowMs());
    if (changed) this.push(accountId, view);
    return view;
  }

  private push(accountId: string, view: PresenceView): void {
    if (this.closed) return;
    const current = this.pushing.get(accountId);
    if (current !== undefined) {
      if (current.pending === null || view.seq > current.pending.seq) current.pending = view;
      return; // cooling down: the latest goes when it ends
    }
    const pushing: Pushing = { pending: view, cooling: null, chain: Promise.resolve() };
    this.pushing.set(accountId, pushing);
    this.flush(accountId, pushing);
  }

  /** Pushes the pending view, then cools down: what arrives meanwhile waits for the next flush. */
  private flush(accountId: string, pushing: Pushing): void {
    const view = pushing.pending as PresenceView;
    pushing.pending = null;
    pushing.chain = pushing.chain.then(() => this.fanOut(accountId, view));
    const next = () => {
      pushing.cooling = null;
      if (pushing.pending !== null && !this.closed) this.flush(accountId, pushing);
      else if (this.pushing.get(accountId) === pushing) this.pushing.delete(accountId);
    };
    if (this.limits.presenceIntervalMs === 0) {
      void pushing.chain.then(next);
      return;
    }
    pushing.cooling = setTimeout(next, this.limits.presenceIntervalMs);
    pushing.cooling.unref?.();
  }

  private async fanOut(accountId: string, view: PresenceView): Promise<void> {
    try {
      const friends = await this.friends.friendIds(accountId);
      if (friends.length === 0) return;
      await this.context.events.publishMany(friends, {
        kind: 'presence',
        accountId,
        state: view.state,
        roomId: view.roomId,
        seq: view.seq,
        at: view.at,
      });
    } catch (error) {
      this.onError(error);
    }
  }
}

export type { PresenceState, PresenceView };

function checkId(id: string): void {
  if (typeof id !== 'string' || !/^[A-Za-z0-9_-]{1,64}$/.test(id))
    throw new TypeError(
      `presence: an account id must be 1..64 of [A-Za-z0-9_-], got ${String(id).slice(0, 80)}`,
    );
}
