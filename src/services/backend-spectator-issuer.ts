/**
 * Spectator tokens: the backend's answer to POST /spectate. A spectator takes no directory seat
 * (no reservation, no player's place, nothing counted toward a room's capacity or matchmaking):
 * its token names the room with a spectator's claim (seat-token.ts, version 2) and a client id
 * in the spectators' range, and the room's server admits it to the room's own spectator seats,
 * refusing it when they are full. A pool's spectator is sent to the pool's running room with the
 * most players (seats reserved, taken or held; the oldest room on a tie); a pool with no running
 * room is refused — no room is ever created to be watched.
 */
import { nodeDefaultAead } from '../connection/aead-node-default.js';
import { generateConnectToken } from '../connection/connect-token.js';
import { SPECTATOR_CLIENT_ID_BASE } from '../game/spectator-seats.js';
import type { JoinAnswer } from '../join/join-answer.js';
import { toAddress } from '../transport/address.js';
import { Refusal, ROOM_GONE } from './backend-refusal.js';
import type { Directory, ProcessRecord, RoomListing } from './directory.js';
import type { GoneRooms } from './gone-rooms.js';
import { serverAddressOf, type TransportKind } from './room-placer.js';
import { encodeSeatUserData, randomId } from './seat-token.js';

/** The room type a pool's matches are hosted in, or null for a pool that has no rooms (unknown, peer-to-peer). */
export type PoolRoomType = (pool: string) => string | null;

export interface SpectatorIssuerConfig {
  directory: Directory;
  gone: GoneRooms;
  privateKey: Uint8Array;
  protocolId: bigint;
  /** Token lifetime, seconds. */
  tokenSeconds: number;
  /** The netcode connection timeout the token carries, seconds. */
  timeoutSeconds: number;
  now: () => number;
  poolRoomType: PoolRoomType | null;
}

/** Rooms of a pool looked at, at most (fullest first, after the query). */
const MAX_POOL_ROOMS = 64;

export class SpectatorIssuer {
  constructor(private readonly config: SpectatorIssuerConfig) {}

  /** A spectator's token for the room `roomId` (private rooms too: their id is the invitation). */
  async room(roomId: string, transport: TransportKind): Promise<JoinAnswer> {
    const { directory, gone, now } = this.config;
    const room = await directory.getRoom(roomId);
    if (room === null) {
      const reason = gone.reason(roomId, now());
      if (reason !== null) throw new Refusal(410, reason);
      throw new Refusal(404, 'no such room');
    }
    const process = await directory.getProcess(room.processId);
    if (process === null) throw new Refusal(410, ROOM_GONE);
    if (serverAddressOf(process, transport) === null)
      throw new Refusal(409, `the room's server does not serve ${transport}`);
    return this.answer(room, process, transport);
  }

  /** A spectator's token for the running room of `pool` with the most players. */
  async pool(pool: string, transport: TransportKind): Promise<JoinAnswer> {
    const { directory, poolRoomType } = this.config;
    const name = poolRoomType?.(pool) ?? null;
    if (name === null) throw new Refusal(404, `no pool ${pool} of rooms to watch`);
    const rooms = (await directory.findRooms({ name }))
      .filter((room) => room.seats > 0)
      .sort((a, b) => b.seats - a.seats || a.createdAt - b.createdAt)
      .slice(0, MAX_POOL_ROOMS);
    for (const room of rooms) {
      const process = await directory.getProcess(room.processId);
      if (process === null || process.state !== 'ready' || serverAddressOf(process, transport) === null)
        continue;
      return this.answer(room, process, transport);
    }
    throw new Refusal(404, `no running room in pool ${pool} to watch`);
  }

  private answer(room: RoomListing, process: ProcessRecord, transport: TransportKind): JoinAnswer {
    const { privateKey, protocolId, timeoutSeconds, tokenSeconds } = this.config;
    const serverAddress = serverAddressOf(process, transport) as string;
    const nowSeconds = Math.floor(this.config.now() / 1000);
    const watchId = randomId();
    const token = generateConnectToken({
      protocolId,
      privateKey,
      clientId: spectatorClientId(),
      serverAddresses: [toAddress(serverAddress)],
      now: nowSeconds,
      expireSeconds: tokenSeconds,
      timeoutSeconds,
      userData: encodeSeatUserData({ roomId: room.roomId, seatId: watchId, spectator: true }),
      aead: nodeDefaultAead,
    });
    const answer: JoinAnswer = {
      roomId: room.roomId,
      seatId: watchId,
      processId: process.processId,
      transport,
      serverAddress,
      connectToken: Buffer.from(token).toString('base64'),
      expiresAt: (nowSeconds + tokenSeconds) * 1000,
    };
    if (transport === 'webrtc') answer.signalingUrl = process.addresses.signalingUrl;
    return answer;
  }
}

/** A random netcode client id in the spectators' range [2^62, 2^64). */
function spectatorClientId(): bigint {
  const words = new BigUint64Array(1);
  globalThis.crypto.getRandomValues(words);
  return words[0] | SPECTATOR_CLIENT_ID_BASE;
}
