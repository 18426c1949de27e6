/**
 * Seats and their connect tokens: finds or creates the room, reserves a seat in the directory and
 * mints the netcode connect token for the room's server, with the seat named in the token's user
 * data (seat-token.ts) so the server takes exactly that seat when the client connects.
 */
import { nodeDefaultAead } from '../connection/aead-node-default.js';
import { generateConnectToken } from '../connection/connect-token.js';
import type { JoinAnswer } from '../join/join-answer.js';
import { toAddress } from '../transport/address.js';
import { Refusal, ROOM_GONE } from './backend-refusal.js';
import type { Session } from './backend-session-signer.js';
import type { Directory, ProcessRecord, ReserveResult, RoomListing, Seat, SeatLimits } from './directory.js';
import type { GoneRooms } from './gone-rooms.js';
import { type RoomPlacer, serverAddressOf, type TransportKind } from './room-placer.js';
import { encodeSeatUserData, randomId } from './seat-token.js';

export type { JoinAnswer };

export interface SeatIssuerConfig {
  directory: Directory;
  placer: RoomPlacer;
  gone: GoneRooms;
  privateKey: Uint8Array;
  protocolId: bigint;
  /** Seat reservation and token lifetime, seconds. */
  tokenSeconds: number;
  /** The netcode connection timeout the token carries, seconds. */
  timeoutSeconds: number;
  now: () => number;
  /** The most live seats one user holds (reserved ones count): in one room, and in all. */
  limits: SeatLimits;
}

/**
 * A user's seats at most: one per room, three across rooms (a player in a match, with a seat
 * still held for reconnection in the last one and one being joined). A session is its user's:
 * every session of one user shares these seats.
 */
export const DEFAULT_SEAT_LIMITS: Readonly<SeatLimits> = Object.freeze({ perRoom: 1, perUser: 3 });

/** Who a seat is for: the player, and what the verifier said of them (the room's `client.auth`). */
export interface SeatHolder {
  userId: string;
  auth?: Record<string, unknown>;
}

/**
 * The seat holder a session names. Its verifier's data rides along when it is a JSON object (the
 * room reads its fields); other JSON (a string, an array) stays in the session only.
 */
export function seatHolder(session: Session): SeatHolder {
  const { userId, data } = session;
  const isObject = typeof data === 'object' && data !== null && !Array.isArray(data);
  return isObject ? { userId, auth: data as Record<string, unknown> } : { userId };
}

/** How often joinOrCreate looks again when the rooms it found or created filled up meanwhile. */
const ATTEMPTS = 5;

export class SeatIssuer {
  /**
   * joinOrCreate's creations in flight per room type and transport. Players arriving while one is
   * under way wait for it instead of each creating a room, as many as the last room of that type
   * seated (unknown at first: all of them); past that a further room is created alongside.
   */
  private readonly creating = new Map<string, { roomId: Promise<string>; waiting: number }>();
  /** Seats of the last room created per room type and transport. */
  private readonly capacity = new Map<string, number>();

  constructor(private readonly config: SeatIssuerConfig) {}

  /** A seat in a joinable room of type `name`, else in a new one. */
  async joinOrCreate(
    holder: SeatHolder,
    name: string,
    options: Record<string, unknown>,
    transport: TransportKind,
  ): Promise<JoinAnswer> {
    const { directory } = this.config;
    const key = `${transport}\n${name}`;
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      // Fullest first: players gather in rooms rather than spreading one per room.
      const rooms = (await directory.findRooms({ name, joinable: true })).sort(
        (a, b) => b.seats - a.seats || a.createdAt - b.createdAt,
      );
      for (const room of rooms) {
        const process = await directory.getProcess(room.processId);
        if (process === null || serverAddressOf(process, transport) === null) continue;
        const answer = await this.tryReserve(room, process, holder, transport, options);
        if (answer !== null) return answer;
      }
      const roomId = await this.newRoom(key, () =>
        this.config.placer.createRoom({ name, options, transport }),
      );
      const room = await directory.getRoom(roomId);
      const process = room === null ? null : await directory.getProcess(room.processId);
      if (room !== null && process !== null) {
        if (this.capacity.size > 1000) this.capacity.clear(); // names come from requests: stay bounded
        this.capacity.set(key, room.maxClients);
        const answer = await this.tryReserve(room, process, holder, transport, options, true);
        if (answer !== null) return answer;
      }
    }
    throw new Refusal(503, `no seat found in a ${name} room after ${ATTEMPTS} attempts (rooms filling up)`);
  }

  /** The room a waiting player is counted in: the creation under way, or a new one when it is full. */
  private newRoom(key: string, create: () => Promise<string>): Promise<string> {
    let group = this.creating.get(key);
    if (group === undefined || group.waiting >= (this.capacity.get(key) ?? Number.POSITIVE_INFINITY)) {
      const created = { roomId: create(), waiting: 0 };
      const done = () => {
        if (this.creating.get(key) === created) this.creating.delete(key);
      };
      created.roomId.then(done, done);
      this.creating.set(key, created);
      group = created;
    }
    group.waiting++;
    return group.roomId;
  }

  /** A seat in a new room of type `name`. */
  async create(
    holder: SeatHolder,
    name: string,
    options: Record<string, unknown>,
    transport: TransportKind,
  ): Promise<JoinAnswer> {
    const roomId = await this.config.placer.createRoom({ name, options, transport });
    return this.join(holder, roomId, transport, undefined, options);
  }

  /**
   * A seat in the room `roomId` (private rooms too). `seatId` fixed: the same seat on a repeat
   * (which keeps the auth it was reserved with). `options` and the holder's auth ride with the
   * seat to the room's onAuth and onJoin.
   */
  async join(
    holder: SeatHolder,
    roomId: string,
    transport: TransportKind,
    seatId?: string,
    options?: Record<string, unknown>,
  ): Promise<JoinAnswer> {
    const { room, process } = await this.roomAndProcess(roomId);
    if (serverAddressOf(process, transport) === null)
      throw new Refusal(409, `the room's server does not serve ${transport}`);
    const fixed = seatId !== undefined;
    const result = await this.config.directory.reserveSeat(room.roomId, {
      seatId: seatId ?? randomId(),
      userId: holder.userId,
      clientId: randomClientId(),
      ttlMs: this.config.tokenSeconds * 1000,
      ...(options === undefined ? {} : { options }),
      ...(holder.auth === undefined ? {} : { auth: holder.auth }),
      limits: this.config.limits,
    });
    if (result.ok) return this.answer(result.seat, process, transport);
    if (result.reason === 'seat exists' && fixed) return this.again(holder.userId, seatId, transport);
    if (result.reason === 'no such room') await this.roomAndProcess(roomId); // throws 410 if it went
    this.refuseOverLimit(result.reason);
    throw new Refusal(409, result.reason);
  }

  /** A fresh token for a seat held for this user's reconnection. */
  async reconnect(
    userId: string,
    seatId: string,
    transport: TransportKind,
    roomId?: string,
  ): Promise<JoinAnswer> {
    const seat = await this.config.directory.getSeat(seatId);
    if (seat === null) {
      const gone = roomId === undefined ? null : this.config.gone.reason(roomId, this.config.now());
      if (gone !== null) throw new Refusal(410, gone);
      throw new Refusal(404, 'no such seat (expired or released)');
    }
    if (seat.userId !== userId) throw new Refusal(403, 'the seat belongs to another player');
    if (seat.state !== 'held')
      throw new Refusal(409, `the seat is ${seat.state}, not held for a reconnection`);
    return this.again(userId, seatId, transport);
  }

  /** Another token for a seat this user already has (reserved, or held for reconnection). */
  private async again(userId: string, seatId: string, transport: TransportKind): Promise<JoinAnswer> {
    const seat = await this.config.directory.getSeat(seatId);
    if (seat === null) throw new Refusal(404, 'no such seat (expired or released)');
    if (seat.userId !== userId) throw new Refusal(403, 'the seat belongs to another player');
    if (seat.state === 'taken') throw new Refusal(409, 'the seat is already used');
    const { process } = await this.roomAndProcess(seat.roomId);
    if (serverAddressOf(process, transport) === null)
      throw new Refusal(409, `the room's server does not serve ${transport}`);
    return this.answer(seat, process, transport);
  }

  private async tryReserve(
    room: RoomListing,
    process: ProcessRecord,
    holder: SeatHolder,
    transport: TransportKind,
    options: Record<string, unknown>,
    created = false,
  ): Promise<JoinAnswer | null> {
    const result = await this.config.directory.reserveSeat(room.roomId, {
      seatId: randomId(),
      userId: holder.userId,
      clientId: randomClientId(),
      ttlMs: this.config.tokenSeconds * 1000,
      options,
      ...(holder.auth === undefined ? {} : { auth: holder.auth }),
      limits: this.config.limits,
    });
    if (result.ok) return this.answer(result.seat, process, transport);
    // Over the limit across rooms, no other room would do (and creating one would be for nothing);
    // already seated in the room just created (its own requests at once), another would not either.
    if (result.reason === 'user limit' || (created && result.reason === 'user limit in room'))
      this.refuseOverLimit(result.reason);
    return null;
  }

  /** A 409 that says which seat limit the user is at. */
  private refuseOverLimit(reason: Exclude<ReserveResult, { ok: true }>['reason']): void {
    const { perRoom, perUser } = this.config.limits;
    if (reason === 'user limit in room')
      throw new Refusal(409, `you hold ${perRoom} seat(s) in this room already (the most per player)`);
    if (reason === 'user limit')
      throw new Refusal(409, `you hold ${perUser} seats already (the most per player across rooms)`);
  }

  /** The room and its live process; 410 when its process stopped, 409 when it never existed. */
  private async roomAndProcess(roomId: string): Promise<{ room: RoomListing; process: ProcessRecord }> {
    const { directory, gone, now } = this.config;
    const room = await directory.getRoom(roomId);
    if (room === null) {
      const reason = gone.reason(roomId, now());
      if (reason !== null) throw new Refusal(410, reason);
      throw new Refusal(409, 'no such room');
    }
    const process = await directory.getProcess(room.processId);
    if (process === null) throw new Refusal(410, ROOM_GONE); // lapsed, not swept yet
    return { room, process };
  }

  private answer(seat: Seat, process: ProcessRecord, transport: TransportKind): JoinAnswer {
    const { privateKey, protocolId, timeoutSeconds, tokenSeconds } = this.config;
    const serverAddress = serverAddressOf(process, transport) as string;
    const now = this.config.now();
    const nowSeconds = Math.floor(now / 1000);
    // The token lives as long as the seat waits for it (a held seat may have less time left).
    const seatLeft = Number.isFinite(seat.expiresAt) ? seat.expiresAt - now : tokenSeconds * 1000;
    const expireSeconds = Math.max(1, Math.min(tokenSeconds, Math.ceil(seatLeft / 1000)));
    const token = generateConnectToken({
      protocolId,
      privateKey,
      clientId: BigInt(seat.clientId),
      serverAddresses: [toAddress(serverAddress)],
      now: nowSeconds,
      expireSeconds,
      timeoutSeconds,
      userData: encodeSeatUserData({ roomId: seat.roomId, seatId: seat.seatId }),
      // The fastest backend loaded (WebAssembly ChaCha20-Poly1305), as the room server's.
      aead: nodeDefaultAead,
    });
    const answer: JoinAnswer = {
      roomId: seat.roomId,
      seatId: seat.seatId,
      processId: process.processId,
      transport,
      serverAddress,
      connectToken: Buffer.from(token).toString('base64'),
      expiresAt: Number.isFinite(seat.expiresAt) ? seat.expiresAt : (nowSeconds + expireSeconds) * 1000,
    };
    if (transport === 'webrtc') answer.signalingUrl = process.addresses.signalingUrl;
    return answer;
  }
}

/** A random netcode client id (64 bits), decimal as the directory keeps it. */
function randomClientId(): string {
  const words = new BigUint64Array(1);
  globalThis.crypto.getRandomValues(words);
  return words[0].toString();
}
