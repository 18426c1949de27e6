/**
 * Peer-to-peer sessions as the backend sees them: the rendezvous it introduces peers through, the
 * id of a session formed by the matchmaker, and each member's peer token.
 *
 * A peer pool's match makes no room: the matchmaker claims its tickets with a pseudo room id
 * "p2p:<sessionId>" (room ids are base64url, so the ':' can never name a real room) and the slots
 * are the match's players in the order the claim recorded them, the first the host. Every backend
 * polled for the ticket reads the same record, so all agree on the session and the slots without
 * storing anything else; each poll mints a fresh token for the caller's slot.
 */
import { randomBytes } from 'node:crypto';
import type { PeerSessionAnswer } from '../join/peer-session-answer.js';
import { MAX_SESSION_PEERS } from '../lockstep/links/peer-token.js';
import { type Address, toAddress } from '../transport/address.js';
import { issuePeerToken } from './peer-token-issuer.js';

/** Where the backend sends peers, and the key it shares with that RendezvousServer. */
export interface RendezvousOptions {
  /** The rendezvous' UDP address as peers reach it: "203.0.113.7:40000". */
  address: string;
  /** The 32-byte key the RendezvousServer was given. */
  privateKey: Uint8Array;
  /** The protocol id the RendezvousServer was given (default: the backend's). */
  protocolId?: bigint;
  /** Seconds a peer token can still register (default 30). */
  tokenSeconds?: number;
  /** Seconds of silence after which the rendezvous and the peers drop a peer (default 10). */
  timeoutSeconds?: number;
  /** Seconds a session made with POST /peers stays joinable after its last join (default 3600). */
  sessionSeconds?: number;
  /** Seconds a session made with POST /peers stays joinable once nobody holds a slot (default 60). */
  emptySessionSeconds?: number;
  /**
   * Live sessions one user may have made with POST /peers (default 8): another is refused 429
   * until one of them ends. One counts until it lapses, held by its maker or only by others.
   */
  maxSessionsPerUser?: number;
}

const PREFIX = 'p2p:';

/** The pseudo room id a peer session's tickets are claimed with. */
export function peerSessionRoomId(sessionId: bigint): string {
  return `${PREFIX}${sessionId}`;
}

/** The session id of a claim's room id, or null when it names a real room. */
export function peerSessionIdOf(roomId: string): bigint | null {
  if (!roomId.startsWith(PREFIX)) return null;
  const digits = roomId.slice(PREFIX.length);
  if (!/^[0-9]{1,20}$/.test(digits)) return null;
  const id = BigInt(digits);
  return id < 1n << 64n ? id : null;
}

/** A random 64-bit session id: unguessable, so a session cannot be aimed at. */
export function newPeerSessionId(): bigint {
  return randomBytes(8).readBigUInt64LE(0);
}

/** Throws RangeError unless a peer pool's size fits a peer session. */
export function checkPeerPoolSize(pool: string, minPlayers: number, maxPlayers: number): void {
  if (minPlayers < 2 || maxPlayers > MAX_SESSION_PEERS)
    throw new RangeError(
      `peer pool "${pool}": a peer session has 2..${MAX_SESSION_PEERS} players, got minPlayers ${minPlayers}, maxPlayers ${maxPlayers}`,
    );
}

/** Mints the answer a matched player polls: its slot's token for the session's rendezvous. */
export class PeerTokenMinter {
  private readonly address: Address;
  private readonly privateKey: Uint8Array;
  private readonly protocolId: bigint;
  private readonly tokenSeconds: number;
  private readonly timeoutSeconds: number;
  /** How long a session made by POST /peers stays joinable after its last join, ms. */
  readonly sessionTtlMs: number;
  /** How long such a session stays joinable once nobody holds a slot, ms. */
  readonly emptySessionTtlMs: number;
  /** Such sessions one user may hold a slot in at once. */
  readonly maxSessionsPerUser: number;

  constructor(
    options: RendezvousOptions,
    backendProtocolId: bigint,
    private readonly now: () => number,
  ) {
    if (typeof options !== 'object' || options === null)
      throw new RangeError('rendezvous must be { address, privateKey }');
    this.address = toAddress(options.address);
    if (!(options.privateKey instanceof Uint8Array) || options.privateKey.length !== 32)
      throw new RangeError('rendezvous.privateKey must be a Uint8Array of 32 bytes');
    this.privateKey = options.privateKey;
    this.protocolId = options.protocolId ?? backendProtocolId;
    if (typeof this.protocolId !== 'bigint') throw new RangeError('rendezvous.protocolId must be a bigint');
    this.tokenSeconds = options.tokenSeconds ?? 30;
    this.timeoutSeconds = options.timeoutSeconds ?? 10;
    const sessionSeconds = options.sessionSeconds ?? 3600;
    if (!(sessionSeconds > 0) || !Number.isFinite(sessionSeconds))
      throw new RangeError(`rendezvous.sessionSeconds must be > 0, got ${sessionSeconds}`);
    this.sessionTtlMs = Math.ceil(sessionSeconds * 1000);
    const emptySeconds = options.emptySessionSeconds ?? 60;
    if (!(emptySeconds > 0) || !Number.isFinite(emptySeconds))
      throw new RangeError(`rendezvous.emptySessionSeconds must be > 0, got ${emptySeconds}`);
    this.emptySessionTtlMs = Math.ceil(emptySeconds * 1000);
    this.maxSessionsPerUser = options.maxSessionsPerUser ?? 8;
    if (!Number.isSafeInteger(this.maxSessionsPerUser) || this.maxSessionsPerUser < 1)
      throw new RangeError(
        `rendezvous.maxSessionsPerUser must be an integer >= 1, got ${this.maxSessionsPerUser}`,
      );
    if (!Number.isInteger(this.tokenSeconds) || this.tokenSeconds < 1)
      throw new RangeError(`rendezvous.tokenSeconds must be an integer >= 1, got ${this.tokenSeconds}`);
    if (!Number.isInteger(this.timeoutSeconds) || this.timeoutSeconds < 1 || this.timeoutSeconds > 3600)
      throw new RangeError(
        `rendezvous.timeoutSeconds must be an integer in [1, 3600], got ${this.timeoutSeconds}`,
      );
  }

  /**
   * The answer for `players[peer]`; players are the session's slots (null: free). `generation`
   * orders the slot's holdings (the directory's, for a session made with POST /peers; 0 for a
   * matched one, whose slots never change hands).
   */
  answer(
    sessionId: bigint,
    peer: number,
    players: readonly (string | null)[],
    generation = 0,
  ): PeerSessionAnswer {
    const now = Math.floor(this.now() / 1000);
    const token = issuePeerToken({
      protocolId: this.protocolId,
      privateKey: this.privateKey,
      sessionId,
      peer,
      maxPeers: players.length,
      rendezvousAddress: this.address,
      now,
      expireSeconds: this.tokenSeconds,
      timeoutSeconds: this.timeoutSeconds,
      generation,
    });
    return {
      sessionId: sessionId.toString(),
      peer,
      peers: players.length,
      players: [...players],
      rendezvousAddress: this.address,
      peerToken: Buffer.from(token).toString('base64'),
      expiresAt: (now + this.tokenSeconds) * 1000,
    };
  }
}
