/**
 * The whole join path in one call, for one machine or for one machine of several: a directory
 * (EmbeddedDirectory, or RedisDirectory when given `redis`), room servers in this process serving
 * UDP, WebSocket and / or WebRTC (fleet-transports.ts), the HTTP backend that mints their connect
 * tokens and, when asked, a matchmaker behind it.
 *
 *   const fleet = await startLocalFleet({ rooms: { arena: Arena }, protocolId, factory });
 *   // fleet.url: what BackendClient talks to · await fleet.close()
 *
 * Machines sharing one Redis each run their own startLocalFleet({ redis, privateKey, ... }) with the
 * same key and session secret: any backend seats a player on any machine's servers.
 */
import { randomBytes } from 'node:crypto';
import type { ChannelConfig } from '../channels/config.js';
import type { AnyMessageType, MessageFactory } from '../channels/message.js';
import type { TransportKind } from '../join/join-answer.js';
import { type BackendOptions, createBackend, type ServedBackend, serveBackend } from './backend.js';
import type { Directory } from './directory.js';
import { EmbeddedDirectory } from './embedded-directory.js';
import { checkFleetTransports, type FleetTransports, openFleetTransports } from './fleet-transports.js';
import type { MatchRules } from './match-rules.js';
import { Matchmaker } from './matchmaker.js';
import { RedisDirectory } from './redis-directory.js';
import type { RoomDefaults, RoomType } from './room.js';
import type { RoomChannelSlot } from './room-channels.js';
import { createMatchRoom } from './room-placement.js';
import { RoomServer, type RoomServerOptions } from './room-server.js';

/** A room type, alone or with the defaults `RoomServer.define` takes. */
export type FleetRoom<M extends AnyMessageType> =
  | RoomType<M>
  | { type: RoomType<M>; defaults?: Partial<RoomDefaults> };

export interface LocalFleetOptions<M extends AnyMessageType = AnyMessageType> {
  /** The room types by name. */
  rooms: Record<string, FleetRoom<M>>;
  protocolId: bigint;
  factory: MessageFactory<M>;
  /** The channels every client lists (RoomServer's default: the ghost section only). */
  channels?: (ChannelConfig | RoomChannelSlot)[];
  /** The shared 32-byte connect-token key (default: random, fine for one machine). */
  privateKey?: Uint8Array;
  /** A redis:// URL: the fleet's directory is that Redis (several machines), not an embedded one. */
  redis?: string;
  /** Room servers started in this process (default 1). */
  servers?: number;
  /**
   * What each server serves, each on a port of its own (default ['udp']): 'websocket' (browsers
   * connect to ws://<serverAddress>/), 'webrtc' (offers to the seat's signalingUrl). The first is
   * the one matchmaking creates rooms for.
   */
  transports?: TransportKind[];
  /** The address servers and backend listen on (default 127.0.0.1). */
  host?: string;
  /** The backend's port (default 0: any free one). */
  port?: number;
  /** Matchmaking: tickets of `rules` (or per pool) matched into private rooms of type `room`. */
  matchmaking?: {
    room: string;
    rules?: MatchRules;
    pools?: Record<string, MatchRules>;
    /** How often the queue is matched, ms (default 250). */
    intervalMs?: number;
  };
  /** More RoomServer options (heartbeats, ttl, slots...). */
  server?: Partial<Omit<RoomServerOptions<M>, 'directory' | 'transports' | 'factory' | 'protocolId'>>;
  /** More backend options (verifier, lifetimes, rate limit...). */
  backend?: Partial<Omit<BackendOptions, 'directory' | 'privateKey' | 'protocolId' | 'matchmaker'>>;
}

export interface LocalFleet<M extends AnyMessageType = AnyMessageType> {
  /** The backend's base URL, "http://host:port". */
  url: string;
  directory: Directory;
  servers: RoomServer<M>[];
  backend: ServedBackend;
  matchmaker: Matchmaker | null;
  privateKey: Uint8Array;
  /** Stops the backend, the matchmaker and the servers (their clients are told), then the directory. */
  close(): Promise<void>;
}

export async function startLocalFleet<M extends AnyMessageType>(
  options: LocalFleetOptions<M>,
): Promise<LocalFleet<M>> {
  const count = options.servers ?? 1;
  if (!Number.isInteger(count) || count < 1)
    throw new RangeError(`servers must be an integer >= 1, got ${count}`);
  if (Object.keys(options.rooms).length === 0)
    throw new RangeError('startLocalFleet: give at least one room type');
  const kinds = options.transports ?? ['udp'];
  checkFleetTransports(kinds);
  const host = options.host ?? '127.0.0.1';
  const privateKey = options.privateKey ?? new Uint8Array(randomBytes(32));
  const directory: Directory =
    options.redis === undefined
      ? new EmbeddedDirectory()
      : await RedisDirectory.connect({ url: options.redis });
  const servers: RoomServer<M>[] = [];
  const opened: FleetTransports[] = [];
  let backend: ServedBackend | null = null;
  let matchmaker: Matchmaker | null = null;
  const close = async () => {
    await backend?.close();
    await matchmaker?.stop();
    for (const server of servers) await server.stop();
    for (const transports of opened) await transports.close();
    await directory.close();
  };
  try {
    for (let i = 0; i < count; i++) {
      const transports = await openFleetTransports(kinds, host);
      opened.push(transports);
      const server = new RoomServer<M>({
        ...options.server,
        directory,
        protocolId: options.protocolId,
        privateKey,
        factory: options.factory,
        transports: transports.served,
        ...(transports.signalingUrl === undefined ? {} : { signalingUrl: transports.signalingUrl }),
        ...(options.channels === undefined ? {} : { channels: options.channels }),
      });
      for (const [name, room] of Object.entries(options.rooms)) {
        if (typeof room === 'function') server.define(name, room);
        else server.define(name, room.type, room.defaults);
      }
      servers.push(server);
      await server.start();
    }
    const match = options.matchmaking;
    if (match !== undefined) {
      matchmaker = new Matchmaker({
        directory,
        ...(match.rules === undefined ? {} : { rules: match.rules }),
        ...(match.pools === undefined ? {} : { pools: match.pools }),
        onMatch: () => createMatchRoom({ directory, name: match.room, transport: kinds[0] }),
      });
      matchmaker.start(match.intervalMs ?? 250);
    }
    backend = await serveBackend(
      createBackend({
        ...options.backend,
        directory,
        privateKey,
        protocolId: options.protocolId,
        ...(matchmaker === null ? {} : { matchmaker }),
      }),
      { hostname: host, ...(options.port === undefined ? {} : { port: options.port }) },
    );
  } catch (error) {
    await close().catch(() => {});
    throw error;
  }
  return { url: backend.url, directory, servers, backend, matchmaker, privateKey, close };
}
