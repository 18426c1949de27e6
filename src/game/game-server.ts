/**
 * A game's server on one machine (Node): the rules' simulation (world, replication, inputs, lag
 * compensation) on a fixed clock, served over UDP, WebSocket and WebRTC on one port set, minting
 * its own connect tokens at GET /ghostwire/join.
 *
 *   const server = await GameServer.start(rules, { port: 8080 });
 *   // clients: GameClient.connect(game, server.url) · server.stats() · await server.close()
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { MessageServer } from '../channels/message-endpoints.js';
import { TickClock } from '../latency/tick-clock.js';
import { ReplicationServer } from '../replication/replication-server.js';
import { formatAddress, parseAddress, toAddress } from '../transport/address.js';
import { type GameWiring, wiringOf } from './define-game.js';
import { JOIN_PATH } from './game-join.js';
import type { GameRules } from './game-rules.js';
import { GameSimulation, type GameSimulationStats, MAX_MESSAGES_PER_TICK } from './game-simulation.js';
import { JoinEndpoint } from './join-endpoint.js';
import { type GameTransportKind, openServedTransports, type ServedTransports } from './server-transports.js';

/** The game's message channel: after the ghost section (0) and the inputs (1). */
const MESSAGE_CHANNEL = 2;

export interface GameServerOptions {
  /** TCP port of HTTP + WebSocket, and UDP port of netcode; WebRTC takes UDP port + 1 (default 8080; 0: a free one). */
  port?: number;
  /** The address to listen on (default 127.0.0.1; '0.0.0.0' serves other machines: give publicAddress then). */
  host?: string;
  /** host:port as clients reach the server, when not the listening address (NAT, cloud). */
  publicAddress?: string;
  /** Players at once at most (default 16). */
  maxPlayers?: number;
  /**
   * Players one client address (an IPv4 address, or an IPv6 /64) may hold at once: its connected
   * players plus the join tokens it was given that have not expired (30 s). More joins get 429
   * (default 4: a few players behind one home router). Also each browser transport's peers per address.
   */
  maxPlayersPerAddress?: number;
  /** Join requests per client address: `burst` at once, then `perSecond` (default 10, then 2 a second); more get 429 with Retry-After. */
  joinRate?: { perSecond?: number; burst?: number };
  /**
   * Origins (as 'https://game.example') whose pages may join, besides the server's own; '*': any
   * page of any site (then any site a player visits can take tokens in the player's name). Default
   * none: pages the server serves itself (`http`), and every client that is not a browser page.
   */
  allowOrigins?: string[] | '*';
  /**
   * The client's IP address, for the per-address limits (default: the socket's remote address).
   * Behind a reverse proxy, read the proxy's header here, or every client is the proxy.
   */
  clientAddress?: (request: IncomingMessage) => string;
  /**
   * What is served (default: UDP, plus WebSocket when `ws` is installed and WebRTC when
   * `node-datachannel`, `hono` and `@hono/node-server` are). A kind listed whose packages are
   * missing fails start with a message naming them.
   */
  transports?: GameTransportKind[];
  /** Whether a client asking to join gets a token (default: everyone). False or a reason: 403. */
  auth?: (request: IncomingMessage) => boolean | string | Promise<boolean | string>;
  /** HTTP requests the server does not answer itself (the game's page, its assets); default 404. */
  http?: (request: IncomingMessage, response: ServerResponse) => void;
  /** A hook threw: reported here, never thrown (default console.error). */
  onError?: (error: unknown, where: string) => void;
}

/** The simulation's counts (ticks, inputs, hit tests, hook and step errors, messages) and the server's own. */
export interface GameServerStats extends GameSimulationStats {
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

export class GameServer {
  /** The simulation under the server (world, replication, inputs, lag compensation): the expert's way in. */
  readonly simulation: GameSimulation;
  readonly messages: MessageServer;
  /** http://host:port: what GameClient.connect takes. */
  readonly url: string;
  /** The port number (TCP for HTTP and WebSocket, UDP for netcode; WebRTC is on UDP port + 1). */
  readonly port: number;
  private readonly clock: TickClock;
  private readonly timer: ReturnType<typeof setInterval>;
  private readonly started = performance.now();
  private readonly join: JoinEndpoint;
  private connectsOverAddressCap = 0;
  private readonly reportError: (error: unknown, where: string) => void;
  private readonly messageNames: GameWiring['messageNames'];
  private closing: Promise<void> | null = null;

  private constructor(
    rules: GameRules,
    private readonly served: ServedTransports,
    privateKey: Uint8Array,
    maxPlayers: number,
    options: GameServerOptions & { maxPlayersPerAddress: number },
  ) {
    const onError = options.onError;
    this.reportError =
      onError ?? ((error, at) => console.error(`ghostwire game ${rules.game.name}: ${at} threw`, error));
    const game = rules.game;
    const wiring = wiringOf('GameServer.start', game);
    this.simulation = new GameSimulation(rules, {
      maxPlayers,
      replicate: (options) => new ReplicationServer({ ...options, maxClients: maxPlayers }),
      ...(onError === undefined ? {} : { onError }),
    });
    const simulation = this.simulation;
    this.messageNames = wiring.messageNames;
    const address = toAddress(served.publicAddress);
    this.messages = new MessageServer({
      protocolId: game.protocolId,
      privateKey,
      publicAddresses: served.transports.map(() => address),
      transports: served.transports,
      maxClients: maxPlayers,
      factory: wiring.factory,
      channels: [simulation.replication.channel, simulation.inputs.channel, { kind: 'reliable-ordered' }],
      onConnect: (index, clientId) => {
        if (!this.join.seats.connected(clientId, this.now())) {
          this.connectsOverAddressCap++;
          this.messages.server.disconnect(index);
          return;
        }
        simulation.join(index);
      },
      onDisconnect: (index, clientId) => {
        this.join.seats.disconnected(clientId, this.now());
        const player = simulation.playerAt(index);
        if (player !== null) simulation.leave(player);
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
    });
    this.clock = new TickClock({ tickRate: game.tickRate, startTick: simulation.world.serverTick });
    this.port = served.port;
    const host = served.http.address();
    const listening = typeof host === 'object' && host !== null ? host.address : '127.0.0.1';
    this.url = `http://${formatAddress(listening === '0.0.0.0' || listening === '::' ? '127.0.0.1' : listening, served.port)}`;
    // Half a tick apart: TickClock runs every due tick, in order, whatever the timer's jitter.
    this.timer = setInterval(() => this.frame(), 500 / game.tickRate);
  }

  /** Opens the transports and starts the clock; rejects when a port is taken or a listed transport's package is missing. */
  static async start(rules: GameRules, options: GameServerOptions = {}): Promise<GameServer> {
    const where = 'GameServer.start';
    if (typeof rules !== 'object' || rules === null || typeof rules.hooks !== 'object')
      throw new TypeError(`${where}: rules must be what game.rules(...) returned`);
    const game = rules.game;
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
    let server: GameServer | null = null;
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
      server = new GameServer(rules, served, privateKey, maxPlayers, { ...options, maxPlayersPerAddress });
    } catch (error) {
      await served.close();
      throw error;
    }
    return server;
  }

  /** What the server counts. */
  stats(): GameServerStats {
    const c = this.simulation.stats();
    let sent = 0;
    let received = 0;
    for (const transport of this.served.transports) {
      sent += transport.stats().sent;
      received += transport.stats().received;
    }
    return {
      players: this.simulation.players.length,
      ticks: c.ticks,
      inputsTaken: c.inputsTaken,
      inputsRefused: c.inputsRefused,
      hitTests: c.hitTests,
      hookErrors: c.hookErrors,
      stepErrors: c.stepErrors,
      messages: c.messages,
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

  /** Each player's messages (channel 2), MAX_MESSAGES_PER_TICK at most, to onMessage. */
  private takeMessages(): void {
    const simulation = this.simulation;
    const names = this.messageNames;
    for (const player of simulation.players) {
      const index = player.index;
      for (let n = 0; n < MAX_MESSAGES_PER_TICK; n++) {
        const message = this.messages.receive(index, MESSAGE_CHANNEL);
        if (message === null) break;
        const name = names.get(message.type);
        const handle = simulation.playerAt(index);
        if (name !== undefined && handle !== null) simulation.deliver(handle, name, message.value);
      }
    }
  }

  /** Seconds since start: the server's clock. */
  private now(): number {
    return (performance.now() - this.started) / 1000;
  }

  private readonly onTick = (tick: number): void => {
    this.takeMessages();
    this.simulation.simulate();
    if (this.simulation.world.tick() !== tick)
      throw new Error(`GameServer: the world's tick is not the clock's (${tick})`);
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
