/**
 * The directory: the one place a fleet keeps what it shares — which server processes are alive and
 * how loaded, where each room lives, who holds a seat in it, and the matchmaking queue — plus a
 * small publish/subscribe bus. Two implementations: EmbeddedDirectory (one process, the default)
 * and RedisDirectory (a real redis-server shared by processes on several machines).
 *
 * Every method is async, resolves or rejects (never hangs), and is atomic where it says so: two
 * backends reserving the last seat of a room at once see one succeed and one refused.
 * Times are unix milliseconds from the directory's clock (`now` in the implementations' options).
 * Lists (listProcesses, findRooms, listTickets) come in no particular order: sort what needs one.
 * What a call returns is the caller's own copy, and so is what it stores of what it was given.
 */

/** A process's lifecycle as the fleet sees it (Agones' verbs): only 'ready' processes get new rooms. */
export type ProcessState = 'starting' | 'ready' | 'draining';

/** What a server process reports with each heartbeat. */
export interface ProcessLoad {
  rooms: number;
  /** Clients connected to its rooms now. */
  clients: number;
  /** Mean time of one room tick over the last report period, milliseconds. */
  tickMs: number;
  /** Worst room tick over the last report period, milliseconds. */
  tickMaxMs: number;
}

/** The transports a server process serves, each as the host:port a connect token lists. */
export interface ProcessAddresses {
  udp?: string;
  websocket?: string;
  webrtc?: string;
  /** An in-memory transport's address (tests, and backends running in the same process). */
  memory?: string;
  /** Where browsers POST their WebRTC offer (http(s) URL), when the process serves WebRTC. */
  signalingUrl?: string;
}

export interface ProcessRecord {
  processId: string;
  /** The machine's name (hostname), for load per machine. */
  machine: string;
  addresses: ProcessAddresses;
  state: ProcessState;
  /** Rooms it takes at most. */
  maxRooms: number;
  load: ProcessLoad;
  /** When its last heartbeat arrived. */
  heartbeatAt: number;
}

/** Values a room advertises for room queries (kept small: they travel with every listing). */
export type RoomMetadata = Record<string, string | number | boolean>;

export interface RoomListing {
  roomId: string;
  /** Its room type, as registered by name. */
  name: string;
  processId: string;
  /** Seats held now: reserved (not yet used), taken (client connected) and held for reconnection. */
  seats: number;
  maxClients: number;
  /** A locked room takes no new reservations (reconnections still resume). */
  locked: boolean;
  /** A private room is found only by its id, never by a query. */
  private: boolean;
  metadata: RoomMetadata;
  createdAt: number;
}

/** reserved: not used yet · taken: its client is connected · held: kept for a dropped client. */
export type SeatState = 'reserved' | 'taken' | 'held';

export interface Seat {
  /** Unguessable id, carried in the connect token's user data. */
  seatId: string;
  roomId: string;
  processId: string;
  /** The authenticated player (the backend's verifier names it). */
  userId: string;
  /** The netcode client id of the token issued for it, decimal. */
  clientId: string;
  /** The join options the backend took for this seat (the room's onJoin gets them); JSON values. */
  options?: Record<string, unknown>;
  /**
   * What the backend's verifier said about the player (its session's data: a display name, rank,
   * entitlements…), for the room's onAuth and onJoin; JSON values. Absent when it said nothing.
   */
  auth?: Record<string, unknown>;
  state: SeatState;
  /**
   * When a reserved or held seat lapses. Infinity while taken, which JSON turns into null: send
   * seats as JSON knowing it, and give restoreSeat Infinity back for a taken seat.
   */
  expiresAt: number;
}

/**
 * The most live seats (reserved, taken or held) one user may have, checked atomically with the
 * reservation: in the room reserved in, and in all rooms of the directory.
 */
export interface SeatLimits {
  perRoom: number;
  perUser: number;
}

export type ReserveResult =
  | { ok: true; seat: Seat }
  | {
      ok: false;
      reason: 'no such room' | 'locked' | 'full' | 'seat exists' | 'user limit in room' | 'user limit';
    };

export type ConsumeResult =
  | { ok: true; seat: Seat }
  | { ok: false; reason: 'unknown seat' | 'expired' | 'already used' | 'wrong room' };

/** One player (or party) waiting for a match. */
export interface Ticket {
  ticketId: string;
  /** The players it seats (a party is one ticket of several users, matched together). */
  userIds: string[];
  /** Tickets match only within a pool: the game mode and region, e.g. "duel/eu". */
  pool: string;
  /** Skill rating; the window around it widens with waiting time. */
  skill: number;
  /** Free-form properties the game's own match rule may read. */
  properties: RoomMetadata;
  createdAt: number;
}

/** What became of a ticket: still queued, matched into a room, cancelled or lapsed. */
export type TicketStatus =
  | { state: 'queued'; ticket: Ticket }
  | {
      state: 'matched';
      matchId: string;
      roomId: string;
      ticketIds: string[];
      /** Every player of the match (all its tickets' users): who may take a seat in it. */
      userIds: string[];
      matchedAt: number;
    }
  /** The cancelled ticket's users: only they are told it was cancelled. */
  | { state: 'cancelled'; userIds: string[] }
  | { state: 'unknown' };

/** What taking a slot of a peer-to-peer session answers: its slots by index, null where free. */
export type PeerSlotResult =
  /** generation: the session's count of slots handed out (the creator's is 1), sealed into the slot's token. */
  | { ok: true; slot: number; generation: number; players: (string | null)[] }
  | { ok: false; reason: 'no such session' | 'full' };

/** createPeerSession's answer: 'taken' when the id is in use, 'limit' when the user holds maxPerUser sessions. */
export type PeerSessionCreated = 'created' | 'taken' | 'limit';

export interface RoomQuery {
  name?: string;
  processId?: string;
  /** Only rooms that take a reservation now: not locked, not private, a seat free. */
  joinable?: boolean;
}

export type Unsubscribe = () => Promise<void>;

export interface Directory {
  // Processes. A record lapses ttlMs after its last registration or heartbeat unless renewed.
  registerProcess(record: ProcessRecord, ttlMs: number): Promise<void>;
  /** Renews a live record; false when it had lapsed (the caller registers again). */
  heartbeat(processId: string, state: ProcessState, load: ProcessLoad, ttlMs: number): Promise<boolean>;
  getProcess(processId: string): Promise<ProcessRecord | null>;
  listProcesses(): Promise<ProcessRecord[]>;
  /** Removes a process and everything of it (rooms, seats) and publishes PROCESS_GONE once. */
  removeProcess(processId: string): Promise<void>;
  /** Finds processes whose record lapsed, removes them as removeProcess does; returns their ids. */
  sweep(): Promise<string[]>;

  // Rooms.
  /** Lists a new room on a live process; false if the process is unknown or the id taken. */
  createRoom(listing: Omit<RoomListing, 'seats' | 'createdAt'>): Promise<boolean>;
  /** Changes what a room advertises; false if it is gone. */
  updateRoom(
    roomId: string,
    patch: { locked?: boolean; metadata?: RoomMetadata; maxClients?: number },
  ): Promise<boolean>;
  /** Removes a room and its seats. */
  removeRoom(roomId: string): Promise<void>;
  getRoom(roomId: string): Promise<RoomListing | null>;
  findRooms(query: RoomQuery): Promise<RoomListing[]>;

  // Seats. Atomic: a room never has more live seats than maxClients.
  /**
   * With `limits`, also refused ('user limit in room', 'user limit') when userId already has that
   * many live seats, counted in the same atomic step: backends racing for one user cannot pass it.
   */
  reserveSeat(
    roomId: string,
    seat: {
      seatId: string;
      userId: string;
      clientId: string;
      ttlMs: number;
      options?: Record<string, unknown>;
      auth?: Record<string, unknown>;
      limits?: SeatLimits;
    },
  ): Promise<ReserveResult>;
  /**
   * The process takes a seat when its client connects: reserved or held → taken, once. Too late,
   * the answer is 'expired', or 'unknown seat' once the lapsed seat was cleared away: both refuse.
   */
  consumeSeat(seatId: string, roomId: string): Promise<ConsumeResult>;
  /** A dropped client's seat kept ttlMs for its reconnection: taken → held. False if not taken. */
  holdSeat(seatId: string, ttlMs: number): Promise<boolean>;
  getSeat(seatId: string): Promise<Seat | null>;
  /** Frees a seat (its client left for good). */
  releaseSeat(seatId: string): Promise<void>;
  /**
   * Writes a seat as the process knows it (taken or held), for a process listing its rooms again
   * after the directory lost them (a Redis restart without persistence). False if the room is gone
   * or not the seat's process's. It does not check maxClients: the process knows its clients are
   * there. A taken seat is kept without lapsing whatever its expiresAt (pass Infinity).
   */
  restoreSeat(seat: Seat): Promise<boolean>;

  // Matchmaking queue.
  addTicket(ticket: Ticket): Promise<void>;
  /**
   * Cancels a queued ticket; false if it is no longer queued (matched or gone). Its status then
   * reads 'cancelled' for 60 s (and its id cannot be queued again meanwhile), then 'unknown'.
   */
  cancelTicket(ticketId: string): Promise<boolean>;
  listTickets(pool?: string): Promise<Ticket[]>;
  /**
   * Atomically takes every named ticket out of the queue and records the match for each, or takes
   * none (false) when any is no longer queued. Results are kept resultTtlMs for polling.
   */
  claimTickets(
    ticketIds: string[],
    match: { matchId: string; roomId: string },
    resultTtlMs: number,
  ): Promise<boolean>;
  ticketStatus(ticketId: string): Promise<TicketStatus>;

  // Peer-to-peer sessions joined by id (the backend's /peers routes). A session's record lapses
  // ttlMs after it was created or a slot of it was last taken, or emptyTtlMs after its last
  // holder left.
  /**
   * Records a session of maxPeers slots (2..64) with userId in slot 0 (generation 1). Refused
   * 'taken' if the id is in use, 'limit' if maxPerUser (an integer >= 1, default unlimited)
   * sessions userId created with a cap are live (uncapped ones are not counted). A session counts
   * until it ends, whoever holds its slots: the creator leaving it does not make room.
   */
  createPeerSession(
    sessionId: string,
    maxPeers: number,
    userId: string,
    ttlMs: number,
    maxPerUser?: number,
  ): Promise<PeerSessionCreated>;
  /**
   * Atomically gives userId the lowest free slot, or the slot it holds already, under the
   * session's next generation, and renews the record: two backends taking the last slot at once
   * see one succeed and one 'full'; every answer's generation is higher than any before it.
   */
  takePeerSlot(sessionId: string, userId: string, ttlMs: number): Promise<PeerSlotResult>;
  /**
   * Frees userId's slot; false when it held none or the session is gone. A session left with no
   * holder lapses emptyTtlMs later (default 60 000) unless a slot is taken meanwhile.
   */
  leavePeerSession(sessionId: string, userId: string, emptyTtlMs?: number): Promise<boolean>;

  // Messages between processes: at-most-once, to the subscribers live at the time of publishing.
  publish(channel: string, message: string): Promise<void>;
  subscribe(channel: string, handler: (message: string) => void): Promise<Unsubscribe>;

  close(): Promise<void>;
}

/** Channel on which removed rooms are announced (a process's, or one that failed): JSON ProcessGone. */
export const PROCESS_GONE = 'ghostwire:process-gone';

export interface ProcessGone {
  processId: string;
  /** Its rooms, removed with it (or the one room that failed). */
  roomIds: string[];
  /**
   * 'lapsed' (no heartbeat within its ttl: crashed or cut off), 'removed' (stopped cleanly), or
   * 'room failed' (the process lives on; the room's code or a layer under it threw).
   */
  reason: 'lapsed' | 'removed' | 'room failed';
}
