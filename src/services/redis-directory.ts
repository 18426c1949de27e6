/**
 * The directory kept in a real redis-server, shared by the backends and room servers of a fleet on
 * several machines. Every operation that must be atomic is one Lua script (redis-scripts.ts), timed
 * by the server's clock; process records lapse by Redis expiry when heartbeats stop; sweep() then
 * removes what they owned and announces each once. While Redis is unreachable every call rejects
 * within about `readyWaitMs` with a RedisUnavailableError; when it is back (ioredis reconnects) calls
 * succeed again and subscriptions are renewed. A Redis restart without persistence loses the data:
 * heartbeat() then answers false and the process registers again and restores its seats.
 *
 * Keys (P = keyPrefix, 'gw:' by default; one redis-server, not Redis Cluster):
 *   P procs                  set     ids of registered processes (lapsed ones until swept)
 *   P proc:<id>              hash    machine, addresses (json), state, maxRooms, load (json), heartbeatAt; PX ttl
 *   P proc:<id>:rooms        set     ids of the process's rooms
 *   P rooms                  set     ids of every room
 *   P room:<id>              hash    name, processId, maxClients, locked, private (0/1), metadata (json), createdAt
 *   P room:<id>:seats        zset    seat ids scored by expiresAt (+inf while taken)
 *   P seat:<id>              hash    roomId, processId, userId, clientId, state, expiresAt ('inf' while taken),
 *                                    options and auth (json, when given); PX until expiry + 60 s
 *   P user:<id>:seats        set     seat ids of the user (may name gone ones: reserveSeat drops those);
 *                                    PX as its longest reservation's seat record, none while one is taken
 *   P tickets                hash    ticket id → ticket json (queued tickets)
 *   P ticket-pool            hash    ticket id → its pool
 *   P pool:<pool>            set     ids of the pool's queued tickets
 *   P ticket-result:<id>     string  json of a match or cancellation; PX resultTtlMs (60 s when cancelled)
 *   P peer-session:<id>      hash    n → slots, "0".."n-1" → the user holding it; PX its ttl
 * Channels are published as P + channel (PROCESS_GONE too), so fleets with different prefixes do not meet.
 */
import type { Redis, RedisOptions } from 'ioredis';
import { requireOptional } from '../transport/optional-dependency.js';
import type {
  ConsumeResult,
  Directory,
  PeerSessionCreated,
  PeerSlotResult,
  ProcessLoad,
  ProcessRecord,
  ProcessState,
  ReserveResult,
  RoomListing,
  RoomMetadata,
  RoomQuery,
  Seat,
  Ticket,
  TicketStatus,
  Unsubscribe,
} from './directory.js';
import {
  checkMaxClients,
  checkMaxPerUser,
  checkPeerSession,
  checkProcessState,
  checkRestoredSeat,
  checkSeatLimits,
  checkTtl,
  DEFAULT_EMPTY_PEER_SESSION_TTL_MS,
} from './directory-checks.js';
import { RedisChannels } from './redis-channels.js';
import {
  fieldsOf,
  optionsField,
  processOf,
  roomOf,
  seatOf,
  ticketOf,
  ticketResultOf,
} from './redis-records.js';
import { DIRECTORY_SCRIPTS, type DirectoryScriptName, scriptSource } from './redis-scripts.js';

export interface RedisDirectoryOptions {
  /** redis://host:port/db (or rediss://); overrides host and port in `redis`. */
  url?: string;
  /** ioredis options (host, port, password, tls, ...). Its keyPrefix is ignored: see `keyPrefix`. */
  redis?: RedisOptions;
  /** Put before every key and channel (default 'gw:'), so fleets can share a server. */
  keyPrefix?: string;
  /** How long a call made while Redis is unreachable waits for it before rejecting (default 100 ms). */
  readyWaitMs?: number;
  /** A command without an answer this long rejects (default 2000 ms: a stalled server). */
  commandTimeoutMs?: number;
}

/** Redis cannot be reached, or stopped answering: the call did not (or may not) take effect. */
export class RedisUnavailableError extends Error {
  override name = 'RedisUnavailableError';
}

type ScriptCall = (...args: string[]) => Promise<unknown>;

export class RedisDirectory implements Directory {
  private readonly redis: Redis;
  private readonly subscriber: Redis;
  private readonly channels: RedisChannels;
  private readonly prefix: string;
  private readonly readyWaitMs: number;
  private lastError: Error | null = null;
  private closed = false;

  constructor(options: RedisDirectoryOptions = {}) {
    this.prefix = options.keyPrefix ?? 'gw:';
    this.readyWaitMs = options.readyWaitMs ?? 100;
    const settings: RedisOptions = {
      ...options.redis,
      keyPrefix: undefined,
      commandTimeout: options.commandTimeoutMs ?? options.redis?.commandTimeout ?? 2000,
      // Never queue while disconnected, never resend after a reconnection: a call either reaches
      // Redis now or rejects, and a script that may have run is not run twice.
      enableOfflineQueue: false,
      enableAutoPipelining: options.redis?.enableAutoPipelining ?? true,
      maxRetriesPerRequest: 0,
      autoResendUnfulfilledCommands: false,
      retryStrategy: options.redis?.retryStrategy ?? ((times) => Math.min(50 * times, 500)),
    };
    // ioredis is an optional package: loaded when a Redis directory is made, not with ghostwire/services.
    const { Redis } = requireOptional<typeof import('ioredis')>(
      'ioredis',
      'RedisDirectory (ghostwire/services)',
    );
    this.redis = options.url === undefined ? new Redis(settings) : new Redis(options.url, settings);
    this.subscriber = options.url === undefined ? new Redis(settings) : new Redis(options.url, settings);
    for (const connection of [this.redis, this.subscriber]) {
      // Connection errors are answered by reconnecting; calls report the latest one.
      connection.on('error', (error: Error) => {
        this.lastError = error;
      });
    }
    for (const name of Object.keys(DIRECTORY_SCRIPTS) as DirectoryScriptName[])
      this.redis.defineCommand(name, { numberOfKeys: 0, lua: scriptSource(name) });
    this.channels = new RedisChannels(this.subscriber, this.prefix);
  }

  /** A directory whose connections are ready; rejects (and closes it) if Redis is not reachable in time. */
  static async connect(
    options: RedisDirectoryOptions & { timeoutMs?: number } = {},
  ): Promise<RedisDirectory> {
    const directory = new RedisDirectory(options);
    try {
      await Promise.all([
        directory.untilReady(directory.redis, options.timeoutMs ?? 5000),
        directory.untilReady(directory.subscriber, options.timeoutMs ?? 5000),
      ]);
    } catch (error) {
      await directory.close();
      throw error;
    }
    return directory;
  }

  async registerProcess(record: ProcessRecord, ttlMs: number): Promise<void> {
    checkTtl(ttlMs);
    checkProcessState(record.state, record.maxRooms);
    const { processId, machine, addresses, state, maxRooms, load } = record;
    const addressesJson = JSON.stringify(addresses);
    const loadJson = JSON.stringify(load);
    await this.script(
      'gwRegisterProcess',
      processId,
      machine,
      addressesJson,
      state,
      `${maxRooms}`,
      loadJson,
      ms(ttlMs),
    );
  }

  async heartbeat(
    processId: string,
    state: ProcessState,
    load: ProcessLoad,
    ttlMs: number,
  ): Promise<boolean> {
    checkTtl(ttlMs);
    checkProcessState(state);
    return (await this.script('gwHeartbeat', processId, state, JSON.stringify(load), ms(ttlMs))) === 1;
  }

  async getProcess(processId: string): Promise<ProcessRecord | null> {
    const fields = await this.command(() => this.redis.hgetall(`${this.prefix}proc:${processId}`));
    return processOf(processId, fields);
  }

  async listProcesses(): Promise<ProcessRecord[]> {
    const rows = (await this.script('gwListProcesses')) as [string, unknown][];
    return present(rows.map(([processId, flat]) => processOf(processId, fieldsOf(flat))));
  }

  async removeProcess(processId: string): Promise<void> {
    await this.script('gwRemoveProcess', processId);
  }

  async sweep(): Promise<string[]> {
    return (await this.script('gwSweep')) as string[];
  }

  async createRoom(listing: Omit<RoomListing, 'seats' | 'createdAt'>): Promise<boolean> {
    const { roomId, name, processId, maxClients, locked, metadata } = listing;
    checkMaxClients(maxClients);
    const created = await this.script(
      'gwCreateRoom',
      roomId,
      name,
      processId,
      `${maxClients}`,
      flag(locked),
      flag(listing.private),
      JSON.stringify(metadata),
    );
    return created === 1;
  }

  async updateRoom(
    roomId: string,
    patch: { locked?: boolean; metadata?: RoomMetadata; maxClients?: number },
  ): Promise<boolean> {
    if (patch.maxClients !== undefined) checkMaxClients(patch.maxClients);
    const pairs: string[] = [];
    if (patch.locked !== undefined) pairs.push('locked', flag(patch.locked));
    if (patch.metadata !== undefined) pairs.push('metadata', JSON.stringify(patch.metadata));
    if (patch.maxClients !== undefined) pairs.push('maxClients', `${patch.maxClients}`);
    return (await this.script('gwUpdateRoom', roomId, ...pairs)) === 1;
  }

  async removeRoom(roomId: string): Promise<void> {
    await this.script('gwRemoveRoom', roomId);
  }

  async getRoom(roomId: string): Promise<RoomListing | null> {
    return this.roomsOf(await this.script('gwGetRooms', roomId))[0] ?? null;
  }

  async findRooms(query: RoomQuery): Promise<RoomListing[]> {
    const rooms = this.roomsOf(await this.script('gwFindRooms', query.name ?? '', query.processId ?? ''));
    if (!query.joinable) return rooms;
    return rooms.filter((room) => !room.locked && !room.private && room.seats < room.maxClients);
  }

  async reserveSeat(roomId: string, seat: Parameters<Directory['reserveSeat']>[1]): Promise<ReserveResult> {
    checkTtl(seat.ttlMs);
    checkSeatLimits(seat.limits);
    const { seatId, userId, clientId, limits } = seat;
    const [options, auth] = [optionsField(seat.options), optionsField(seat.auth)];
    const [perRoom, perUser] = limits === undefined ? ['', ''] : [`${limits.perRoom}`, `${limits.perUser}`];
    const args = [roomId, seatId, userId, clientId, ms(seat.ttlMs), options, auth, perRoom, perUser];
    const reply = (await this.script('gwReserveSeat', ...args)) as [string, string?, number?];
    if (reply[0] !== 'ok')
      return { ok: false, reason: reply[0] as Exclude<ReserveResult, { ok: true }>['reason'] };
    const processId = reply[1] as string;
    const expiresAt = reply[2] as number;
    const reserved: Seat = { seatId, roomId, processId, userId, clientId, state: 'reserved', expiresAt };
    if (options !== '') reserved.options = JSON.parse(options) as Record<string, unknown>;
    if (auth !== '') reserved.auth = JSON.parse(auth) as Record<string, unknown>;
    return { ok: true, seat: reserved };
  }

  async consumeSeat(seatId: string, roomId: string): Promise<ConsumeResult> {
    const reply = (await this.script('gwConsumeSeat', seatId, roomId)) as [string, unknown?];
    if (reply[0] !== 'ok')
      return { ok: false, reason: reply[0] as Exclude<ConsumeResult, { ok: true }>['reason'] };
    const taken = seatOf(seatId, fieldsOf(reply[1]));
    // Taken but unreadable (damaged by hand): refused as unknown, and the seat stays taken.
    return taken === null ? { ok: false, reason: 'unknown seat' } : { ok: true, seat: taken };
  }

  async holdSeat(seatId: string, ttlMs: number): Promise<boolean> {
    checkTtl(ttlMs);
    return (await this.script('gwHoldSeat', seatId, ms(ttlMs))) === 1;
  }

  async getSeat(seatId: string): Promise<Seat | null> {
    return seatOf(seatId, fieldsOf(await this.script('gwGetSeat', seatId)));
  }

  async releaseSeat(seatId: string): Promise<void> {
    await this.script('gwReleaseSeat', seatId);
  }

  async restoreSeat(seat: Seat): Promise<boolean> {
    checkRestoredSeat(seat);
    const { seatId, roomId, processId, userId, clientId, state } = seat;
    const expiresAt = state === 'taken' ? 'inf' : ms(seat.expiresAt);
    const restored = await this.script(
      'gwRestoreSeat',
      seatId,
      roomId,
      processId,
      userId,
      clientId,
      state,
      expiresAt,
      optionsField(seat.options),
      optionsField(seat.auth),
    );
    return restored === 1;
  }

  async addTicket(ticket: Ticket): Promise<void> {
    const added = await this.script('gwAddTicket', ticket.ticketId, ticket.pool, JSON.stringify(ticket));
    if (added !== 1) throw new Error(`ticket ${ticket.ticketId} exists`);
  }

  async cancelTicket(ticketId: string): Promise<boolean> {
    return (await this.script('gwCancelTicket', ticketId)) === 1;
  }

  async listTickets(pool?: string): Promise<Ticket[]> {
    const jsons =
      pool === undefined
        ? await this.command(() => this.redis.hvals(`${this.prefix}tickets`))
        : ((await this.script('gwListPool', pool)) as string[]);
    return present(jsons.map(ticketOf));
  }

  async claimTickets(
    ticketIds: string[],
    match: { matchId: string; roomId: string },
    resultTtlMs: number,
  ): Promise<boolean> {
    checkTtl(resultTtlMs);
    if (new Set(ticketIds).size !== ticketIds.length) return false;
    if (ticketIds.length === 0) return true;
    const claimed = await this.script(
      'gwClaimTickets',
      match.matchId,
      match.roomId,
      ms(resultTtlMs),
      ...ticketIds,
    );
    return claimed === 1;
  }

  async ticketStatus(ticketId: string): Promise<TicketStatus> {
    const [kind, json] = (await this.script('gwTicketStatus', ticketId)) as [string?, string?];
    if (kind === 'queued') {
      const ticket = ticketOf(json);
      return ticket === null ? { state: 'unknown' } : { state: 'queued', ticket };
    }
    return (kind === 'result' ? ticketResultOf(json) : null) ?? { state: 'unknown' };
  }

  async createPeerSession(
    sessionId: string,
    maxPeers: number,
    userId: string,
    ttlMs: number,
    maxPerUser = Number.POSITIVE_INFINITY,
  ): Promise<PeerSessionCreated> {
    checkPeerSession(sessionId, userId, maxPeers);
    checkTtl(ttlMs);
    checkMaxPerUser(maxPerUser);
    const cap = Number.isFinite(maxPerUser) ? `${maxPerUser}` : 'inf';
    const created = await this.script(
      'gwCreatePeerSession',
      sessionId,
      `${maxPeers}`,
      userId,
      ms(ttlMs),
      cap,
    );
    return created === 1 ? 'created' : created === 0 ? 'taken' : 'limit';
  }

  async takePeerSlot(sessionId: string, userId: string, ttlMs: number): Promise<PeerSlotResult> {
    checkPeerSession(sessionId, userId);
    checkTtl(ttlMs);
    const [slot, generation, ...holders] = (await this.script(
      'gwTakePeerSlot',
      sessionId,
      userId,
      ms(ttlMs),
    )) as [number, number, ...string[]];
    if (slot === -1) return { ok: false, reason: 'no such session' };
    if (slot === -2) return { ok: false, reason: 'full' };
    return { ok: true, slot, generation, players: holders.map((h) => (h === '' ? null : h)) };
  }

  async leavePeerSession(
    sessionId: string,
    userId: string,
    emptyTtlMs = DEFAULT_EMPTY_PEER_SESSION_TTL_MS,
  ): Promise<boolean> {
    checkPeerSession(sessionId, userId);
    checkTtl(emptyTtlMs);
    return (await this.script('gwLeavePeerSession', sessionId, userId, ms(emptyTtlMs))) === 1;
  }

  async publish(channel: string, message: string): Promise<void> {
    await this.command(() => this.redis.publish(this.prefix + channel, message));
  }

  async subscribe(channel: string, handler: (message: string) => void): Promise<Unsubscribe> {
    this.open();
    if (this.subscriber.status !== 'ready') await this.untilReady(this.subscriber, this.readyWaitMs);
    const unsubscribe = await this.guard(() => this.channels.subscribe(channel, handler));
    return () => this.guard(unsubscribe);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.channels.clear();
    this.redis.disconnect();
    this.subscriber.disconnect();
  }

  /** Runs one of the scripts with the prefix first; see redis-scripts.ts for each one's arguments. */
  private script(name: DirectoryScriptName, ...args: string[]): Promise<unknown> {
    const call = (this.redis as unknown as Record<DirectoryScriptName, ScriptCall>)[name];
    return this.command(() => call.call(this.redis, this.prefix, ...args));
  }

  private async command<T>(run: () => Promise<T>): Promise<T> {
    this.open();
    if (this.redis.status !== 'ready') await this.untilReady(this.redis, this.readyWaitMs);
    return this.guard(run);
  }

  /** Connection failures become RedisUnavailableError; Redis's own errors pass unchanged. */
  private async guard<T>(run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      if (isReplyError(error)) throw error;
      throw new RedisUnavailableError(`Redis directory: Redis unavailable (${(error as Error).message})`, {
        cause: error,
      });
    }
  }

  private untilReady(connection: Redis, waitMs: number): Promise<void> {
    return untilRedisReady(connection, waitMs, () => {
      const why =
        this.lastError === null ? connection.status : `${connection.status}: ${this.lastError.message}`;
      return new RedisUnavailableError(`Redis directory: Redis unavailable (${why})`);
    });
  }

  private open(): void {
    if (this.closed) throw new Error('directory closed');
  }

  private roomsOf(rows: unknown): RoomListing[] {
    return present(
      (rows as [string, unknown, unknown][]).map(([id, flat, seats]) => roomOf(id, fieldsOf(flat), seats)),
    );
  }
}

function present<T>(values: (T | null)[]): T[] {
  return values.filter((value): value is T => value !== null);
}

function flag(value: boolean): string {
  return value ? '1' : '0';
}

/** Whole milliseconds as Redis takes them. */
function ms(value: number): string {
  return `${Math.ceil(value)}`;
}

function isReplyError(error: unknown): boolean {
  return (error as { name?: string } | null)?.name === 'ReplyError';
}

/**
 * Resolves once `connection` is ready; rejects with `unavailable()` after `waitMs` (ioredis queues
 * commands while it reconnects: a caller waits this long at most, then hears why).
 */
export function untilRedisReady(connection: Redis, waitMs: number, unavailable: () => Error): Promise<void> {
  if (connection.status === 'ready') return Promise.resolve();
  return new Promise((resolve, reject) => {
    const done = (error?: Error) => {
      clearTimeout(timer);
      connection.off('ready', onReady);
      if (error === undefined) resolve();
      else reject(error);
    };
    const onReady = () => done();
    const timer = setTimeout(() => done(unavailable()), waitMs);
    connection.on('ready', onReady);
  });
}
