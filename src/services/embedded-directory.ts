/**
 * The directory kept in this process's memory: the default for a game on one machine (the backend
 * and its room servers in one Node process, or child processes reaching it through the parent).
 * Everything runs synchronously inside each call, so every operation is atomic by construction;
 * messages are delivered on a later microtask, as a Redis subscriber would get them.
 */
import {
  type ConsumeResult,
  type Directory,
  type PeerSessionCreated,
  type PeerSlotResult,
  PROCESS_GONE,
  type ProcessGone,
  type ProcessLoad,
  type ProcessRecord,
  type ProcessState,
  type ReserveResult,
  type RoomListing,
  type RoomMetadata,
  type RoomQuery,
  type Seat,
  type Ticket,
  type TicketStatus,
  type Unsubscribe,
} from './directory.js';
import {
  checkMaxClients,
  checkProcessState,
  checkRestoredSeat,
  checkSeatLimits,
  checkTtl,
} from './directory-checks.js';
import {
  copyListing,
  copyMetadata,
  copyProcess,
  copyResult,
  copySeat,
  copyTicket,
} from './directory-copies.js';
import { EmbeddedPeerSessions } from './embedded-peer-sessions.js';
import { UserSeats } from './user-seats.js';

export interface EmbeddedDirectoryOptions {
  /** The clock, unix milliseconds (default Date.now); tests pass their own. */
  nowMs?: () => number;
}

interface ProcessEntry {
  record: ProcessRecord;
  expiresAt: number;
  rooms: Set<string>;
}

interface RoomEntry {
  listing: RoomListing;
  seats: Set<string>;
  /**
   * No seat of the room lapses before this (a lower bound: taking or releasing a seat leaves it
   * as is), so counting live seats skips the walk over every seat until then.
   */
  lapseAt: number;
}

type TicketResult = Exclude<TicketStatus, { state: 'queued' } | { state: 'unknown' }>;

export class EmbeddedDirectory implements Directory {
  private readonly now: () => number;
  private readonly processes = new Map<string, ProcessEntry>();
  private readonly rooms = new Map<string, RoomEntry>();
  private readonly seats = new Map<string, Seat>();
  private readonly userSeats = new UserSeats();
  private readonly tickets = new Map<string, Ticket>();
  private readonly results = new Map<string, { status: TicketResult; expiresAt: number }>();
  private readonly handlers = new Map<string, Set<(message: string) => void>>();
  private readonly peerSessions: EmbeddedPeerSessions;
  private closed = false;

  constructor(options: EmbeddedDirectoryOptions = {}) {
    this.now = options.nowMs ?? Date.now;
    this.peerSessions = new EmbeddedPeerSessions(this.now);
  }

  async registerProcess(record: ProcessRecord, ttlMs: number): Promise<void> {
    this.open();
    checkTtl(ttlMs);
    checkProcessState(record.state, record.maxRooms);
    const now = this.now();
    const entry = this.processes.get(record.processId);
    const copy = { ...copyProcess(record), heartbeatAt: now };
    if (entry !== undefined && entry.expiresAt > now) {
      entry.record = copy;
      entry.expiresAt = now + ttlMs;
    } else {
      if (entry !== undefined) this.dropProcess(record.processId, 'lapsed');
      this.processes.set(record.processId, { record: copy, expiresAt: now + ttlMs, rooms: new Set() });
    }
  }

  async heartbeat(
    processId: string,
    state: ProcessState,
    load: ProcessLoad,
    ttlMs: number,
  ): Promise<boolean> {
    this.open();
    checkTtl(ttlMs);
    checkProcessState(state);
    const entry = this.liveProcess(processId);
    if (entry === null) return false;
    const now = this.now();
    entry.record.state = state;
    entry.record.load = { ...load };
    entry.record.heartbeatAt = now;
    entry.expiresAt = now + ttlMs;
    return true;
  }

  async getProcess(processId: string): Promise<ProcessRecord | null> {
    this.open();
    const entry = this.liveProcess(processId);
    return entry === null ? null : copyProcess(entry.record);
  }

  async listProcesses(): Promise<ProcessRecord[]> {
    this.open();
    const now = this.now();
    return [...this.processes.values()]
      .filter((entry) => entry.expiresAt > now)
      .map((entry) => copyProcess(entry.record));
  }

  async removeProcess(processId: string): Promise<void> {
    this.open();
    if (this.processes.has(processId)) this.dropProcess(processId, 'removed');
  }

  async sweep(): Promise<string[]> {
    this.open();
    const now = this.now();
    const lapsed = [...this.processes].filter(([, entry]) => entry.expiresAt <= now).map(([id]) => id);
    for (const id of lapsed) this.dropProcess(id, 'lapsed');
    for (const [seatId, seat] of this.seats) if (seat.expiresAt <= now) this.dropSeat(seatId);
    for (const [ticketId, result] of this.results) if (result.expiresAt <= now) this.results.delete(ticketId);
    this.peerSessions.sweep();
    return lapsed;
  }

  async createRoom(listing: Omit<RoomListing, 'seats' | 'createdAt'>): Promise<boolean> {
    this.open();
    checkMaxClients(listing.maxClients);
    const process = this.liveProcess(listing.processId);
    if (process === null || this.rooms.has(listing.roomId)) return false;
    const copy = copyListing({ ...listing, seats: 0, createdAt: this.now() });
    this.rooms.set(listing.roomId, { listing: copy, seats: new Set(), lapseAt: Number.POSITIVE_INFINITY });
    process.rooms.add(listing.roomId);
    return true;
  }

  async updateRoom(
    roomId: string,
    patch: { locked?: boolean; metadata?: RoomMetadata; maxClients?: number },
  ): Promise<boolean> {
    this.open();
    if (patch.maxClients !== undefined) checkMaxClients(patch.maxClients);
    const room = this.rooms.get(roomId);
    if (room === undefined) return false;
    if (patch.locked !== undefined) room.listing.locked = patch.locked;
    if (patch.metadata !== undefined) room.listing.metadata = copyMetadata(patch.metadata);
    if (patch.maxClients !== undefined) room.listing.maxClients = patch.maxClients;
    return true;
  }

  async removeRoom(roomId: string): Promise<void> {
    this.open();
    this.dropRoom(roomId);
  }

  async getRoom(roomId: string): Promise<RoomListing | null> {
    this.open();
    const room = this.rooms.get(roomId);
    return room === undefined ? null : this.listingOf(room);
  }

  async findRooms(query: RoomQuery): Promise<RoomListing[]> {
    this.open();
    const out: RoomListing[] = [];
    // Filtered before copying: a join lists the joinable rooms of one type among every room.
    for (const room of this.rooms.values()) {
      const { listing } = room;
      if (query.name !== undefined && listing.name !== query.name) continue;
      if (query.processId !== undefined && listing.processId !== query.processId) continue;
      if (query.joinable && (listing.locked || listing.private)) continue;
      const seats = this.liveSeats(room);
      if (query.joinable && seats >= listing.maxClients) continue;
      const copy = copyListing(listing);
      copy.seats = seats;
      out.push(copy);
    }
    return out;
  }

  async reserveSeat(roomId: string, seat: Parameters<Directory['reserveSeat']>[1]): Promise<ReserveResult> {
    this.open();
    checkTtl(seat.ttlMs);
    checkSeatLimits(seat.limits);
    const room = this.rooms.get(roomId);
    if (room === undefined || this.liveProcess(room.listing.processId) === null)
      return { ok: false, reason: 'no such room' };
    if (this.seats.has(seat.seatId)) return { ok: false, reason: 'seat exists' };
    if (room.listing.locked) return { ok: false, reason: 'locked' };
    if (this.liveSeats(room) >= room.listing.maxClients) return { ok: false, reason: 'full' };
    if (seat.limits !== undefined) {
      const held = this.userSeats.count(
        seat.userId,
        roomId,
        (id) => this.seats.get(id),
        (id) => this.dropLapsed(seat.userId, id),
        this.now(),
      );
      if (held.total >= seat.limits.perUser) return { ok: false, reason: 'user limit' };
      if (held.inRoom >= seat.limits.perRoom) return { ok: false, reason: 'user limit in room' };
    }
    const entry = copySeat({
      seatId: seat.seatId,
      roomId,
      processId: room.listing.processId,
      userId: seat.userId,
      clientId: seat.clientId,
      options: seat.options,
      auth: seat.auth,
      state: 'reserved',
      expiresAt: this.now() + seat.ttlMs,
    });
    this.seats.set(seat.seatId, entry);
    this.userSeats.add(entry.userId, seat.seatId);
    room.seats.add(seat.seatId);
    room.lapseAt = Math.min(room.lapseAt, entry.expiresAt);
    return { ok: true, seat: copySeat(entry) };
  }

  async consumeSeat(seatId: string, roomId: string): Promise<ConsumeResult> {
    this.open();
    const seat = this.seats.get(seatId);
    if (seat === undefined) return { ok: false, reason: 'unknown seat' };
    if (seat.roomId !== roomId) return { ok: false, reason: 'wrong room' };
    if (seat.state === 'taken') return { ok: false, reason: 'already used' };
    if (seat.expiresAt <= this.now()) {
      this.dropSeat(seatId);
      return { ok: false, reason: 'expired' };
    }
    seat.state = 'taken';
    seat.expiresAt = Number.POSITIVE_INFINITY;
    return { ok: true, seat: copySeat(seat) };
  }

  async holdSeat(seatId: string, ttlMs: number): Promise<boolean> {
    this.open();
    checkTtl(ttlMs);
    const seat = this.seats.get(seatId);
    if (seat === undefined || seat.state !== 'taken') return false;
    seat.state = 'held';
    seat.expiresAt = this.now() + ttlMs;
    const room = this.rooms.get(seat.roomId);
    if (room !== undefined) room.lapseAt = Math.min(room.lapseAt, seat.expiresAt);
    return true;
  }

  async getSeat(seatId: string): Promise<Seat | null> {
    this.open();
    const seat = this.seats.get(seatId);
    if (seat === undefined) return null;
    if (seat.expiresAt <= this.now()) {
      this.dropSeat(seatId);
      return null;
    }
    return copySeat(seat);
  }

  async releaseSeat(seatId: string): Promise<void> {
    this.open();
    this.dropSeat(seatId);
  }

  async restoreSeat(seat: Seat): Promise<boolean> {
    this.open();
    checkRestoredSeat(seat);
    const room = this.rooms.get(seat.roomId);
    if (room === undefined || room.listing.processId !== seat.processId) return false;
    this.dropSeat(seat.seatId);
    // A taken seat never lapses, whatever the caller's copy says (a JSON one says null).
    const expiresAt = seat.state === 'taken' ? Number.POSITIVE_INFINITY : seat.expiresAt;
    this.seats.set(seat.seatId, copySeat({ ...seat, expiresAt }));
    this.userSeats.add(seat.userId, seat.seatId);
    room.seats.add(seat.seatId);
    room.lapseAt = Math.min(room.lapseAt, expiresAt);
    return true;
  }

  async addTicket(ticket: Ticket): Promise<void> {
    this.open();
    // A lapsed result frees its id, as its Redis key would expire, swept or not.
    const result = this.results.get(ticket.ticketId);
    if (this.tickets.has(ticket.ticketId) || (result !== undefined && result.expiresAt > this.now()))
      throw new Error(`ticket ${ticket.ticketId} exists`);
    this.results.delete(ticket.ticketId);
    this.tickets.set(ticket.ticketId, copyTicket(ticket));
  }

  async cancelTicket(ticketId: string): Promise<boolean> {
    this.open();
    const ticket = this.tickets.get(ticketId);
    if (ticket === undefined) return false;
    this.tickets.delete(ticketId);
    const status: TicketResult = { state: 'cancelled', userIds: [...ticket.userIds] };
    this.results.set(ticketId, { status, expiresAt: this.now() + 60_000 });
    return true;
  }

  async listTickets(pool?: string): Promise<Ticket[]> {
    this.open();
    const out: Ticket[] = [];
    for (const ticket of this.tickets.values())
      if (pool === undefined || ticket.pool === pool) out.push(copyTicket(ticket));
    return out;
  }

  async claimTickets(
    ticketIds: string[],
    match: { matchId: string; roomId: string },
    resultTtlMs: number,
  ): Promise<boolean> {
    this.open();
    checkTtl(resultTtlMs);
    if (new Set(ticketIds).size !== ticketIds.length) return false;
    if (!ticketIds.every((id) => this.tickets.has(id))) return false;
    const now = this.now();
    const userIds = ticketIds.flatMap((id) => this.tickets.get(id)?.userIds ?? []);
    for (const id of ticketIds) {
      this.tickets.delete(id);
      const status: TicketResult = {
        state: 'matched',
        ...match,
        ticketIds: [...ticketIds],
        userIds: [...userIds],
        matchedAt: now,
      };
      this.results.set(id, { status, expiresAt: now + resultTtlMs });
    }
    return true;
  }

  async ticketStatus(ticketId: string): Promise<TicketStatus> {
    this.open();
    const ticket = this.tickets.get(ticketId);
    if (ticket !== undefined) return { state: 'queued', ticket: copyTicket(ticket) };
    const result = this.results.get(ticketId);
    if (result === undefined || result.expiresAt <= this.now()) return { state: 'unknown' };
    return copyResult(result.status);
  }

  async createPeerSession(
    sessionId: string,
    maxPeers: number,
    userId: string,
    ttlMs: number,
    maxPerUser?: number,
  ): Promise<PeerSessionCreated> {
    this.open();
    return this.peerSessions.create(sessionId, maxPeers, userId, ttlMs, maxPerUser);
  }

  async takePeerSlot(sessionId: string, userId: string, ttlMs: number): Promise<PeerSlotResult> {
    this.open();
    return this.peerSessions.take(sessionId, userId, ttlMs);
  }

  async leavePeerSession(sessionId: string, userId: string, emptyTtlMs?: number): Promise<boolean> {
    this.open();
    return this.peerSessions.leave(sessionId, userId, emptyTtlMs);
  }

  async publish(channel: string, message: string): Promise<void> {
    this.open();
    const handlers = this.handlers.get(channel);
    if (handlers === undefined) return;
    // Those subscribed now get it, later, each on its own: a throwing handler harms no other.
    for (const handler of [...handlers]) queueMicrotask(() => handler(message));
  }

  async subscribe(channel: string, handler: (message: string) => void): Promise<Unsubscribe> {
    this.open();
    const set = this.handlers.get(channel) ?? new Set<(message: string) => void>();
    this.handlers.set(channel, set);
    // Each subscription is its own, even for the same function twice.
    const own = (message: string) => handler(message);
    set.add(own);
    return async () => {
      set.delete(own);
      if (set.size === 0 && this.handlers.get(channel) === set) this.handlers.delete(channel);
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    this.handlers.clear();
  }

  private open(): void {
    if (this.closed) throw new Error('directory closed');
  }

  private liveProcess(processId: string): ProcessEntry | null {
    const entry = this.processes.get(processId);
    return entry !== undefined && entry.expiresAt > this.now() ? entry : null;
  }

  /** Live seats of a room, dropping the lapsed ones on the way (none before room.lapseAt). */
  private liveSeats(room: RoomEntry): number {
    const now = this.now();
    if (now < room.lapseAt) return room.seats.size;
    let lapseAt = Number.POSITIVE_INFINITY;
    for (const seatId of room.seats) {
      const seat = this.seats.get(seatId);
      if (seat === undefined || seat.expiresAt <= now) this.dropSeat(seatId);
      else if (seat.expiresAt < lapseAt) lapseAt = seat.expiresAt;
    }
    room.lapseAt = lapseAt;
    return room.seats.size;
  }

  private listingOf(room: RoomEntry): RoomListing {
    const listing = copyListing(room.listing);
    listing.seats = this.liveSeats(room);
    return listing;
  }

  private dropSeat(seatId: string): void {
    const seat = this.seats.get(seatId);
    if (seat === undefined) return;
    this.seats.delete(seatId);
    this.userSeats.remove(seat.userId, seatId);
    this.rooms.get(seat.roomId)?.seats.delete(seatId);
  }

  /** A user's seat found lapsed (or gone) while counting its seats. */
  private dropLapsed(userId: string, seatId: string): void {
    if (this.seats.has(seatId)) this.dropSeat(seatId);
    else this.userSeats.remove(userId, seatId);
  }

  private dropRoom(roomId: string): void {
    const room = this.rooms.get(roomId);
    if (room === undefined) return;
    for (const seatId of room.seats) {
      const seat = this.seats.get(seatId);
      if (seat !== undefined) this.userSeats.remove(seat.userId, seatId);
      this.seats.delete(seatId);
    }
    this.rooms.delete(roomId);
    this.processes.get(room.listing.processId)?.rooms.delete(roomId);
  }

  private dropProcess(processId: string, reason: ProcessGone['reason']): void {
    const entry = this.processes.get(processId);
    if (entry === undefined) return;
    const roomIds = [...entry.rooms];
    for (const roomId of roomIds) this.dropRoom(roomId);
    this.processes.delete(processId);
    void this.publish(PROCESS_GONE, JSON.stringify({ processId, roomIds, reason } satisfies ProcessGone));
  }
}
