/**
 * The spectators of a process's rooms. A connection whose token carries a spectator's claim
 * (seat-token.ts: only the backend's spectate route mints one) takes no directory seat and no
 * player seat, and counts toward no room's capacity: its room's onSpectatorJoin admits it or
 * refuses it (a game room's own bounded spectator seats), then the room's channels are made for it
 * as for a player. Its game messages are dropped unread and counted. A room that ends disconnects
 * its spectators; a room with only spectators left is empty (it is disposed after its grace).
 * Nothing from the network throws out of here.
 */
import type { AnyMessageType } from '../channels/message.js';
import type { MessageServer } from '../channels/message-endpoints.js';
import { SpectatorSeats } from '../game/spectator-seats.js';
import { attachRoomChannels, type RoutedChannel } from './room-channels.js';
import type { HostedRoom, SeatingCounters } from './room-seating.js';

/** The most messages read (and dropped) per spectator and channel a frame. */
const MAX_DROPPED_PER_FRAME = 64;

export interface RoomSpectatorsOptions {
  messages: MessageServer<AnyMessageType>;
  routes: Map<string, (RoutedChannel | null)[]>;
  messageChannels: number[];
  tally: SeatingCounters;
  report: (error: unknown, where: string) => void;
  fail: (room: HostedRoom['room'], where: string, error: unknown) => void;
}

export class RoomSpectators {
  /** Per MessageServer slot: the room its spectator watches, or null. */
  private readonly slotRooms: (HostedRoom | null)[];

  constructor(private readonly o: RoomSpectatorsOptions) {
    this.slotRooms = new Array(o.messages.server.maxClients).fill(null);
  }

  /** Whether slot `index` holds a spectator. */
  has(index: number): boolean {
    return this.slotRooms[index] !== null;
  }

  /**
   * A spectator's connection at slot `index` for `hosted` (undefined: no such room here): null
   * when it is admitted and served, else why it is refused (the caller disconnects it).
   */
  admit(index: number, clientId: bigint, hosted: HostedRoom | undefined): string | null {
    if (hosted === undefined || hosted.disposed || hosted.failed) return 'no such room';
    // The backend mints spectators' client ids in their own range (as a GameServer does).
    if (!SpectatorSeats.isSpectator(clientId)) return 'wrong token kind';
    const room = hosted.room;
    let verdict: boolean | string;
    try {
      verdict = room.onSpectatorJoin(index);
    } catch (error) {
      this.o.tally.clientHookErrors++;
      this.o.report(error, `room ${room.name} onSpectatorJoin`);
      verdict = 'spectator refused';
    }
    if (verdict !== true) return typeof verdict === 'string' ? verdict.slice(0, 100) : 'spectator refused';
    this.slotRooms[index] = hosted;
    room.spectatorSlots.add(index);
    this.o.tally.spectators++;
    this.o.tally.spectatorJoins++;
    attachRoomChannels(this.o.routes, room.channels, index, (where, error) =>
      this.o.fail(room, where, error),
    );
    return null;
  }

  /** The spectator at slot `index` is gone (its connection ended). */
  leave(index: number): void {
    const hosted = this.slotRooms[index];
    if (hosted === null) return;
    this.slotRooms[index] = null;
    const room = hosted.room;
    room.spectatorSlots.delete(index);
    this.o.tally.spectators--;
    try {
      room.onSpectatorLeave(index);
    } catch (error) {
      this.o.tally.clientHookErrors++;
      this.o.report(error, `room ${room.name} onSpectatorLeave`);
    }
  }

  /** The room ends: each of its spectators is disconnected (netcode disconnect: the client is told). */
  endRoom(hosted: HostedRoom): void {
    for (const index of [...hosted.room.spectatorSlots]) {
      this.leave(index);
      if (this.o.messages.server.isConnected(index)) this.o.messages.server.disconnect(index);
    }
  }

  /** Drops (and counts) what the room's spectators sent on the message channels: they send none. */
  drain(hosted: HostedRoom): void {
    const { messages, messageChannels, tally } = this.o;
    for (const index of hosted.room.spectatorSlots)
      for (const channel of messageChannels)
        for (let n = 0; n < MAX_DROPPED_PER_FRAME; n++) {
          if (messages.receive(index, channel) === null) break;
          tally.spectatorMessagesDropped++;
        }
  }
}
