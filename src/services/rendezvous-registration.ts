import { ReplayProtection } from '../connection/replay-protection.js';
import type { PeerTokenPrivate } from '../lockstep/links/peer-token.js';
import { MAX_LOCAL_CANDIDATES, type Notice, usableCandidates } from '../lockstep/links/rendezvous-wire.js';
import { type Address, parseAddress } from '../transport/address.js';
import { isNonGlobalAddress } from '../transport/address-scope.js';

/** Notices a registration holds unacknowledged at most: a welcome, and an introduction and a departure per other peer. */
export const MAX_PENDING_NOTICES = 1 + 2 * 64;

type NoticeBody = Notice extends infer N ? (N extends Notice ? Omit<N, 'number'> : never) : never;

/**
 * One peer registered with the rendezvous: where it is, its keys (from its token), the notices it
 * has not acknowledged yet, replay protection for its datagrams, and its relay budget.
 */
export class Registration {
  /**
   * The reflexive address first (proven before anyone is told it), then the local ones it
   * reported that can be reached (duplicates dropped). Only non-global local ones are kept: a
   * token holder cannot make its session's peers punch a host on the internet that never asked.
   */
  readonly candidates: Address[];
  readonly replay = new ReplayProtection();
  lastHeard: number;
  /** When its unacknowledged notices were last sent (they are resent on a timer, not per datagram). */
  lastFlush: number;
  /** Unix second its token expires. */
  tokenExpires = 0;
  /** True once it echoed the welcome's cookie: it receives at its address. */
  proven = false;
  /** Until proven, the bytes it sent from its address that were not yet answered. */
  credit = 0;
  /** Relay frames from its address that failed the size, replay or MAC check. */
  relayFailures = 0;
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
    /** The next sequence it is sent under its rendezvous-to-peer key (starts at random). */
    public sendSequence: number,
    /** The welcome's cookie. */
    readonly cookie: Uint8Array,
  ) {
    const family = parseAddress(address)?.family ?? null;
    const reported = local.filter((a) => a !== address && isNonGlobalAddress(a));
    this.candidates = [address, ...usableCandidates(reported, family, MAX_LOCAL_CANDIDATES)];
    this.lastHeard = now;
    this.lastFlush = now;
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
