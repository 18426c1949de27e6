/**
 * A room: one authoritative simulation and the clients seated in it, hosted by a RoomServer. A game
 * subclasses Room, overrides the hooks it needs and registers the class by name with
 * `RoomServer.define`. The server calls the hooks (never concurrently for one room) and ticks the
 * room on its own fixed clock; the room's world reaches only its own clients.
 */
import type { CustomChannelConfig } from '../channels/config.js';
import type { AnyMessageType, MessageValue } from '../channels/message.js';
import type { MessageServer } from '../channels/message-endpoints.js';
import { ReplicationServer, type ReplicationServerOptions } from '../replication/replication-server.js';
import type { RoomMetadata } from './directory.js';

/** What `define` may set for a room type; each room may change its own in onCreate. */
export interface RoomDefaults {
  /** Seats at most (default 16). */
  maxClients: number;
  /** Simulation ticks per second (default 20). */
  tickRate: number;
  /** How long a dropped client's seat is kept for its return, ms (default 20 000; 0: never). */
  reconnectWindowMs: number;
  /** How long a room stays with nobody seated (and no reservation pending) before it is disposed, ms (default 5 000). */
  emptyDisposeMs: number;
}

export const ROOM_DEFAULTS: Readonly<RoomDefaults> = Object.freeze({
  maxClients: 16,
  tickRate: 20,
  reconnectWindowMs: 20_000,
  emptyDisposeMs: 5_000,
});

/** joining: connected, its seat being taken · joined · dropped: timed out, seat held · left: gone for good. */
export type RoomClientState = 'joining' | 'joined' | 'dropped' | 'left';

const EMPTY_AUTH: Readonly<Record<string, unknown>> = Object.freeze({});

/** Freezes a JSON value and everything in it (its depth is bounded: session data is ≤ 1 KB). */
function freezeJson<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    for (const inner of Object.values(value)) freezeJson(inner);
    Object.freeze(value);
  }
  return value;
}

/**
 * A player seated in a room. The same object lives across a reconnection (only `index` changes),
 * so a room keys its per-player game state by it (or by `seatId`).
 */
export class RoomClient {
  /** The MessageServer slot of its current connection; -1 while dropped or gone. */
  index: number;
  state: RoomClientState = 'joining';
  /** @internal When a dropped client's window lapses (the server's clock, ms). */
  dropDeadlineMs = 0;
  /**
   * What the backend's verifier said of the player (its session data: a display name, a rank,
   * entitlements…), JSON values; {} when it said nothing. Unlike `options`, the player cannot
   * choose it (it was signed into their session). Frozen, nested values too: a room reads it.
   */
  readonly auth: Readonly<Record<string, unknown>>;

  constructor(
    readonly roomId: string,
    readonly seatId: string,
    /** The authenticated player, as the backend reserved the seat for. */
    readonly userId: string,
    /** The netcode client id of its connection. */
    public clientId: bigint,
    /** The join options the backend took for the seat (unvalidated JSON values). */
    readonly options: Readonly<Record<string, unknown>>,
    index: number,
    auth?: Record<string, unknown>,
  ) {
    this.index = index;
    this.auth = auth === undefined ? EMPTY_AUTH : freezeJson(auth);
  }
}

/** What a room reaches of its server (RoomServer implements it). */
export interface RoomHost {
  readonly messages: MessageServer<AnyMessageType>;
  /** MessageServer client slots: client indices are in [0, slots). */
  readonly slots: number;
  setLocked(room: Room, locked: boolean): void;
  setMetadata(room: Room, metadata: RoomMetadata): void;
  kick(room: Room, client: RoomClient): void;
}

/** A room's message, as `receive` returns it. */
export type RoomMessage<M extends AnyMessageType> = NonNullable<ReturnType<MessageServer<M>['receive']>>;

/**
 * The room a game subclasses. Fields (`maxClients`, `tickRate`, …) hold the type's defaults when
 * onCreate runs, which may change them. Hooks may be async where they return a promise.
 */
export abstract class Room<M extends AnyMessageType = AnyMessageType> {
  /** Set by the server before onCreate. */
  roomId = '';
  /** The room type's registered name. */
  name = '';
  maxClients = ROOM_DEFAULTS.maxClients;
  tickRate = ROOM_DEFAULTS.tickRate;
  reconnectWindowMs = ROOM_DEFAULTS.reconnectWindowMs;
  emptyDisposeMs = ROOM_DEFAULTS.emptyDisposeMs;
  /** Found by id only, never by a query (set by a create request; may be set in onCreate). */
  isPrivate = false;
  /** The current tick (during onTick, the one being simulated). */
  tick = 0;
  /** @internal Seated clients (joined and dropped), by seat. */
  readonly seats = new Map<string, RoomClient>();
  /** @internal */
  host: RoomHost | null = null;
  /** @internal Custom channels this room made, by slot name. */
  readonly channels = new Map<string, CustomChannelConfig>();
  /** @internal The MessageServer slots of this room's spectators now (room-spectators.ts). */
  readonly spectatorSlots = new Set<number>();
  /** @internal Worlds stamped after each onTick. */
  readonly replications: ReplicationServer[] = [];
  private isLocked = false;
  private meta: RoomMetadata = {};

  /** Checks the creation options; throw (an Error whose message is the reason) to refuse the room. */
  onCreate(_options: Record<string, unknown>): void | Promise<void> {}
  /**
   * Admits a client whose seat was taken (`client.auth` holds what the verifier said of the
   * player): false or a reason refuses it (its seat is released); so does a throw.
   */
  onAuth(
    _client: RoomClient,
    _options: Readonly<Record<string, unknown>>,
  ): boolean | string | Promise<boolean | string> {
    return true;
  }
  /** A client joined (its room channels are attached: `replication.view(client.index)` exists). */
  onJoin(_client: RoomClient, _options: Readonly<Record<string, unknown>>): void {}
  /** A client left for good: consented (it disconnected, or was kicked) or not (its window lapsed). */
  onLeave(_client: RoomClient, _consented: boolean): void {}
  /** A client timed out; its seat is held `reconnectWindowMs` for it. */
  onDrop(_client: RoomClient): void {}
  /** A dropped client is back, on a new connection (`client.index` changed) sent the whole world again. */
  onReconnect(_client: RoomClient): void {}
  /** A message from a joined client, before the tick it arrived ahead of. A throw disconnects that client only. */
  onMessage(_client: RoomClient, _message: RoomMessage<M>, _channel: number): void {}
  /** One fixed step of the simulation; the replicated worlds are stamped right after it. A throw fails the room. */
  onTick(_tick: number, _dt: number): void {}
  /**
   * A spectator's connection (a backend spectator token for this room) asks in at slot `index`:
   * true admits it, false or a reason refuses it (so does a throw). Default: refused, 'the room
   * takes no spectators'. A spectator takes no seat, counts toward no capacity and gets no onJoin;
   * the room's channels are made for it after this returns (a game room serves it the world).
   */
  onSpectatorJoin(_index: number): boolean | string {
    return 'the room takes no spectators';
  }
  /** The spectator at slot `index` left (disconnected, or the room is ending). */
  onSpectatorLeave(_index: number): void {}
  /** The room is gone (empty past its grace, or the process stopped). */
  onDispose(): void | Promise<void> {}

  /** Clients connected and joined now. */
  get clients(): RoomClient[] {
    const out: RoomClient[] = [];
    for (const client of this.seats.values()) if (client.state === 'joined') out.push(client);
    return out;
  }

  get locked(): boolean {
    return this.isLocked;
  }

  get metadata(): Readonly<RoomMetadata> {
    return this.meta;
  }

  /** MessageServer client slots: what a ReplicationServer or InputReceiver of this room takes as maxClients. */
  get slots(): number {
    return this.hostOf('slots').slots;
  }

  /** Takes no new seat reservations (reconnections still resume). */
  lock(): void {
    this.isLocked = true;
    this.host?.setLocked(this, true);
  }

  unlock(): void {
    this.isLocked = false;
    this.host?.setLocked(this, false);
  }

  /** Replaces what the room advertises in room listings. */
  setMetadata(metadata: RoomMetadata): void {
    this.meta = { ...metadata };
    this.host?.setMetadata(this, this.meta);
  }

  /**
   * Gives the room a replicated world: a ReplicationServer over the process's MessageServer for
   * this room's clients only, at the process's slot `channel` (default 'replication'). The world is
   * stamped (`world.tick()`) after each onTick, and captured by its recording when it has one
   * (`replication.record({ tickRate })`, docs/replication.md "Recording and replays"). Call it in onCreate.
   */
  replicate(
    options: Omit<ReplicationServerOptions, 'maxClients'>,
    channel = 'replication',
  ): ReplicationServer {
    const replication = new ReplicationServer({ ...options, maxClients: this.slots });
    this.bindChannel(channel, replication.channel);
    this.replications.push(replication);
    return replication;
  }

  /** Serves this room's clients the custom channel `config` at the process's room slot `name`. */
  bindChannel(name: string, config: CustomChannelConfig): void {
    if (this.channels.has(name)) throw new RangeError(`Room.bindChannel: channel ${name} is bound already`);
    this.channels.set(name, config);
  }

  /** Queues a message to one client of this room. */
  send<K extends M>(client: RoomClient, channel: number, type: K, value: MessageValue<K>): number {
    if (client.state !== 'joined' || !this.seats.has(client.seatId))
      throw new RangeError(`Room.send: client ${client.seatId} is not joined to room ${this.roomId}`);
    return (this.hostOf('send').messages as MessageServer<M>).send(client.index, channel, type, value);
  }

  /** Queues a message to every joined client of this room (but `except`); returns how many. */
  broadcast<K extends M>(channel: number, type: K, value: MessageValue<K>, except?: RoomClient): number {
    const messages = this.hostOf('broadcast').messages as MessageServer<M>;
    let count = 0;
    for (const client of this.seats.values()) {
      if (client.state !== 'joined' || client === except) continue;
      messages.send(client.index, channel, type, value);
      count++;
    }
    return count;
  }

  /** Disconnects a client (netcode disconnect); it leaves with consent and its seat is released. */
  kick(client: RoomClient): void {
    if (!this.seats.has(client.seatId))
      throw new RangeError(`Room.kick: ${client.seatId} is not seated here`);
    this.hostOf('kick').kick(this, client);
  }

  private hostOf(where: string): RoomHost {
    if (this.host === null) throw new Error(`Room.${where}: the room is not hosted (yet, or any more)`);
    return this.host;
  }
}

/** A room class `define` registers. */
export type RoomType<M extends AnyMessageType = AnyMessageType> = new () => Room<M>;
