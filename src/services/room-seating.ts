/**
 * Who sits where: a connection becomes a room's client once its seat is taken in the directory
 * (the claim read from its connect token's user data); a client that disconnects leaves, one that
 * times out is dropped and its seat held for the room's reconnection window; the same seat coming
 * back (a new token, a new connection) resumes the same RoomClient with a fresh replication client,
 * so it is sent the whole world again. Nothing from the network throws out of here.
 */

import type { AnyMessageType } from '../channels/message.js';
import type { MessageServer } from '../channels/message-endpoints.js';
import type { ServerDisconnectReason } from '../connection/server-options.js';
import { TickClock } from '../latency/tick-clock.js';
import { ClientHooks, isThenable } from './client-hooks.js';
import type { Directory } from './directory.js';
import type { TickTimes } from './process-presence.js';
import { type Room, RoomClient } from './room.js';
import { attachRoomChannels, type RoutedChannel } from './room-channels.js';
import { RoomSpectators } from './room-spectators.js';
import { SeatReleases } from './seat-releases.js';
import { decodeSeatUserData } from './seat-token.js';

/** A room as its server keeps it. */
export interface HostedRoom {
  readonly room: Room;
  readonly clock: TickClock;
  /** Runs one tick of the room (bound once: the frame loop passes it to the clock). */
  readonly onTick: (tick: number) => void;
  /** Since when nobody is seated (ms), or -1. */
  emptySinceMs: number;
  /** Asking the directory whether reservations are pending, before disposing. */
  checking: boolean;
  /** Its room-level code or a layer under it threw: no more ticks or messages, disposed at the frame's end. */
  failed: boolean;
  disposed: boolean;
}

/**
 * How long a reserved seat that a wrong client's token took is held again for its own client: the
 * backend's default token life, so its client's token can still use it (its original expiry is
 * not known here).
 */
const HAND_BACK_MS = 15_000;

export interface SeatingCounters {
  /**
   * Connections refused, by reason (no seat claim, no such room, expired, already used, wrong
   * client, full, auth…).
   */
  refused: Record<string, number>;
  joins: number;
  reconnections: number;
  /** Clients gone for good: left with consent, or their window lapsed. */
  leaves: number;
  drops: number;
  directoryErrors: number;
  /** Room-level hooks that threw (onTick; reported through onError, each fails its room). */
  hookErrors: number;
  /**
   * Per-client hooks that threw (onAuth, onJoin, onReconnect, onMessage, onDrop, onLeave; reported
   * through onError): each costs its client only — refused, or disconnected — never the room.
   */
  clientHookErrors: number;
  /** Spectators connected now, in every room (room-spectators.ts: they hold no seat). */
  spectators: number;
  /** Spectators admitted since start. */
  spectatorJoins: number;
  /** Game messages spectators sent, dropped unread. */
  spectatorMessagesDropped: number;
}

export interface SeatingOptions {
  directory: Directory;
  messages: MessageServer<AnyMessageType>;
  routes: Map<string, (RoutedChannel | null)[]>;
  /** Indices of the channels that carry messages (delivered to onMessage). */
  messageChannels: number[];
  rooms: Map<string, HostedRoom>;
  now: () => number;
  report: (error: unknown, where: string) => void;
  dispose: (hosted: HostedRoom) => Promise<void>;
  /** A room's code, or a layer under it, threw: the room is to be disposed (reported there). */
  fail: (room: Room, where: string, error: unknown) => void;
}

export class RoomSeating {
  readonly counters: SeatingCounters = {
    refused: {},
    joins: 0,
    reconnections: 0,
    leaves: 0,
    drops: 0,
    directoryErrors: 0,
    hookErrors: 0,
    clientHookErrors: 0,
    spectators: 0,
    spectatorJoins: 0,
    spectatorMessagesDropped: 0,
  };
  /** Set by stop(): clients leave without directory calls (the process record goes with its seats). */
  stopping = false;
  /** Per slot: bumped at each connect and disconnect, so an admission that outlived its connection knows. */
  private readonly serials: Uint32Array;
  private readonly slotClients: (RoomClient | null)[];
  private readonly slotRooms: (HostedRoom | null)[];
  private readonly releases: SeatReleases;
  private readonly clientHooks: ClientHooks;
  private readonly spectators: RoomSpectators;
  /** No dropped client's window lapses before this: till then a sweep skips the seats. */
  private nextDeadlineMs = Number.POSITIVE_INFINITY;

  constructor(private readonly o: SeatingOptions) {
    this.releases = new SeatReleases((seatId) =>
      this.directory('releaseSeat', () => o.directory.releaseSeat(seatId).then(() => true)),
    );
    const slots = o.messages.server.maxClients;
    this.serials = new Uint32Array(slots);
    this.slotClients = new Array(slots).fill(null);
    this.slotRooms = new Array(slots).fill(null);
    this.spectators = new RoomSpectators({
      messages: o.messages,
      routes: o.routes,
      messageChannels: o.messageChannels,
      tally: this.counters,
      report: o.report,
      fail: o.fail,
    });
    this.clientHooks = new ClientHooks({
      counters: this.counters,
      report: o.report,
      eject: (client) => this.eject(client),
    });
  }

  /** Wraps a new room for hosting: its clock and its measured tick. */
  host(room: Room, times: TickTimes): HostedRoom {
    const dt = 1 / room.tickRate;
    const hosted: HostedRoom = {
      room,
      clock: new TickClock({ tickRate: room.tickRate }),
      onTick: (tick) => {
        if (hosted.failed) return; // the clock may have more ticks due in this frame
        const start = performance.now();
        room.tick = tick;
        try {
          this.settle(room, 'onTick', room.onTick(tick, dt));
        } catch (error) {
          this.countHookError(room, 'onTick', error);
        }
        try {
          if (!hosted.failed)
            for (const replication of room.replications) {
              replication.world.tick();
              replication.recording?.capture(); // a room's recording (ReplicationServer.record)
            }
        } catch (error) {
          this.o.fail(room, 'replication', error);
        }
        times.add(performance.now() - start);
      },
      emptySinceMs: this.o.now(),
      checking: false,
      failed: false,
      disposed: false,
    };
    return hosted;
  }

  joinedClients(): number {
    let n = 0;
    for (const client of this.slotClients) if (client !== null && client.state === 'joined') n++;
    return n;
  }

  /** Clients joined or dropped (a drain waits for none). */
  seatedClients(): number {
    let n = 0;
    for (const hosted of this.o.rooms.values()) n += hosted.room.seats.size;
    return n;
  }

  connected(index: number, clientId: bigint, userData: Uint8Array): void {
    const serial = ++this.serials[index];
    this.admit(index, serial, clientId, userData).catch((error) => {
      this.o.report(error, 'admit');
      this.refuse(index, serial, 'server error');
    });
  }

  disconnected(index: number, reason: ServerDisconnectReason): void {
    this.serials[index]++;
    for (const perSlot of this.o.routes.values()) perSlot[index] = null;
    this.spectators.leave(index);
    const client = this.slotClients[index];
    const hosted = this.slotRooms[index];
    this.slotClients[index] = null;
    this.slotRooms[index] = null;
    if (client === null || hosted === null) return;
    client.index = -1;
    const room = hosted.room;
    if (!this.stopping && reason === 'timed out' && room.reconnectWindowMs > 0) {
      client.state = 'dropped';
      client.dropDeadlineMs = this.o.now() + room.reconnectWindowMs;
      if (client.dropDeadlineMs < this.nextDeadlineMs) this.nextDeadlineMs = client.dropDeadlineMs;
      this.counters.drops++;
      this.directory('holdSeat', () => this.o.directory.holdSeat(client.seatId, room.reconnectWindowMs)).then(
        (held) => {
          // The directory no longer has the seat: it cannot be taken again, so the client is gone.
          if (held === false && client.state === 'dropped') this.leave(client, false);
        },
      );
      this.clientHooks.run(room, client, 'onDrop', () => room.onDrop(client));
      return;
    }
    this.leave(client, reason === 'client disconnected' || reason === 'kicked');
  }

  /** A client leaves its room for good: its seat is released and onLeave runs. */
  leave(client: RoomClient, consented: boolean): void {
    if (client.state === 'left') return;
    const hosted = this.roomOf(client);
    client.state = 'left';
    if (hosted === null) return;
    hosted.room.seats.delete(client.seatId);
    if (hosted.room.seats.size === 0) hosted.emptySinceMs = this.o.now();
    this.counters.leaves++;
    if (!this.stopping) this.releases.add(client.seatId);
    this.clientHooks.run(hosted.room, client, 'onLeave', () => hosted.room.onLeave(client, consented));
  }

  /** Releases again the seats whose release failed (called each heartbeat). */
  retryReleases(): void {
    if (this.stopping) return;
    this.releases.retry((seatId) => {
      for (const hosted of this.o.rooms.values()) if (hosted.room.seats.has(seatId)) return true;
      return false;
    });
  }

  /** Hands each joined client's messages to its room's onMessage. */
  deliverMessages(hosted: HostedRoom): void {
    const { messages, messageChannels } = this.o;
    const room = hosted.room;
    if (messageChannels.length === 0 || hosted.failed) return;
    if (room.spectatorSlots.size > 0) this.spectators.drain(hosted);
    for (const client of room.seats.values()) {
      if (client.state !== 'joined') continue;
      for (const channel of messageChannels) {
        if (client.state !== 'joined') break; // kicked by one of its messages: its slot is gone
        for (
          let m = messages.receive(client.index, channel);
          m !== null;
          m = messages.receive(client.index, channel)
        ) {
          try {
            this.clientHooks.settle(room, client, 'onMessage', room.onMessage(client, m, channel));
          } catch (error) {
            this.clientHooks.threw(room, client, 'onMessage', error);
          }
          if (hosted.failed) return;
          if (client.state !== 'joined') break; // kicked, or its hook threw
        }
      }
    }
  }

  /** Lapsed reconnection windows, and rooms empty past their grace. */
  sweep(now: number): void {
    // Every frame: the seats are visited only when a window may have lapsed.
    const due = now >= this.nextDeadlineMs;
    if (due) this.nextDeadlineMs = Number.POSITIVE_INFINITY;
    for (const hosted of this.o.rooms.values()) {
      const room = hosted.room;
      if (due)
        for (const client of room.seats.values()) {
          if (client.state !== 'dropped') continue;
          if (client.dropDeadlineMs <= now) this.leave(client, false);
          else if (client.dropDeadlineMs < this.nextDeadlineMs) this.nextDeadlineMs = client.dropDeadlineMs;
        }
      if (room.seats.size > 0) hosted.emptySinceMs = -1;
      else if (hosted.emptySinceMs < 0) hosted.emptySinceMs = now;
      else if (!hosted.checking && now - hosted.emptySinceMs >= room.emptyDisposeMs)
        void this.disposeIfUnreserved(hosted).catch((error: unknown) => this.o.report(error, 'dispose'));
    }
  }

  /** Forgets a room's clients (it is being disposed). */
  endRoom(hosted: HostedRoom): void {
    this.spectators.endRoom(hosted);
    for (const client of [...hosted.room.seats.values()]) {
      if (client.index >= 0 && this.o.messages.server.isConnected(client.index)) {
        this.slotClients[client.index] = null;
        this.slotRooms[client.index] = null;
        this.o.messages.server.disconnect(client.index);
      }
      this.leave(client, false);
    }
  }

  private async admit(index: number, serial: number, clientId: bigint, userData: Uint8Array): Promise<void> {
    const claim = decodeSeatUserData(userData);
    if (claim === null) return this.refuse(index, serial, 'no seat claim');
    const hosted = this.o.rooms.get(claim.roomId);
    if (claim.spectator === true) {
      // No directory seat: the room's own spectator seats (a player's token never gets here).
      const refused = this.spectators.admit(index, clientId, hosted);
      if (refused !== null) this.refuse(index, serial, refused);
      return;
    }
    if (hosted === undefined || hosted.disposed || hosted.failed)
      return this.refuse(index, serial, 'no such room');
    const taken = await this.directory('consumeSeat', () =>
      this.o.directory.consumeSeat(claim.seatId, claim.roomId),
    );
    if (taken === undefined) {
      this.refuse(index, serial, 'directory error');
      return this.untake(hosted, claim.seatId);
    }
    if (!taken.ok) return this.refuse(index, serial, taken.reason);
    const seat = taken.seat;
    const room = hosted.room;
    const known = room.seats.get(seat.seatId);
    // The backend mints a seat's token for the seat's own client id only: a token naming the seat
    // for another client (a stale token of a seat id reserved again, another issuer) is refused.
    const wrongClient = seat.clientId !== clientId.toString();
    if (wrongClient || this.serials[index] !== serial || hosted.disposed) {
      // Refused, or its connection (or the room) ended while the seat was being taken: give the
      // seat back, to its own client when it may still come.
      if (known?.state === 'dropped')
        void this.directory('holdSeat', () =>
          this.o.directory.holdSeat(seat.seatId, Math.max(1, known.dropDeadlineMs - this.o.now())),
        );
      else if (known === undefined && wrongClient && !hosted.disposed)
        void this.directory('holdSeat', () => this.o.directory.holdSeat(seat.seatId, HAND_BACK_MS));
      else if (known === undefined) this.releases.add(seat.seatId);
      if (hosted.disposed) return this.refuse(index, serial, 'no such room');
      return wrongClient ? this.refuse(index, serial, 'wrong client') : undefined;
    }
    if (known !== undefined) {
      if (known.state !== 'dropped') return this.refuse(index, serial, 'already used');
      known.clientId = clientId;
      this.seat(index, hosted, known);
      if (hosted.failed) return; // its channel could not be made: the room is gone
      this.counters.reconnections++;
      this.clientHooks.run(room, known, 'onReconnect', () => room.onReconnect(known));
      return;
    }
    if (room.seats.size >= room.maxClients) {
      this.releases.add(seat.seatId);
      return this.refuse(index, serial, 'full');
    }
    const { seatId, userId, options, auth } = seat;
    const client = new RoomClient(room.roomId, seatId, userId, clientId, options ?? {}, index, auth);
    room.seats.set(seat.seatId, client);
    let verdict: boolean | string;
    try {
      verdict = await room.onAuth(client, client.options);
    } catch (error) {
      // Join options are the player's: a hook throwing on them refuses that player, nobody else.
      this.clientHooks.threw(room, client, 'onAuth', error);
      verdict = 'auth failed';
    }
    const gone = hosted.disposed || hosted.failed;
    if (verdict !== true || this.serials[index] !== serial || gone) {
      room.seats.delete(seat.seatId);
      client.state = 'left';
      this.releases.add(seat.seatId);
      return this.refuse(index, serial, gone ? 'no such room' : 'auth refused');
    }
    this.seat(index, hosted, client);
    if (hosted.failed) return; // its channel could not be made: the room is gone
    this.counters.joins++;
    this.clientHooks.run(room, client, 'onJoin', () => room.onJoin(client, client.options));
  }

  /**
   * A consumeSeat that failed may have taken the seat first (a timeout), and a taken seat never
   * lapses: it is held again — for its dropped client's window, or a token's life (still reserved,
   * it stays so). If nobody's here and the hold fails, it is released (retried until that lands).
   */
  private async untake(hosted: HostedRoom, seatId: string): Promise<void> {
    const known = hosted.room.seats.get(seatId);
    if (known !== undefined && known.state !== 'dropped') return; // seated here: its leave releases it
    const ms = known === undefined ? HAND_BACK_MS : Math.max(1, known.dropDeadlineMs - this.o.now());
    const held = await this.directory('holdSeat', () => this.o.directory.holdSeat(seatId, ms));
    if (held === undefined && known === undefined) this.releases.add(seatId);
  }

  /** Puts a client on its connection: the room's channels attached (a fresh ghost sender: a full resync). */
  private seat(index: number, hosted: HostedRoom, client: RoomClient): void {
    client.index = index;
    client.state = 'joined';
    this.slotClients[index] = client;
    this.slotRooms[index] = hosted;
    hosted.emptySinceMs = -1;
    const room = hosted.room;
    attachRoomChannels(this.o.routes, room.channels, index, (where, error) =>
      this.o.fail(room, where, error),
    );
  }

  private refuse(index: number, serial: number, reason: string): void {
    const refused = this.counters.refused;
    refused[reason] = (refused[reason] ?? 0) + 1;
    if (this.serials[index] === serial && this.o.messages.server.isConnected(index))
      this.o.messages.server.disconnect(index);
  }

  private roomOf(client: RoomClient): HostedRoom | null {
    const hosted = this.o.rooms.get(client.roomId);
    return hosted !== undefined && hosted.room.seats.get(client.seatId) === client ? hosted : null;
  }

  private async disposeIfUnreserved(hosted: HostedRoom): Promise<void> {
    hosted.checking = true;
    const listing = await this.directory('getRoom', () => this.o.directory.getRoom(hosted.room.roomId));
    hosted.checking = false;
    if (hosted.disposed || hosted.room.seats.size > 0) return;
    // Seats reserved and not yet used: their clients are on the way, the room waits another grace.
    if (listing !== undefined && listing !== null && listing.seats > 0) hosted.emptySinceMs = this.o.now();
    else await this.o.dispose(hosted);
  }

  /** A directory call whose failure is counted and reported; undefined when it failed. */
  private async directory<T>(where: string, call: () => Promise<T>): Promise<T | undefined> {
    try {
      return await call();
    } catch (error) {
      this.counters.directoryErrors++;
      this.o.report(error, where);
      return undefined;
    }
  }

  /** What a room-level hook returned: a promise (an async hook) that rejects fails the room too. */
  private settle(room: Room, where: string, result: unknown): void {
    if (isThenable(result))
      Promise.resolve(result).catch((error: unknown) => this.countHookError(room, where, error));
  }

  /** Disconnects a client still joined here (a per-client hook of its threw): it leaves, consented. */
  private eject(client: RoomClient): void {
    if (client.state !== 'joined' || this.roomOf(client) === null) return;
    if (client.index >= 0 && this.o.messages.server.isConnected(client.index))
      this.o.messages.server.disconnect(client.index);
    else this.leave(client, true);
  }

  private countHookError(room: Room, where: string, error: unknown): void {
    this.counters.hookErrors++;
    this.o.fail(room, where, error);
  }
}
