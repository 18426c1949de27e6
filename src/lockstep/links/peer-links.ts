/**
 * What lockstep and rollback sessions send through: datagrams between the peers of one session,
 * addressed by peer index (0..maxPeers-1), not by network address. How they travel (direct,
 * hole-punched, relayed) and how they are protected (per-pair keys) is the links' business; a
 * session only sees which peers are reachable and the bytes they sent it.
 *
 * Like DatagramTransport, receiving is polled so a game loop handles a bounded amount per update.
 */
export interface PeerLinks {
  /** This peer's index in the session. */
  readonly self: number;
  /** The number of peer slots in the session (indices 0..maxPeers-1). */
  readonly maxPeers: number;
  /** The largest payload `send` accepts, bytes. */
  readonly maxPayloadBytes: number;
  /**
   * Sends one datagram to a peer, best effort; the caller may reuse `data` when this returns.
   * Throws on misuse (self, an index out of range, a payload over maxPayloadBytes, closed links);
   * a peer not reachable now is counted, not thrown.
   */
  send(peer: number, data: Uint8Array): void;
  /**
   * Delivers queued datagrams from reachable peers to `handler` (data valid only during the call),
   * returns how many. Datagrams the links refused (unauthenticated, replayed, malformed) never
   * reach it.
   */
  receive(handler: (peer: number, data: Uint8Array) => void): number;
  /**
   * Takes the next change in reachability since the last call, or null: a peer became reachable
   * ('connected'), said goodbye ('left') or went silent past the timeout ('timedOut').
   */
  pollEvent(): PeerLinkEvent | null;
  /** Peers reachable now, ascending. */
  connectedPeers(): readonly number[];
  /** Advances keep-alives, timeouts and time-driven parts to `now` (seconds, never backwards). */
  update(now: number): void;
  /** Says goodbye to every peer and releases the links; idempotent. */
  close(): void;
}

/**
 * Goodbyes links send each peer on close, as netcode sends its disconnect packets several times:
 * one lost copy must not turn a goodbye into a timeout.
 */
export const GOODBYE_COPIES = 5;

export type PeerLinkEventKind = 'connected' | 'left' | 'timedOut';

export interface PeerLinkEvent {
  readonly kind: PeerLinkEventKind;
  readonly peer: number;
}
