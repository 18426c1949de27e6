/**
 * The plumbing of a game served on one machine (Node), whatever runs the game behind it: options
 * checks, the transports, the join endpoint, the MessageServer, the fixed clock and its timer,
 * the counts and closing. GameServer hosts a GameSimulation; a zone gateway hosts a mirror of
 * zones' feeds. What is hosted does each tick's work (`HostedGame.tick`) and owns the replication
 * and inputs channels.
 * @internal
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { MessageServer } from '../channels/message-endpoints.js';
import type { InputReceiver } from '../latency/input-receiver.js';
import { TickClock } from '../latency/tick-clock.js';
import type { ReplicationServer } from '../replication/replication-server.js';
import { formatAddress, parseAddress, toAddress } from '../transport/address.js';
import type { GameDefinition } from './define-game.js';
import { wiringOf } from './define-game.js';
import { JOIN_PATH } from './game-join.js';
import type { GameServerOptions } from './game-server.js';
import { MAX_MESSAGES_PER_TICK } from './game-simulation.js';
import { JoinEndpoint } from './join-endpoint.js';
import { interestOf } from './relevancy.js';
import { type GameTransportKind, openServedTransports, type ServedTransports } from './server-transports.js';
import { SpectatorDelay } from './spectator-delay.js';
import { SpectatorSeats, type SpectatorStats } from './spectator-seats.js';

/** The game's message channel: after the ghost section (0) and the inputs (1). */
const MESSAGE_CHANNEL = 2;

/** What a GameHost serves: the game behind the connections. @internal */
export interface HostedGame {
  /** The replication whose channel is channel 0 (ghosts and events). */
  readonly replication: ReplicationServer;
  /** The players' inputs: channel 1. */
  readonly inputs: InputReceiver<unknown>;
  /** The tick the clock starts after (its first tick is startTick + 1). */
  readonly startTick: number;
  /** A connection took slot `index`. */
  join(index: number, userId: string | null): void;
  /** The connection in slot `index` ended. */
  leave(index: number): void;
  /** The slots of the players, in the order their messages are taken each tick. */
  playerSlots(): Iterable<number>;
  /** Whether slot `index` still holds a player. */
  plays(index: number): boolean;
  /** A game message from the player in slot `index` (its name in the game's message list). */
  deliver(index: number, name: string, value: unknown): void;
  /** The clock's tick `tick`: the tick's work (inputs, simulation or mirror, stamping); the host sends packets after. */
  tick(tick: number): void;
  /** Players playing. */
  readonly playerCount: number;
}

/** What a served game counts of its players, spectators, joins and datagrams (GameServer's stats add the simulation's). */
export interface GameHostStats extends SpectatorStats {
  players: number;
  tokensIssued: number;
  /** Join requests refused with 429: over their address's joinRate. */
  joinsRateLimited: number;
  /** Join requests refused with 429: their address already held maxPlayersPerAddress players. */
  joinsOverAddressCap: number;
  /** Join requests refused with 403: from a page of an origin not in allowOrigins. */
  joinsWrongOrigin: number;
  /** Join requests refused with 403 by auth. */
  joinsDenied: number;
  /** Join requests refused with 503: four tokens per player place (at least 64) were live, from many addresses. */
  joinsServerBusy: number;
  /** Connections refused at the handshake: their token's address already held its players (a token reused after its player left). */
  connectsOverAddressCap: number;
  transports: GameTransportKind[];
  /** Datagrams sent and received, over every transport. */
  datagramsSent: number;
  datagramsReceived: number;
}

/** What makes the hosted game, once the host knows its connection slots (players' and spectators'). @internal */
export type HostedGameFactory<H extends HostedGame> = (
  slots: number,
  onError: ((error: unknown, where: string) => void) | undefined,
) => H;

/** Serves a HostedGame: transports, join endpoint, MessageServer, clock. @internal */
export class GameHost<H extends HostedGame = HostedGame> {
  readonly hosted: H;
  readonly messages: MessageServer;
  readonly url: string;
  readonly port: number;
  private readonly clock: TickClock;
  private readonly timer: ReturnType<typeof setInterval>;
  private readonly started = performance.now();
  private readonly join: JoinEndpoint;
  private connectsOverAddressCap = 0;
  private readonly reportError: (error: unknown, where: string) => void;
  private readonly messageNames: ReturnType<typeof wiringOf>['messageNames'];
  /** The spectators' slots and counts (none unless `spectators` is given). */
  readonly spectators: SpectatorSeats;
  /** The delayed world spectators are served with `spectators.delaySeconds`, else null. */
  readonly delay: SpectatorDelay | null;
  private closing: Promise<void> | null = null;

  private constructor(
    game: GameDefinition,
    make: HostedGameFactory<H>,
    private readonly served: ServedTransports,
    privateKey: Uint8Array,
    maxPlayers: number,
    options: GameServerOptions & { maxPlayersPerAddress: number },
    where: string,
  ) {
    const onError = options.onError;
    this.reportError =
      onError ?? ((error, at) => console.error(`ghostwire game ${game.name}: ${at} threw`, error));
    const wiring = wiringOf(where, game);
    this.spectators = new SpectatorSeats(where, options.spectators, maxPlayers);
    const slots = this.spectators.slots;
    this.hosted = make(slots, onError);
    const hosted = this.hosted;
    // Read when a connection's channels are made, just before onConnect: its token says what it is.
    const isSpectator = (index: number) => SpectatorSeats.isSpectator(this.messages.server.clientId(index));
    const live = hosted.replication;
    const delay =
      this.spectators.delaySeconds > 0 && this.spectators.max > 0
        ? new SpectatorDelay(
            live.world,
            wiring.types,
            wiring.events,
            slots,
            Math.round(this.spectators.delaySeconds * game.tickRate),
            this.spectators.delayMaxBytes,
            interestOf(where, options.relevancy).interest,
            { priority: live.channel.priority, budgetBytes: live.channel.budgetBytes },
          )
        : null;
    this.delay = delay;
    // With a delay, spectators' ghost sections come from the delayed world.
    const watched = delay?.replication ?? live;
    this.messageNames = wiring.messageNames;
    const address = toAddress(served.publicAddress);
    this.messages = new MessageServer({
      protocolId: game.protocolId,
      privateKey,
      publicAddresses: served.transports.map(() => address),
      transports: served.transports,
      maxClients: slots,
      factory: wiring.factory,
      channels: [
        delay === null
          ? live.channel
          : {
              ...live.channel,
              create: (index) =>
                isSpectator(index) ? delay.replication.channel.create(index) : live.channel.create(index),
            },
        this.spectators.inputsChannel(hosted.inputs.channel, isSpectator),
        { kind: 'reliable-ordered' },
        this.spectators.controlChannel(watched, isSpectator, () => this.now()),
      ],
      onConnect: (index, clientId) => {
        const spectator = SpectatorSeats.isSpectator(clientId);
        const seats = spectator ? this.join.spectatorSeats : this.join.seats;
        if (!seats.connected(clientId, this.now())) {
          this.connectsOverAddressCap++;
          this.messages.server.disconnect(index);
          return;
        }
        if (spectator) {
          if (!this.spectators.join(index)) this.messages.server.disconnect(index);
          return;
        }
        // The slots beyond maxPlayers are the spectators': a player never takes one.
        if (hosted.playerCount >= maxPlayers) {
          this.messages.server.disconnect(index);
          return;
        }
        hosted.join(index, this.join.seats.userIdOf(clientId));
      },
      onDisconnect: (index, clientId) => {
        if (SpectatorSeats.isSpectator(clientId)) {
          this.join.spectatorSeats.disconnected(clientId, this.now());
          this.spectators.leave(index);
          delay?.replication.removeClient(index);
          return;
        }
        this.join.seats.disconnected(clientId, this.now());
        hosted.leave(index);
      },
    });
    this.join = new JoinEndpoint({
      game,
      privateKey,
      publicAddress: served.publicAddress,
      kinds: served.kinds,
      maxPlayersPerAddress: options.maxPlayersPerAddress,
      // Room for every seat four times over: a token that never connects lives 30 s.
      maxTokens: Math.max(64, maxPlayers * 4),
      joinRate: { perSecond: options.joinRate?.perSecond ?? 2, burst: options.joinRate?.burst ?? 10 },
      allowOrigins: options.allowOrigins ?? [],
      auth: options.auth,
      clientAddress: options.clientAddress ?? ((request) => request.socket.remoteAddress ?? ''),
      now: () => this.now(),
      maxSpectatorsPerAddress: this.spectators.max === 0 ? 0 : this.spectators.maxPerAddress,
    });
    this.clock = new TickClock({ tickRate: game.tickRate, startTick: hosted.startTick });
    this.port = served.port;
    const host = served.http.address();
    const listening = typeof host === 'object' && host !== null ? host.address : '127.0.0.1';
    this.url = `http://${formatAddress(listening === '0.0.0.0' || listening === '::' ? '127.0.0.1' : listening, served.port)}`;
    // Half a tick apart: TickClock runs every due tick, in order, whatever the timer's jitter.
    this.timer = setInterval(() => this.frame(), 500 / game.tickRate);
  }

  /**
   * Checks the options (errors name `where`), opens the transports, makes the hosted game and
   * starts the clock; rejects when a port is taken or a listed transport's package is missing.
   */
  static async start<H extends HostedGame>(
    where: string,
    game: GameDefinition,
    make: HostedGameFactory<H>,
    options: GameServerOptions = {},
  ): Promise<GameHost<H>> {
    wiringOf(where, game);
    const port = options.port ?? 8080;
    if (!Number.isInteger(port) || port < 0 || port > 65534)
      throw new RangeError(`${where}: port must be an integer in [0, 65534], got ${port}`);
    const maxPlayers = options.maxPlayers ?? 16;
    if (!Number.isInteger(maxPlayers) || maxPlayers < 1 || maxPlayers > 4096)
      throw new RangeError(`${where}: maxPlayers must be an integer in [1, 4096], got ${maxPlayers}`);
    if (options.host !== undefined && (typeof options.host !== 'string' || options.host === ''))
      throw new TypeError(`${where}: host must be an address such as '127.0.0.1' or '0.0.0.0'`);
    if (options.publicAddress !== undefined && parseAddress(String(options.publicAddress)) === null)
      throw new RangeError(
        `${where}: publicAddress must be "a.b.c.d:port" or "[ipv6]:port", got ${JSON.stringify(options.publicAddress)}`,
      );
    const kinds = options.transports ?? null;
    if (kinds !== null) {
      if (!Array.isArray(kinds) || kinds.length === 0)
        throw new RangeError(`${where}: transports must list at least one of udp, websocket, webrtc`);
      for (const kind of kinds)
        if (kind !== 'udp' && kind !== 'websocket' && kind !== 'webrtc')
          throw new RangeError(
            `${where}: transports: ${JSON.stringify(kind)} is not udp, websocket or webrtc`,
          );
    }
    const maxPlayersPerAddress = options.maxPlayersPerAddress ?? Math.min(4, maxPlayers);
    if (
      !Number.isInteger(maxPlayersPerAddress) ||
      maxPlayersPerAddress < 1 ||
      maxPlayersPerAddress > maxPlayers
    )
      throw new RangeError(
        `${where}: maxPlayersPerAddress must be an integer in [1, maxPlayers = ${maxPlayers}], got ${maxPlayersPerAddress}`,
      );
    checkJoinRate(where, options.joinRate);
    const origins = options.allowOrigins;
    if (
      origins !== undefined &&
      origins !== '*' &&
      !(Array.isArray(origins) && origins.every((o) => typeof o === 'string' && isOrigin(o)))
    )
      throw new TypeError(
        `${where}: allowOrigins must be '*' or a list of origins such as 'https://game.example' (scheme://host[:port], no path)`,
      );
    for (const name of ['auth', 'http', 'onError', 'clientAddress'] as const)
      if (options[name] !== undefined && typeof options[name] !== 'function')
        throw new TypeError(`${where}: ${name} must be a function`);
    const privateKey = new Uint8Array(randomBytes(32));
    let server: GameHost<H> | null = null;
    const served = await openServedTransports({
      host: options.host ?? '127.0.0.1',
      port,
      publicAddress: options.publicAddress,
      kinds,
      maxPeersPerAddress: maxPlayersPerAddress,
      clientAddress: options.clientAddress,
      handle: (request, response) => {
        if (server === null) response.writeHead(503).end();
        else server.serve(request, response, options);
      },
    });
    try {
      server = new GameHost(
        game,
        make,
        served,
        privateKey,
        maxPlayers,
        { ...options, maxPlayersPerAddress },
        where,
      );
    } catch (error) {
      await served.close();
      throw error;
    }
    return server;
  }

  /** What the host counts. */
  stats(): GameHostStats {
    let sent = 0;
    let received = 0;
    for (const transport of this.served.transports) {
      sent += transport.stats().sent;
      received += transport.stats().received;
    }
    return {
      players: this.hosted.playerCount,
      ...this.spectators.counts,
      ...this.join.counts,
      connectsOverAddressCap: this.connectsOverAddressCap,
      transports: [...this.served.kinds],
      datagramsSent: sent,
      datagramsReceived: received,
    };
  }

  /** Tells every client, stops the clock and closes the transports. Idempotent. */
  close(): Promise<void> {
    if (this.closing !== null) return this.closing;
    clearInterval(this.timer);
    this.closing = (async () => {
      try {
        this.messages.server.stop();
      } finally {
        await this.served.close();
      }
    })();
    return this.closing;
  }

  /** Each player's messages (channel 2), MAX_MESSAGES_PER_TICK at most, to the hosted game. */
  private takeMessages(): void {
    const hosted = this.hosted;
    const names = this.messageNames;
    for (const index of hosted.playerSlots()) {
      for (let n = 0; n < MAX_MESSAGES_PER_TICK; n++) {
        const message = this.messages.receive(index, MESSAGE_CHANNEL);
        if (message === null) break;
        const name = names.get(message.type);
        if (name !== undefined && hosted.plays(index)) hosted.deliver(index, name, message.value);
      }
    }
    // A spectator's messages are never read: dropped and counted, so its queue stays empty.
    for (const index of this.spectators.indices)
      for (let n = 0; n < MAX_MESSAGES_PER_TICK; n++) {
        if (this.messages.receive(index, MESSAGE_CHANNEL) === null) break;
        this.spectators.counts.spectatorMessagesRefused++;
      }
  }

  /** Seconds since start: the host's clock. */
  private now(): number {
    return (performance.now() - this.started) / 1000;
  }

  private readonly onTick = (tick: number): void => {
    this.takeMessages();
    this.hosted.tick(tick);
    this.delay?.tick(tick);
    this.messages.update(this.now());
  };

  /**
   * Every due tick, each followed by a packet to every client (packets in, too): the send rate is
   * the tick rate. Inputs wait for a tick to be taken anyway, so nothing is read between ticks.
   */
  private frame(): void {
    // A throw out of a timer would end the process: reported instead, and the next frame goes on.
    try {
      this.clock.advance(this.now(), this.onTick);
    } catch (error) {
      this.reportError(error, 'tick');
    }
  }

  private serve(request: IncomingMessage, response: ServerResponse, options: GameServerOptions): void {
    const path = (request.url ?? '/').split('?')[0];
    if (path !== JOIN_PATH) {
      if (options.http === undefined) response.writeHead(404).end();
      else {
        // The game's own handler, on what any client sends: a throw is reported, never a crash.
        try {
          options.http(request, response);
        } catch (error) {
          this.reportError(error, 'http');
          if (!response.headersSent) response.writeHead(500).end();
        }
      }
      return;
    }
    if (request.method !== 'GET') {
      response.writeHead(405, { allow: 'GET' }).end();
      return;
    }
    this.join.serve(request, response).catch((error) => {
      this.reportError(error, 'auth or clientAddress');
      if (!response.headersSent) response.writeHead(500).end();
    });
  }
}

/** joinRate's numbers: > 0 and finite when given. */
function checkJoinRate(where: string, rate: GameServerOptions['joinRate']): void {
  if (rate === undefined) return;
  if (typeof rate !== 'object' || rate === null)
    throw new TypeError(`${where}: joinRate must be { perSecond?, burst? }`);
  for (const name of ['perSecond', 'burst'] as const) {
    const value = rate[name];
    if (value !== undefined && !(Number.isFinite(value) && value > 0))
      throw new RangeError(`${where}: joinRate.${name} must be a number > 0, got ${value}`);
  }
}

/** Whether `text` is an origin as a browser sends it: scheme://host[:port], nothing after. */
function isOrigin(text: string): boolean {
  return URL.canParse(text) && new URL(text).origin === text;
}
