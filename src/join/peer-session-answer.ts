/**
 * What the HTTP backend answers a player matched into a peer-to-peer session, as it travels
 * (JSON): shared by the backend that writes it (services/) and the browser-safe client that reads
 * it (backend-client.ts). The token goes to SecurePeerLinks as it is.
 */
export interface PeerSessionAnswer {
  /** The session's id, decimal: a uint64, which a JSON number cannot hold. */
  sessionId: string;
  /** This player's slot, 0..peers-1 (its index in PeerLinks); slot 0 is the session's host. */
  peer: number;
  /** Slots in the session. */
  peers: number;
  /** The players by slot (user ids as the backend's verifier named them); null: a free slot. */
  players: (string | null)[];
  /** The rendezvous (and relay) the token registers with, host:port; the token names it too. */
  rendezvousAddress: string;
  /** The peer token (PEER_TOKEN_BYTES), base64. */
  peerToken: string;
  /** When the token can no longer register with the rendezvous, unix ms. */
  expiresAt: number;
}
