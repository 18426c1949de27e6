import { ReplayProtection } from '../connection/replay-protection.js';
import type { PeerTokenPrivate } from '../lockstep/peer-token.js';
import type { Notice } from '../lockstep/rendezvous-wire.js';
import type { Address } from '../transport/address.js';

/** Notices a registration holds unacknowledged at most: a welcome, and an introduction and a departure per other peer. */
export const MAX_PENDING_NOTICES = 1 + 2 * 64;

type NoticeBody = Notice extends infer N ? (N extends Notice ? Omit<N, 'number'> : never) : never;

/**
 * One peer registered with the rendezvous: where it is, its keys (from its token), the notices it
 * has not acknowledged yet, replay protection for its datagrams, and its relay budget.
 */
export class Registration {
  /** The reflexive address first, then the local ones it reported (duplicates dropped). */
  readonly candidates: Address[];
  readonly replay = new ReplayProtection();
  sendSequence = 0;
  lastHeard: number;
  /** Notices numbered from 1; those up to `acked` are known taken. */
  private issued = 0;
  private acked = 0;
  readonly pending: Notice[] = [];
  /** Relay token bucket: packets it may still send now, refilled at the relay rate. */
  relayTokens: number;
  relayRefilledAt: number;

  constructor(
    readonly key: PeerTokenPrivate,
    readonly sessionKey: string,
    readonly address: Address,
    readonly tokenId: string,
    local: readonly Address[],
    now: number,
    relayBurst: number,
  ) {
    this.candidates = [address, ...local.filter((a, i) => a !== address && local.indexOf(a) === i)];
    this.lastHeard = now;
    this.relayTokens = relayBurst;
    this.relayRefilledAt = now;
  }

  get peer(): number {
    return this.key.peer;
  }

  /** Queues a notice under the next number; false when too many are unacknowledged (the peer is not listening). */
  queue(body: NoticeBody): boolean {
    if (this.pending.length >= MAX_PENDING_NOTICES) return false;
    this.pending.push({ ...body, number: ++this.issued } as Notice);
    return true;
  }

  /** The peer took every notice up to `number`. Numbers beyond what was issued are ignored. */
  acknowledge(number: number): void {
    if (number <= this.acked || number > this.issued) return;
    this.acked = number;
    while (this.pending.length > 0 && this.pending[0].number <= number) this.pending.shift();
  }

  /** Takes a relay token at `now` (seconds) from a bucket of `burst` refilled at `perSecond`. */
  takeRelayToken(now: number, burst: number, perSecond: number): boolean {
    this.relayTokens = Math.min(burst, this.relayTokens + (now - this.relayRefilledAt) * perSecond);
    this.relayRefilledAt = now;
    if (this.relayTokens < 1) return false;
    this.relayTokens -= 1;
    return true;
  }
}
