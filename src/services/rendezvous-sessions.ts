import { RefusalReason } from '../lockstep/links/rendezvous-wire.js';
import type { Registration } from './rendezvous-registration.js';

/** One session at the rendezvous: its registered peers by slot, and the newest generation each slot took. */
export interface RendezvousSession {
  readonly slots: (Registration | undefined)[];
  /** Per slot, the highest token generation registered: a token of an older one is refused. */
  readonly generations: number[];
  /** Unix second the last token registered in it expires: its generations are kept until then. */
  keepUntil: number;
}

/**
 * The sessions the rendezvous knows, by id. A session with nobody registered is kept until the
 * last token that registered in it expires, so that a token of an older generation (issued
 * earlier, so expiring no later) cannot take a slot back while nobody holds it: a previous
 * holder's spare token stays refused once the slot passed on. Such empty records are bounded:
 * beyond `maxEmpty` the oldest is forgotten (counted by the caller).
 */
export class RendezvousSessions {
  private readonly sessions = new Map<string, RendezvousSession>();
  /** Empty sessions, in the order they emptied. */
  private readonly empty = new Set<string>();

  constructor(readonly maxEmpty: number) {}

  get(key: string): RendezvousSession | undefined {
    return this.sessions.get(key);
  }

  /**
   * Why a token for `peer` of session `key` at `generation` cannot register: Full when the slot is
   * outside the session's size, TokenUsed when the slot registered a newer generation (it passed
   * on, or its holder was given a newer token); 0 when it can.
   */
  refusal(key: string, peer: number, generation: number): number {
    const session = this.sessions.get(key);
    if (session === undefined) return 0;
    if (peer >= session.slots.length) return RefusalReason.Full;
    return generation < session.generations[peer] ? RefusalReason.TokenUsed : 0;
  }

  /** The session `key` of `maxPeers` slots, made if new. */
  open(key: string, maxPeers: number): RendezvousSession {
    let session = this.sessions.get(key);
    if (session === undefined) {
      session = {
        slots: new Array(maxPeers).fill(undefined),
        generations: new Array(maxPeers).fill(0),
        keepUntil: 0,
      };
      this.sessions.set(key, session);
    }
    this.empty.delete(key);
    return session;
  }

  /** Notes that nobody is registered in `key` any more; true when an unexpired empty record was forgotten for room. */
  emptied(key: string, unix: number): boolean {
    this.empty.add(key);
    if (this.empty.size <= this.maxEmpty) return false;
    const oldest = this.empty.values().next().value as string;
    const live = (this.sessions.get(oldest)?.keepUntil ?? 0) >= unix;
    this.forget(oldest);
    return live;
  }

  /** Forgets the empty sessions whose tokens all expired before unix second `unix`. */
  purge(unix: number): void {
    for (const key of this.empty) if ((this.sessions.get(key)?.keepUntil ?? 0) < unix) this.forget(key);
  }

  private forget(key: string): void {
    this.empty.delete(key);
    this.sessions.delete(key);
  }
}
