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
import { generateConnectToken } from '../connection/connect-token.js';
import { TickClock } from '../latency/tick-clock.js';
import { ReplicationServer } from '../replication/replication-server.js';
import { formatAddress, toAddress } from '../transport/address.js';
import { type GameWiring, wiringOf } from './define-game.js';
import { type GameJoinAnswer, JOIN_PATH, WEBRTC_PATH, WEBSOCKET_PATH } from './game-join.js';
import type { GameRules } from './game-rules.js';
import { GameSimulation, MAX_MESSAGES_PER_TICK } from './game-simulation.js';
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

export interface GameServerStats {
  players: number;
  ticks: number;
  /** Inputs applied, and refused by validateInput or their schema's checks. */
  inputsTaken: number;
  inputsRefused: number;
  hitTests: number;
  hookErrors: number;
  /** Times `step` threw or returned a state outside its schema (the entity kept its state; onError told once a second). */
  stepErrors: number;
  /** Players' messages handed to onMessage. */
  messages: number;
  tokensIssued: number;
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
  private tokens = 0;
  private readonly messageNames: GameWiring['messageNames'];
  private closing: Promise<void> | null = null;

  private constructor(
    rules: GameRules,
    private readonly served: ServedTransports,
    private readonly privateKey: Uint8Array,
    maxPlayers: number,
    onError: GameServerOptions['onError'],
  ) {
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
      onConnect: (index) => simulation.join(index),
      onDisconnect: (index) => {
        const player = simulation.playerAt(index);
        if (player !== null) simulation.leave(player);
      },
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
    for (const name of ['auth', 'http', 'onError'] as const)
      if (options[name] !== undefined && typeof options[name] !== 'function')
        throw new TypeError(`${where}: ${name} must be a function`);
    const privateKey = new Uint8Array(randomBytes(32));
    let server: GameServer | null = null;
    const served = await openServedTransports({
      host: options.host ?? '127.0.0.1',
      port,
      publicAddress: options.publicAddress,
      kinds,
      handle: (request, response) => {
        if (server === null) response.writeHead(503).end();
        else server.serve(request, response, options);
      },
    });
    try {
      server = new GameServer(rules, served, privateKey, maxPlayers, options.onError);
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
      tokensIssued: this.tokens,
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
    this.clock.advance(this.now(), this.onTick);
  }

  private serve(request: IncomingMessage, response: ServerResponse, options: GameServerOptions): void {
    const path = (request.url ?? '/').split('?')[0];
    if (path !== JOIN_PATH) {
      if (options.http !== undefined) options.http(request, response);
      else response.writeHead(404).end();
      return;
    }
    if (request.method !== 'GET') {
      response.writeHead(405, { allow: 'GET' }).end();
      return;
    }
    void this.join(request, response, options.auth).catch(() => {
      if (!response.headersSent) response.writeHead(500).end();
    });
  }

  private async join(
    request: IncomingMessage,
    response: ServerResponse,
    auth: GameServerOptions['auth'],
  ): Promise<void> {
    const allowed = auth === undefined ? true : await auth(request);
    if (allowed !== true) {
      const reason = typeof allowed === 'string' ? allowed : 'not allowed';
      response.writeHead(403, { 'content-type': 'application/json' }).end(JSON.stringify({ error: reason }));
      return;
    }
    const game = this.simulation.definition;
    const token = generateConnectToken({
      protocolId: game.protocolId,
      privateKey: this.privateKey,
      clientId: BigInt(++this.tokens),
      serverAddresses: [toAddress(this.served.publicAddress)],
      now: Math.floor(Date.now() / 1000),
    });
    const kinds = this.served.kinds;
    const answer: GameJoinAnswer = {
      game: game.name,
      token: Buffer.from(token).toString('base64'),
      serverAddress: this.served.publicAddress,
      udp: kinds.includes('udp'),
      websocket: kinds.includes('websocket') ? WEBSOCKET_PATH : null,
      webrtc: kinds.includes('webrtc') ? WEBRTC_PATH : null,
    };
    response
      .writeHead(200, {
        'content-type': 'application/json',
        'cache-control': 'no-store',
        'access-control-allow-origin': '*',
      })
      .end(JSON.stringify(answer));
  }
}
