/** What a RoomServer is built with, what it counts, and the checks of a room's settings. */
import type { ChannelConfig } from '../channels/config.js';
import type { AnyMessageType, MessageFactory } from '../channels/message.js';
import type { Aead } from '../connection/aead.js';
import type { ReliableConfig } from '../packet/config.js';
import type { Address } from '../transport/address.js';
import type { DatagramTransport } from '../transport/transport.js';
import type { Directory, ProcessAddresses } from './directory.js';
import type { Room, RoomDefaults } from './room.js';
import type { RoomChannelSlot } from './room-channels.js';
import type { SeatingCounters } from './room-seating.js';

export interface RoomServerTransport {
  /** Which address of the process record it is (the backend lists it in tokens for that kind). */
  kind: Exclude<keyof ProcessAddresses, 'signalingUrl'>;
  transport: DatagramTransport;
  /** The address connect tokens list for it (default its localAddress). */
  publicAddress?: Address;
}

export interface RoomServerOptions<M extends AnyMessageType = AnyMessageType> {
  directory: Directory;
  protocolId: bigint;
  /** The key the backend seals connect tokens with. */
  privateKey: Uint8Array;
  /** The transports served (owned by the caller: stop() does not close them). */
  transports: RoomServerTransport[];
  factory: MessageFactory<M>;
  /** The channels every client lists, room slots among them (default: the ghost section only). */
  channels?: (ChannelConfig | RoomChannelSlot)[];
  processId?: string;
  /** Default os.hostname(). */
  machine?: string;
  /** Client slots of the MessageServer (default 256). */
  maxClients?: number;
  /** Rooms it takes at most (default 64). */
  maxRooms?: number;
  signalingUrl?: string;
  /** Default 1000 ms. */
  heartbeatMs?: number;
  /** The process record's time to live in the directory (default 4000 ms). */
  ttlMs?: number;
  /**
   * How often, between frames, connection requests and challenge responses are answered while
   * joins are under way (a request in the last second; default 4 ms; 0: only at frames). Each of
   * a handshake's two round trips otherwise waits for a frame.
   */
  handshakePollMs?: number;
  /** false: no timers of its own; the caller drives `update(nowMs)`, `receiveHandshakes(nowMs)` and `heartbeat()` (tests). */
  timers?: boolean;
  /** The clock, monotonic milliseconds (default performance.now). */
  nowMs?: () => number;
  /** Default the fastest Node backend: libsodium's WebAssembly, else node:crypto (see aead-node-default.ts). */
  aead?: Aead;
  /** Unix seconds for token expiry (default the system clock). */
  unixTime?: () => number;
  packetBudgetBytes?: number;
  reliable?: Partial<ReliableConfig>;
  /** A room hook threw, or the directory failed: reported here, never thrown (default console.error). */
  onError?(error: unknown, where: string): void;
  /**
   * A room's code or a layer under it (its channels, its replication) threw: the room is being
   * disposed, its clients disconnected; the other rooms go on. Called once per room, after onError.
   */
  onRoomFailed?(failure: RoomFailure): void;
}

/** What onRoomFailed is told: the room, where it threw ('onTick', 'replication', 'channel <name>'). */
export interface RoomFailure {
  roomId: string;
  name: string;
  where: string;
  error: unknown;
}

export type CreateRoomResult = { ok: true; room: Room } | { ok: false; reason: string };

export interface RoomServerStats extends SeatingCounters {
  /** Directory calls that failed. */
  directoryErrors: number;
  reregistrations: number;
  /** Create requests off the bus that were not requests. */
  badRequests: number;
  /** Rooms disposed because their code or a layer under them threw. */
  roomsFailed: number;
  /** Throws of a frame no room owned (the shared MessageServer or transports), reported. */
  frameErrors: number;
  /** Room ticks run within one tick period of their schedule. */
  ticksOnTime: number;
  /** Room ticks run later than that, or dropped by the clock's catch-up bound: a process short of CPU shows here first. */
  ticksLate: number;
}

export /** What is wrong with a room's settings, or null. */
function checkSettings(s: RoomDefaults): string | null {
  if (!Number.isInteger(s.maxClients) || s.maxClients < 1)
    return `maxClients must be an integer >= 1, got ${s.maxClients}`;
  if (!(s.tickRate > 0 && s.tickRate <= 1000))
    return `tickRate must be in (0, 1000] per second, got ${s.tickRate}`;
  if (!(s.reconnectWindowMs >= 0 && s.reconnectWindowMs < Number.POSITIVE_INFINITY))
    return `reconnectWindowMs must be a finite number >= 0, got ${s.reconnectWindowMs}`;
  if (!(s.emptyDisposeMs >= 0 && s.emptyDisposeMs < Number.POSITIVE_INFINITY))
    return `emptyDisposeMs must be a finite number >= 0, got ${s.emptyDisposeMs}`;
  return null;
}
