/**
 * The arena `npm start` plays (tools/live-arena.ts: wandering orbs, an avatar per player moved only
 * by its inputs, zaps judged by rewinding the orbs) as a room type of a RoomServer: each room runs
 * its own Arena at the room's tick rate (20 Hz by default), replicated to its own clients through
 * the process's 'replication' slot, their inputs taken through its 'inputs' slot.
 */
import { defineMessage, MessageFactory } from '../src/channels/index.js';
import { t } from '../src/index.js';
import { Room, type RoomClient, roomChannel } from '../src/services/index.js';
import { Arena } from '../tools/live-arena.js';

/** The netcode protocol id of the arena's rooms. */
export const ARENA_PROTOCOL_ID = 0x6172656e61n;
/** The room type's registered name. */
export const ARENA_ROOM = 'arena';
/** Seats per room at most: an avatar's `bot` field holds 0..63. */
export const ARENA_MAX_CLIENTS = 64;

/** The process's channels (room slots), in the order every client lists its mirror and input sender. */
export const arenaChannels = [
  roomChannel('replication', { priority: 1 }),
  roomChannel('inputs', { priority: 2 }),
];
/** The arena has no messages of its own; MessageServer wants a factory. */
export const arenaFactory = new MessageFactory([defineMessage('none', t.object({ n: t.uint8() }))]);

/** What every arena room of this process did, summed (the load tester reads it). */
export const arenaTotals = { inputsTaken: 0 };

/** A room running one Arena; its `seed` creation option seeds the orbs (default 1). */
export class ArenaRoom extends Room {
  arena: Arena | null = null;
  /** The MessageServer slot each player's avatar is keyed by (its index when it joined). */
  private readonly seated = new Map<RoomClient, { index: number; bot: number }>();
  private readonly freeBots: number[] = [];

  override onCreate(options: Record<string, unknown>): void {
    const seed = typeof options.seed === 'number' && Number.isInteger(options.seed) ? options.seed >>> 0 : 1;
    if (this.maxClients > ARENA_MAX_CLIENTS)
      throw new Error(`an arena seats at most ${ARENA_MAX_CLIENTS}, not ${this.maxClients}`);
    const arena = new Arena(seed, {
      tickRate: this.tickRate,
      maxClients: this.slots,
      replicate: (replication) => this.replicate(replication),
    });
    this.bindChannel('inputs', arena.inputs.channel);
    this.arena = arena;
    for (let bot = ARENA_MAX_CLIENTS - 1; bot >= 0; bot--) this.freeBots.push(bot);
  }

  override onJoin(client: RoomClient): void {
    this.place(client);
  }

  override onReconnect(client: RoomClient): void {
    this.place(client);
  }

  /** A dropped player's avatar goes at once: a new one waits for it on its return. */
  override onDrop(client: RoomClient): void {
    this.remove(client);
  }

  override onLeave(client: RoomClient): void {
    this.remove(client);
  }

  override onTick(tick: number): void {
    const arena = this.arena;
    if (arena === null) return;
    const before = arena.inputsTaken;
    arena.simulate(tick);
    arenaTotals.inputsTaken += arena.inputsTaken - before;
  }

  private place(client: RoomClient): void {
    const arena = this.arena;
    if (arena === null) return;
    const bot = this.freeBots.pop() ?? 0;
    this.seated.set(client, { index: client.index, bot });
    arena.avatarOf(client.index, bot);
  }

  private remove(client: RoomClient): void {
    const seat = this.seated.get(client);
    if (seat === undefined) return;
    this.seated.delete(client);
    this.arena?.leave(seat.index);
    this.freeBots.push(seat.bot);
  }
}
