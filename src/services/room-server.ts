/**
 * One server process hosting many rooms: a MessageServer on the transports it is given, room types
 * registered by name, rooms created locally or on request over the directory's pub/sub, each ticked
 * at its own rate on the process's timer. Clients join with a seat the backend reserved (the claim
 * rides in the connect token's user data, seat-token.ts); the seating itself is room-seating.ts.
 * The process keeps itself listed in the directory with heartbeats (process-presence.ts).
 */
import { hostname } from 'node:os';
import type { AnyMessageType } from '../channels/message.js';
import { MessageServer } from '../channels/message-endpoints.js';
import { nodeDefaultAead } from '../connection/aead-node-default.js';
import { answerCreateRoom } from './create-room-answer.js';
import type { ProcessAddresses, ProcessLoad, ProcessRecord, ProcessState, Unsubscribe } from './directory.js';
import type { ManagedServer } from './managed-process.js';
import { PROCESS_ID_ENV } from './manager-protocol.js';
import { ProcessPresence, TickTimes } from './process-presence.js';
import { ROOM_DEFAULTS, type Room, type RoomDefaults, type RoomType } from './room.js';
import { roomChannel, routeChannels } from './room-channels.js';
import { RoomFailures } from './room-failures.js';
import { RoomFrameTimers } from './room-frame-timers.js';
import { roomHost } from './room-host.js';
import { hostsRoom, roomListings, seatListing } from './room-listings.js';
import { processChannel } from './room-requests.js';
import { type HostedRoom, RoomSeating } from './room-seating.js';
import {
  type CreateRoomResult,
  checkSettings,
  type RoomServerOptions,
  type RoomServerStats,
} from './room-server-options.js';
import { RoomTickPunctuality } from './room-tick-punctuality.js';
import { randomId } from './seat-token.js';
import { ThrottledReport } from './throttled-report.js';

interface Definition {
  type: RoomType;
  defaults: RoomDefaults;
}

/** Also what the process manager's reportToManager takes (load, state, drain, stop). */
export class RoomServer<M extends AnyMessageType = AnyMessageType> implements ManagedServer {
  readonly processId: string;
  readonly messages: MessageServer<M>;
  private readonly options: RoomServerOptions<M>;
  private readonly definitions = new Map<string, Definition>();
  private readonly hosted = new Map<string, HostedRoom>();
  private readonly seating: RoomSeating;
  private readonly presence: ProcessPresence;
  private readonly tickTimes = new TickTimes();
  private readonly now: () => number;
  private readonly report: (error: unknown, where: string) => void;
  private phase: ProcessState | 'stopped' = 'starting';
  private creating = 0;
  private badRequests = 0;
  private frameErrors = 0;
  private readonly punctuality = new RoomTickPunctuality();
  /** A fault of the shared MessageServer may recur every frame: reported at most once a second. */
  private readonly updateErrors: ThrottledReport;
  private readonly failures: RoomFailures;
  private unsubscribe: Unsubscribe | null = null;
  private readonly timers: RoomFrameTimers;
  private heartbeatTimer: ReturnType<typeof setInterval> | null = null;

  constructor(options: RoomServerOptions<M>) {
    this.options = options;
    // A child of the ProcessManager is listed under the id the manager gave it.
    this.processId = options.processId ?? (process.env[PROCESS_ID_ENV] || randomId());
    this.now = options.nowMs ?? (() => performance.now());
    this.report = options.onError ?? ((error, where) => console.error(`RoomServer ${where}:`, error));
    this.updateErrors = new ThrottledReport(this.report, 'update');
    const maxRooms = options.maxRooms ?? 64;
    if (!Number.isInteger(maxRooms) || maxRooms < 1)
      throw new RangeError(`RoomServer: maxRooms must be an integer >= 1, got ${maxRooms}`);
    for (const [name, value] of [
      ['heartbeatMs', options.heartbeatMs ?? 1000],
      ['ttlMs', options.ttlMs ?? 4000],
    ] as const)
      if (!(value > 0 && value < Number.POSITIVE_INFINITY))
        throw new RangeError(`RoomServer: ${name} must be a positive number of ms, got ${value}`);
    const pollMs = options.handshakePollMs ?? 4;
    if (!(pollMs >= 0 && pollMs < Number.POSITIVE_INFINITY))
      throw new RangeError(`RoomServer: handshakePollMs must be a finite number of ms >= 0, got ${pollMs}`);
    if (options.transports.length === 0) throw new RangeError('RoomServer: give at least one transport');
    const slots = options.maxClients ?? 256;
    const routes = new Map();
    const listed = options.channels ?? [roomChannel('replication')];
    const channels = routeChannels(listed, routes, slots);
    const messageChannels = listed.flatMap((c, i) => (c.kind === 'room' || c.kind === 'custom' ? [] : [i]));
    let seating: RoomSeating | null = null;
    this.messages = new MessageServer<M>({
      protocolId: options.protocolId,
      privateKey: options.privateKey,
      publicAddresses: options.transports.map((t) => t.publicAddress ?? t.transport.localAddress),
      transports: options.transports.map((t) => t.transport),
      maxClients: slots,
      // Node's native ChaCha20-Poly1305 unless told otherwise: services run on Node only.
      aead: options.aead ?? nodeDefaultAead,
      unixTime: options.unixTime,
      factory: options.factory,
      channels,
      packetBudgetBytes: options.packetBudgetBytes,
      reliable: options.reliable,
      onConnect: (index, clientId, userData) => seating?.connected(index, clientId, userData),
      onDisconnect: (index, _clientId, reason) => seating?.disconnected(index, reason),
    });
    seating = new RoomSeating({
      directory: options.directory,
      messages: this.messages as unknown as MessageServer<AnyMessageType>,
      routes,
      messageChannels,
      rooms: this.hosted,
      now: this.now,
      report: this.report,
      dispose: (hosted) => this.dispose(hosted, true),
      fail: (room, where, error) => this.failures.fail(room, where, error),
    });
    this.seating = seating;
    this.failures = new RoomFailures({
      processId: this.processId,
      directory: options.directory,
      rooms: this.hosted,
      report: this.report,
      onRoomFailed: options.onRoomFailed,
      dispose: (hosted) => this.dispose(hosted, true),
      directoryError: () => this.seating.counters.directoryErrors++,
    });
    this.presence = new ProcessPresence(
      options.directory,
      {
        record: () => this.record(),
        load: () => this.load(),
        state: () => this.state(),
        rooms: () => roomListings(this.hosted, this.processId),
        hosts: (roomId) => hostsRoom(this.hosted, roomId),
        seat: (roomId, seatId) => seatListing(this.hosted, this.processId, roomId, seatId, this.now()),
      },
      options.ttlMs ?? 4000,
      this.report,
    );
    this.timers = new RoomFrameTimers(
      {
        frame: () => this.frame(),
        receiveHandshakes: () => {
          try {
            this.receiveHandshakes();
          } catch (error) {
            this.report(error, 'handshakes');
          }
        },
        requestsAccepted: () => this.messages.server.stats().requestsAccepted,
        nowMs: () => this.now(),
      },
      pollMs,
    );
  }

  /** 'starting' until start(), then 'ready', 'draining' (drain()) and 'stopped'. */
  get lifecycle(): ProcessState | 'stopped' {
    return this.phase;
  }

  /** The state the directory and a process manager see (a stopped process last said 'draining'). */
  state(): ProcessState {
    return this.phase === 'stopped' ? 'draining' : this.phase;
  }

  /** What the room server has counted (a snapshot, taken at the call). */
  stats(): Readonly<RoomServerStats> {
    return {
      ...this.seating.counters,
      directoryErrors: this.seating.counters.directoryErrors + this.presence.errors,
      reregistrations: this.presence.reregistrations,
      badRequests: this.badRequests,
      roomsFailed: this.failures.count,
      frameErrors: this.frameErrors,
      ticksOnTime: this.punctuality.ticksOnTime,
      ticksLate: this.punctuality.ticksLate,
    };
  }

  /** Registers a room type by name; `defaults` override ROOM_DEFAULTS. Throws for a name taken or bad defaults. */
  define(name: string, type: RoomType<M>, defaults: Partial<RoomDefaults> = {}): this {
    if (typeof name !== 'string' || name.length === 0)
      throw new RangeError('RoomServer.define: name must be a non-empty string');
    if (this.definitions.has(name)) throw new RangeError(`RoomServer.define: ${name} is defined already`);
    const merged = { ...ROOM_DEFAULTS, ...defaults };
    const problem = checkSettings(merged);
    if (problem !== null) throw new RangeError(`RoomServer.define(${name}): ${problem}`);
    this.definitions.set(name, { type: type as unknown as RoomType, defaults: merged });
    return this;
  }

  /** The rooms hosted now. */
  get rooms(): Room[] {
    return [...this.hosted.values()].map((h) => h.room);
  }

  room(roomId: string): Room | undefined {
    return this.hosted.get(roomId)?.room;
  }

  /** Registers the process (ready), answers create requests, starts its timers. Throws if the directory refuses. */
  async start(): Promise<void> {
    if (this.phase !== 'starting') throw new Error(`RoomServer.start: the process is ${this.phase}`);
    const create = (name: string, options: Record<string, unknown>, isPrivate: boolean) =>
      this.definitions.has(name) ? this.tryCreate(name, options, isPrivate) : null;
    // Listening before it is listed: no request sent once it is found goes unheard.
    this.unsubscribe = await this.options.directory.subscribe(processChannel(this.processId), (message) => {
      void answerCreateRoom(message, this.options.directory, create, this.report).then(
        (wellFormed) => {
          if (!wellFormed) this.badRequests++;
        },
        (error: unknown) => this.report(error, 'create request'),
      );
    });
    this.phase = 'ready';
    try {
      await this.presence.register();
    } catch (error) {
      this.phase = 'starting';
      await this.unsubscribe().catch(() => {});
      this.unsubscribe = null;
      throw error;
    }
    if (this.options.timers !== false) {
      this.heartbeatTimer = setInterval(
        () => void this.heartbeat().catch((error: unknown) => this.report(error, 'heartbeat')),
        this.options.heartbeatMs ?? 1000,
      );
      this.retime();
    }
  }

  /** Rooms, clients and the room tick figures of the last heartbeat period. */
  load(): ProcessLoad {
    return {
      rooms: this.hosted.size,
      clients: this.seating.joinedClients(),
      tickMs: this.tickTimes.meanMs,
      tickMaxMs: this.tickTimes.worstMs,
    };
  }

  /** One heartbeat now (the timer calls it each heartbeatMs); lists the process again if the directory lost it. */
  async heartbeat(): Promise<void> {
    if (this.phase === 'stopped' || this.phase === 'starting') return;
    // The period ends now: the heartbeat carries its figures.
    this.tickTimes.roll();
    this.seating.retryReleases();
    await this.presence.beat();
  }

  /**
   * Creates a room of a registered type here. Throws for a type not defined (the caller's mistake);
   * a refusal (onCreate threw, the process is full or not ready, the directory refused) is a result.
   */
  async createRoom(
    name: string,
    options: Record<string, unknown> = {},
    settings: { private?: boolean } = {},
  ): Promise<CreateRoomResult> {
    if (!this.definitions.has(name))
      throw new RangeError(`RoomServer.createRoom: no room type ${name} is defined`);
    return this.tryCreate(name, options, settings.private ?? false);
  }

  /**
   * One frame at `now` (ms, the server's clock): messages in, rooms' due ticks, packets out,
   * windows and empty rooms. A room whose code or layers throw is disposed at the frame's end (see
   * onRoomFailed); a throw no room owns (the shared MessageServer, its transports) skips the rest of
   * that MessageServer.update, is counted and reported (throttled), and the frame's sweep goes on.
   */
  update(now: number = this.now()): void {
    if (this.phase === 'stopped') return;
    this.failures.inFrame = true;
    try {
      for (const hosted of this.hosted.values()) {
        try {
          this.seating.deliverMessages(hosted);
        } catch (error) {
          this.failures.fail(hosted.room, 'messages', error); // its clients' message queues
        }
        if (!hosted.failed) this.punctuality.advance(hosted.clock, now, hosted.onTick);
      }
      try {
        this.messages.update(now / 1000);
      } catch (error) {
        this.frameErrors++;
        this.updateErrors.add(error, now);
      }
      this.seating.sweep(now);
    } finally {
      this.failures.inFrame = false;
    }
    this.failures.disposeFailed();
  }

  /**
   * Between frames: answers the netcode handshake packets that arrived (a client that connects
   * now is admitted before the next frame, whose tick then sends its first state); everything
   * else waits for the frame, so a frame's order stays as it was. Failures are handled as in a frame.
   */
  receiveHandshakes(now: number = this.now()): void {
    if (this.phase === 'stopped') return;
    this.failures.inFrame = true;
    try {
      this.messages.server.receiveHandshakes(now / 1000);
    } catch (error) {
      this.frameErrors++;
      this.updateErrors.add(error, now);
    } finally {
      this.failures.inFrame = false;
    }
    this.failures.disposeFailed();
  }

  /** Takes no new rooms or seats, waits until every room is empty (or `timeoutMs`), then stops. */
  async drain(timeoutMs = 30_000): Promise<void> {
    if (!Number.isFinite(timeoutMs) || timeoutMs < 0)
      throw new RangeError(`RoomServer.drain: timeoutMs must be a finite number >= 0, got ${timeoutMs}`);
    if (this.phase === 'stopped') return;
    if (this.phase !== 'draining') {
      this.phase = 'draining';
      for (const hosted of this.hosted.values()) hosted.room.lock();
      await this.heartbeat();
    }
    const until = Date.now() + timeoutMs;
    while (this.phase === 'draining' && this.seating.seatedClients() > 0 && Date.now() < until)
      await new Promise((resolve) => setTimeout(resolve, 50));
    await this.stop();
  }

  /** Tells every client (netcode disconnect), disposes the rooms and removes the process from the directory. */
  async stop(): Promise<void> {
    if (this.phase === 'stopped') return;
    this.phase = 'stopped';
    this.timers.stop();
    if (this.heartbeatTimer !== null) clearInterval(this.heartbeatTimer);
    this.heartbeatTimer = null;
    this.seating.stopping = true;
    this.messages.server.stop();
    for (const hosted of [...this.hosted.values()]) await this.dispose(hosted, false);
    await this.presence.stop();
    try {
      await this.unsubscribe?.();
      await this.options.directory.removeProcess(this.processId);
    } catch (error) {
      this.seating.counters.directoryErrors++;
      this.report(error, 'stop');
    }
  }

  private record(): ProcessRecord {
    const addresses: ProcessAddresses = {};
    for (const t of this.options.transports)
      addresses[t.kind] ??= t.publicAddress ?? t.transport.localAddress;
    if (this.options.signalingUrl !== undefined) addresses.signalingUrl = this.options.signalingUrl;
    return {
      processId: this.processId,
      machine: this.options.machine ?? hostname(),
      addresses,
      state: this.state(),
      maxRooms: this.options.maxRooms ?? 64,
      load: this.load(),
      heartbeatAt: 0,
    };
  }

  private async tryCreate(
    name: string,
    options: Record<string, unknown>,
    isPrivate: boolean,
  ): Promise<CreateRoomResult> {
    if (this.phase !== 'ready') return { ok: false, reason: `the process is ${this.phase}` };
    if (this.hosted.size + this.creating >= (this.options.maxRooms ?? 64))
      return { ok: false, reason: 'the process is full' };
    const definition = this.definitions.get(name)!;
    let room: Room;
    try {
      room = new definition.type();
    } catch (error) {
      // The game's constructor threw: no room, as when onCreate throws.
      this.report(error, `room ${name} constructor`);
      return { ok: false, reason: error instanceof Error ? error.message : String(error) };
    }
    Object.assign(room, definition.defaults);
    room.roomId = randomId();
    room.name = name;
    room.isPrivate = isPrivate;
    room.host = roomHost({
      messages: this.messages as unknown as MessageServer<AnyMessageType>,
      directory: this.options.directory,
      seating: this.seating,
      live: (hosted) => this.hosted.has(hosted.roomId) && this.phase !== 'stopped',
      report: this.report,
    });
    this.creating++;
    try {
      try {
        await room.onCreate(options);
      } catch (error) {
        room.host = null;
        return { ok: false, reason: error instanceof Error ? error.message : String(error) };
      }
      const problem = checkSettings(room);
      let listed = problem === null && this.phase === 'ready';
      if (listed) {
        try {
          listed = await this.options.directory.createRoom({
            roomId: room.roomId,
            name,
            processId: this.processId,
            maxClients: room.maxClients,
            locked: room.locked,
            private: room.isPrivate,
            metadata: { ...room.metadata },
          });
        } catch (error) {
          this.seating.counters.directoryErrors++;
          this.report(error, 'createRoom');
          listed = false;
        }
      }
      if (!listed || this.phase !== 'ready') {
        room.host = null;
        await this.callDispose(room);
        if (listed)
          await this.options.directory
            .removeRoom(room.roomId)
            .catch((error) => this.report(error, 'removeRoom'));
        return {
          ok: false,
          reason:
            problem ??
            (this.phase !== 'ready' ? `the process is ${this.phase}` : 'the directory did not list the room'),
        };
      }
      this.hosted.set(room.roomId, this.seating.host(room, this.tickTimes));
      this.retime();
      return { ok: true, room };
    } finally {
      this.creating--;
    }
  }

  private async dispose(hosted: HostedRoom, fromDirectory: boolean): Promise<void> {
    if (hosted.disposed) return;
    hosted.disposed = true;
    this.seating.endRoom(hosted);
    this.hosted.delete(hosted.room.roomId);
    this.retime();
    if (fromDirectory)
      await this.options.directory.removeRoom(hosted.room.roomId).catch((error) => {
        this.seating.counters.directoryErrors++;
        this.report(error, 'removeRoom');
      });
    await this.callDispose(hosted.room);
    hosted.room.host = null;
  }

  private async callDispose(room: Room): Promise<void> {
    try {
      await room.onDispose();
    } catch (error) {
      this.report(error, `room ${room.name} onDispose`);
    }
  }

  /** The frame timer runs at the fastest tick rate hosted (or defined, while none is). */
  private retime(): void {
    if (this.options.timers === false || this.phase === 'stopped' || this.phase === 'starting') return;
    let rate = 0;
    for (const hosted of this.hosted.values()) rate = Math.max(rate, hosted.room.tickRate);
    if (rate === 0) for (const d of this.definitions.values()) rate = Math.max(rate, d.defaults.tickRate);
    this.timers.retime(1000 / Math.max(1, rate || ROOM_DEFAULTS.tickRate));
  }

  /** The timer's frame: nothing thrown may leave a timer callback (it would end the process). */
  private frame(): void {
    try {
      this.update();
    } catch (error) {
      this.frameErrors++;
      this.report(error, 'frame');
    }
  }
}

export type {
  CreateRoomResult,
  RoomFailure,
  RoomServerOptions,
  RoomServerStats,
  RoomServerTransport,
} from './room-server-options.js';
