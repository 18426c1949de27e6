import type { Address } from '../../transport/address.js';
import type { DatagramTransport } from '../../transport/transport.js';
import type { PeerPair } from './peer-pair.js';

export interface PunchOptions {
  /** Seconds between punch rounds to every candidate (default 0.1). */
  readonly punchInterval: number;
  /** Seconds after the introduction without a direct path before the pair goes through the relay (default 3). */
  readonly punchTimeout: number;
  /**
   * The time-to-live of the first `openerRounds` rounds where the transport can set it (UdpTransport),
   * 0 for none (default 2). See {@link punchTtl}.
   */
  readonly openerTtl: number;
  readonly openerRounds: number;
}

export const DEFAULT_OPENER_TTL = 2;
export const DEFAULT_OPENER_ROUNDS = 3;

/** A transport that can send a datagram with a chosen IP time-to-live. */
export interface TtlSender {
  sendWithTtl(to: Address, data: Uint8Array, ttl: number): void;
}

/** The transport as a TtlSender when it is one (UdpTransport is; in-memory and browser transports are not). */
export function ttlSender(transport: DatagramTransport): TtlSender | null {
  const candidate = transport as DatagramTransport & Partial<TtlSender>;
  return typeof candidate.sendWithTtl === 'function' ? (candidate as TtlSender) : null;
}

/**
 * The TTL for a pair's next punch round, or 0 for the usual one. A NAT that receives a datagram
 * for which it holds no entry keeps an unanswered entry for it (Linux conntrack does, for 30 s,
 * refreshed by every further punch); when its own peer then sends to that address, the reply
 * tuple clashes and the NAT maps it to another port the other side never learns. Where the
 * punches cannot cross in flight (little latency, or one peer a little late), the first datagram
 * of the pair reaching the other NAT would do that. So the first rounds go out with a TTL that
 * leaves this NAT (opening its mapping) but dies before the other's; by the time full rounds
 * arrive, both NATs hold entries that take them as replies.
 */
export function punchTtl(pair: PeerPair, options: PunchOptions): number {
  return pair.punchRounds < options.openerRounds ? options.openerTtl : 0;
}

export const DEFAULT_PUNCH_INTERVAL = 0.1;
export const DEFAULT_PUNCH_TIMEOUT = 3;

export type PunchStep = 'punch' | 'relay' | 'wait';

/**
 * What a pair does at `now` about its direct path. Both peers are introduced at about the same
 * moment and punch every candidate of the other at once, round after round: each round's
 * outgoing packets open this side's NAT mapping for the other's address, so the other's next
 * round gets in. A pair with a direct path, or relayed past the timeout, punches no more (a direct
 * packet arriving later still moves a relayed pair to the direct path).
 */
export function punchStep(pair: PeerPair, now: number, options: PunchOptions): PunchStep {
  if (pair.path === 'direct') return 'wait';
  // A pair the other side already moved to the relay keeps punching until its own timeout.
  if (now - pair.introducedAt >= options.punchTimeout) return pair.path === null ? 'relay' : 'wait';
  return now - pair.lastPunch >= options.punchInterval ? 'punch' : 'wait';
}
