import { type MessageConnection, type MessageCounters, zeroMessageCounters } from './message-connection.js';

/**
 * Where the connection a stats() call describes stands: `disconnected` (no connection yet, or
 * an empty server slot: every figure zero), `connecting` (a client's handshake: zeros),
 * `connected` (live figures), `ended` (inside the disconnect callbacks of a connection that just
 * ended: its final figures).
 */
export type ConnectionState = 'disconnected' | 'connecting' | 'connected' | 'ended';

/** Statistics of one connection: the link (from its ReliableEndpoint) and its channels. */
export interface ConnectionStats {
  state: ConnectionState;
  /** Smoothed round trip, ms. */
  rttMs: number;
  packetLoss: number;
  sentKbps: number;
  receivedKbps: number;
  /**
   * Packets whose ack came back too late to be matched (after ackTimeout, or after the sent buffer
   * had reused their slot): what they carried was not freed by it. Rising: the round trip is beyond
   * what the packet-layer settings cover (docs/channels.md, "Long round trips").
   */
  lateAcks: number;
  messages: MessageCounters;
  queues: { send: number; receive: number }[];
}

/** The link figures stats() reads from a ReliableEndpoint. */
export interface LinkFigures {
  readonly rttMs: number;
  readonly packetLoss: number;
  readonly sentKbps: number;
  readonly receivedKbps: number;
  stats(): { readonly lateAcks: number };
}

/** The figures of a connection (live, or final once it ended: its objects are kept, not reset). */
export function connectionStats(
  state: 'connected' | 'ended',
  connection: MessageConnection,
  link: LinkFigures,
): ConnectionStats {
  return {
    state,
    rttMs: link.rttMs,
    packetLoss: link.packetLoss,
    sentKbps: link.sentKbps,
    receivedKbps: link.receivedKbps,
    lateAcks: link.stats().lateAcks,
    messages: { ...connection.stats() },
    queues: connection.queueDepths(),
  };
}

/** Zeros with the shape of a connection's figures, for when there is no connection. */
export function emptyStats(state: 'disconnected' | 'connecting', channels: number): ConnectionStats {
  return {
    state,
    rttMs: 0,
    packetLoss: 0,
    sentKbps: 0,
    receivedKbps: 0,
    lateAcks: 0,
    messages: zeroMessageCounters(),
    queues: Array.from({ length: channels }, () => ({ send: 0, receive: 0 })),
  };
}
