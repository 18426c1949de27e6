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
 *
 * With `rendezvous` it also runs a RendezvousServer on UDP and gives the backend its address and
 * key, so peer pools (matchmaking.peerPools) hand out peer tokens: a whole peer-to-peer setup in
 * one call. A fleet of peer pools alone needs no room types (and starts no room servers); machines
 * sharing one rendezvous give each backend its address and key (backend.rendezvous) instead.
 */
import { randomBytes } from 'node:crypto';
import type { ChannelConfig } from '../channels/config.js';
import type { AnyMessageType, MessageFactory } from '../channels/message.js';
import type { TransportKind } from '../join/join-answer.js';
import { UdpTransport } from '../transport/udp-transport.js';
import { type BackendOptions, createBackend, type ServedBackend, serveBackend } from './backend.js';
import type { Directory } from './directory.js';
import { EmbeddedDirectory } from './embedded-directory.js';
import {
  checkFleetTransports,
  type FleetTransportOptions,
  type FleetTransports,
  installedTransports,
  openFleetTransports,
} from './fleet-transports.js';
import { type FleetGame, fleetGames } from './game-room.js';
import type { MatchRules } from './match-rules.js';
import { Matchmaker } from './matchmaker.js';
import { RedisDirectory } from './redis-directory.js';
import { RendezvousServer } from './rendezvous-server.js';
import type { RoomDefaults, RoomType } from './room.js';
import type { RoomChannelSlot } from './room-channels.js';
import { createMatchRoom } from './room-placer.js';
import { RoomServer, type RoomServerOptions } from './room-server.js';

/** A room type, alone or with the defaults `RoomServer.define` takes. */
export type FleetRoom<M extends AnyMessageType> =
  | RoomType<M>
  | { type: RoomType<M>; defaults?: Partial<RoomDefaults> };

/**
 * `webSocket`, `webRtc` and `webRtcSignaling` (FleetTransportOptions): the browser transports'
 * own options for every server, e.g. a higher `maxPeersPerAddress` for players behind one NAT, or
 * `remoteIp` behind a reverse proxy.
 */
export interface LocalFleetOptions<M extends AnyMessageType = AnyMessageType> extends FleetTransportOptions {
  /** The room types by name (with `protocolId` and `factory`), or `games`. */
  rooms?: Record<string, FleetRoom<M>>;
  /**
   * A game's rules (game.rules(...)) as room types by name: the game brings the protocol id, the
   * factory and the channels (give none of rooms, protocolId, factory, channels then).
   */
  games?: Record<string, FleetGame>;
  /** The netcode protocol id (required with `rooms`). */
  protocolId?: bigint;
  /** The message factory every client shares (required with `rooms`). */
  factory?: MessageFactory<M>;
  /** The channels every client lists (RoomServer's default: the ghost section only). */
  channels?: (ChannelConfig | RoomChannelSlot)[];
  /** The shared 32-byte connect-token key (default: random, fine for one machine). */
  privateKey?: Uint8Array;
  /** A redis:// URL: the fleet's directory is that Redis (several machines), not an embedded one. */
  redis?: string;
  /** Room servers started in this process (default 1; 0 when there are no room types). */
  servers?: number;
  /**
   * What each server serves, each on a port of its own: 'udp', 'websocket' (browsers connect to
   * ws://<serverAddress>/), 'webrtc' (offers to the seat's signalingUrl). The first is the one
   * matchmaking creates rooms for. Default with `games`: what GameServer serves, UDP plus WebSocket
   * when `ws` is installed plus WebRTC when `node-datachannel` and `hono` are; with `rooms`: ['udp'].
   */
  transports?: TransportKind[];
  /** The address servers and backend listen on (default 127.0.0.1). */
  host?: string;
  /** The backend's port (default 0: any free one). */
  port?: number;
  /**
   * Matchmaking: tickets of `rules` (or per pool) matched into private rooms of type `room`, and
   * tickets of `peerPools` into peer-to-peer sessions (needs `rendezvous`, or backend.rendezvous).
   */
  matchmaking?: {
    room?: string;
    rules?: MatchRules;
    pools?: Record<string, MatchRules>;
    peerPools?: Record<string, MatchRules>;
    /** How often the queue is matched, ms (default 250). */
    intervalMs?: number;
  };
  /** More RoomServer options (heartbeats, ttl, slots...). */
  server?: Partial<Omit<RoomServerOptions<M>, 'directory' | 'transports' | 'factory' | 'protocolId'>>;
  /**
   * Runs a RendezvousServer (UDP on `host`, `port` default 0: any free one; the key is random)
   * that the backend sends peer-to-peer players to (peer pools, /peers).
   */
  rendezvous?: boolean | { port?: number };
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
  /** The rendezvous started with `rendezvous` (its key is the backend's rendezvous key). */
  rendezvous: RendezvousServer | null;
  privateKey: Uint8Array;
  /** Stops the backend, the matchmaker and the servers (their clients are told), then the directory. */
  close(): Promise<void>;
}

type ResolvedFleetOptions<M extends AnyMessageType> = LocalFleetOptions<M> &
  Required<Pick<LocalFleetOptions<M>, 'rooms' | 'protocolId' | 'factory'>>;

/** The options with `games` made room types (and their protocol id, factory, channels); checks either form. */
function withGames<M extends AnyMessageType>(options: LocalFleetOptions<M>): ResolvedFleetOptions<M> {
  if (options.games === undefined) {
    if (
      options.rooms === undefined &&
      options.rendezvous === undefined &&
      options.backend?.rendezvous === undefined
    )
      throw new RangeError('startLocalFleet: give rooms or games (or a rendezvous)');
    if (options.protocolId === undefined || options.factory === undefined)
      throw new RangeError('startLocalFleet: rooms need protocolId and factory');
    return { ...options, rooms: options.rooms ?? {} } as ResolvedFleetOptions<M>;
  }
  for (const name of ['rooms', 'protocolId', 'factory', 'channels'] as const)
    if (options[name] !== undefined)
      throw new RangeError(`startLocalFleet: games bring their own ${name}; give games or ${name}, not both`);
  return { ...options, ...fleetGames(options.games) } as unknown as ResolvedFleetOptions<M>;
}

export async function startLocalFleet<M extends AnyMessageType>(
  given: LocalFleetOptions<M>,
): Promise<LocalFleet<M>> {
  const options = withGames(given);
  const roomTypes = Object.keys(options.rooms).length;
  const wantsRendezvous = options.rendezvous !== undefined && options.rendezvous !== false;
  if (roomTypes === 0 && !wantsRendezvous && options.backend?.rendezvous === undefined)
    throw new RangeError('startLocalFleet: give at least one room type (or a rendezvous)');
  const count = options.servers ?? (roomTypes === 0 ? 0 : 1);
  if (!Number.isInteger(count) || count < (roomTypes === 0 ? 0 : 1))
    throw new RangeError(`servers must be an integer >= ${roomTypes === 0 ? 0 : 1}, got ${count}`);
  const match = options.matchmaking;
  if (
    match !== undefined &&
    (match.rules !== undefined || match.pools !== undefined) &&
    match.room === undefined
  )
    throw new RangeError('startLocalFleet: matchmaking.rules and .pools need matchmaking.room');
  if (match?.peerPools !== undefined && !wantsRendezvous && options.backend?.rendezvous === undefined)
    throw new RangeError('startLocalFleet: matchmaking.peerPools need rendezvous (or backend.rendezvous)');
  // A game's page needs a browser transport: serve what is installed, as GameServer does.
  const kinds = options.transports ?? (given.games !== undefined ? await installedTransports() : ['udp']);
  checkFleetTransports(kinds, options);
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
  let rendezvous: RendezvousServer | null = null;
  let rendezvousTimer: ReturnType<typeof setInterval> | null = null;
  const close = async () => {
    await backend?.close();
    await matchmaker?.stop();
    if (rendezvousTimer !== null) clearInterval(rendezvousTimer);
    rendezvous?.close();
    for (const server of servers) await server.stop();
    for (const transports of opened) await transports.close();
    await directory.close();
  };
  try {
    for (let i = 0; i < count; i++) {
      const transports = await openFleetTransports(kinds, host, options);
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
    let rendezvousKey: Uint8Array | null = null;
    if (wantsRendezvous) {
      const port = typeof options.rendezvous === 'object' ? (options.rendezvous.port ?? 0) : 0;
      const transport = await UdpTransport.open({
        address: host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`,
      });
      rendezvousKey = new Uint8Array(randomBytes(32));
      rendezvous = new RendezvousServer({
        transport,
        protocolId: options.protocolId,
        privateKey: rendezvousKey,
      });
      const server = rendezvous;
      const started = performance.now();
      // Its clock is seconds from start; it wants an update every few ms to 50 ms.
      rendezvousTimer = setInterval(() => server.update((performance.now() - started) / 1000), 10);
      rendezvousTimer.unref();
    }
    if (match !== undefined) {
      const room = match.room;
      matchmaker = new Matchmaker({
        directory,
        ...(match.rules === undefined ? {} : { rules: match.rules }),
        ...(match.pools === undefined ? {} : { pools: match.pools }),
        ...(match.peerPools === undefined ? {} : { peerPools: match.peerPools }),
        ...(room === undefined
          ? {}
          : { onMatch: () => createMatchRoom({ directory, name: room, transport: kinds[0] }) }),
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
        // A room pool's matches are rooms of matchmaking.room: POST /spectate { pool } watches them.
        ...(match?.room === undefined || options.backend?.spectatePools !== undefined
          ? {}
          : {
              spectatePools: roomPools(
                match.room,
                match.rules !== undefined,
                match.pools ?? {},
                match.peerPools ?? {},
              ),
            }),
        ...(rendezvous === null || rendezvousKey === null
          ? {}
          : { rendezvous: { address: rendezvous.localAddress, privateKey: rendezvousKey } }),
      }),
      { hostname: host, ...(options.port === undefined ? {} : { port: options.port }) },
    );
  } catch (error) {
    await close().catch(() => {});
    throw error;
  }
  return { url: backend.url, directory, servers, backend, matchmaker, rendezvous, privateKey, close };
}

/** The room type of each room pool (a named pool, or any pool when default rules are given). */
function roomPools(
  room: string,
  anyPool: boolean,
  pools: Record<string, unknown>,
  peerPools: Record<string, unknown>,
): (pool: string) => string | null {
  return (pool) => (Object.hasOwn(pools, pool) || (anyPool && !Object.hasOwn(peerPools, pool)) ? room : null);
}
