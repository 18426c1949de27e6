/**
 * A game's server on one machine (Node): the rules' simulation (world, replication, inputs, lag
 * compensation) on a fixed clock, served over UDP, WebSocket and WebRTC on one port set, minting
 * its own connect tokens at GET /ghostwire/join.
 *
 *   const server = await GameServer.start(rules, { port: 8080 });
 *   // clients: GameClient.connect(game, server.url) · server.stats() · await server.close()
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { MessageServer } from '../channels/message-endpoints.js';
import type { Recorder } from '../replication/recording/recorder.js';
import { ReplicationServer } from '../replication/replication-server.js';
import { PlayerHandle } from './game-handles.js';
import { GameHost, type GameHostStats, type HostedGame } from './game-host.js';
import { GameInspector } from './game-inspector.js';
import type { GameEntity, GamePlayer, GameRules } from './game-rules.js';
import { GameSimulation, type GameSimulationStats } from './game-simulation.js';
import type { JoinVerdict } from './join-endpoint.js';
import { KillcamQueue, type KillcamResult, type KillcamStats } from './killcam-queue.js';
import { encodeKillcam } from './killcam-wire.js';
import { interestOf, type RelevancyOptions } from './relevancy.js';
import type { GameTransportKind } from './server-transports.js';
import type { SpectatorDelayStats } from './spectator-delay.js';
import type { SpectatorOptions } from './spectator-seats.js';

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
   * Spectators: their own seats, beside the players' (default none). A spectator joins with
   * `GameClient.connect(game, url, { spectate: true })`: no player, no entity, no inputs.
   */
  spectators?: SpectatorOptions;
  /**
   * Relevancy by distance (default none: every client is sent every entity): entity types with a
   * `position` are sent to a client within `radius` of its view, which follows the player's entity,
   * or a spectator's choice (`follow` / `camera`). `bounds` is the world's [minX, minY, maxX, maxY].
   */
  relevancy?: RelevancyOptions;
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
  /**
   * Whether a client asking to join gets a token (default: everyone). False or a reason: 403.
   * `{ userId }` lets it in as that user (1 to 128 characters): `player.userId` in the hooks.
   */
  auth?: (request: IncomingMessage) => JoinVerdict | Promise<JoinVerdict>;
  /** HTTP requests the server does not answer itself (the game's page, its assets); default 404. */
  http?: (request: IncomingMessage, response: ServerResponse) => void;
  /** A hook threw: reported here, never thrown (default console.error). */
  onError?: (error: unknown, where: string) => void;
  /**
   * Milliseconds of kill-cam cutting per tick at most (default 2): `killcam` cuts its clip in
   * slices within this budget each tick, oldest kill-cam first, so a large cut never stalls the
   * game. At least one slice runs each tick whatever it is (0: one slice a tick).
   */
  killcamBudgetMs?: number;
}

/** The simulation's counts (ticks, inputs, hit tests, hook and step errors, messages), the server's own and its kill-cams'. */
export interface GameServerStats extends GameSimulationStats, GameHostStats, KillcamStats {}

export class GameServer {
  /** The simulation under the server (world, replication, inputs, lag compensation): the expert's way in. */
  readonly simulation: GameSimulation;
  readonly messages: MessageServer;
  /** http://host:port: what GameClient.connect takes. */
  readonly url: string;
  /** The port number (TCP for HTTP and WebSocket, UDP for netcode; WebRTC is on UDP port + 1). */
  readonly port: number;
  private inspectorMade: GameInspector | null = null;
  private readonly killcams: KillcamQueue;

  private constructor(
    private readonly host: GameHost<HostedSimulation>,
    killcamBudgetMs: number,
  ) {
    this.simulation = host.hosted.simulation;
    this.messages = host.messages;
    this.url = host.url;
    this.port = host.port;
    this.killcams = new KillcamQueue({
      budgetMs: killcamBudgetMs,
      maxPending: KILLCAM_MAX_PENDING,
      maxBlockBytes: KILLCAM_MAX_BYTES,
      now: () => performance.now(),
      send: (viewer, block) => this.messages.sendBlock(viewer, MESSAGE_CHANNEL, block),
    });
    host.hosted.killcams = this.killcams;
  }

  /** Opens the transports and starts the clock; rejects when a port is taken or a listed transport's package is missing. */
  static async start(rules: GameRules, options: GameServerOptions = {}): Promise<GameServer> {
    const where = 'GameServer.start';
    if (typeof rules !== 'object' || rules === null || typeof rules.hooks !== 'object')
      throw new TypeError(`${where}: rules must be what game.rules(...) returned`);
    const killcamBudgetMs = options.killcamBudgetMs ?? 2;
    if (!(Number.isFinite(killcamBudgetMs) && killcamBudgetMs >= 0))
      throw new RangeError(
        `${where}: killcamBudgetMs must be a number of milliseconds >= 0, got ${killcamBudgetMs}`,
      );
    const host = await GameHost.start(
      where,
      rules.game,
      (slots, onError) =>
        new HostedSimulation(
          options.relevancy !== undefined,
          new GameSimulation(rules, {
            maxPlayers: slots,
            replicate: (replicate) =>
              new ReplicationServer({
                ...replicate,
                maxClients: slots,
                ...interestOf(where, options.relevancy),
              }),
            ...(onError === undefined ? {} : { onError }),
          }),
        ),
      options,
    );
    return new GameServer(host, killcamBudgetMs);
  }

  /** What the server counts. */
  stats(): GameServerStats {
    const c = this.simulation.stats();
    const h = this.host.stats();
    const k = this.killcams.stats();
    return {
      players: h.players,
      spectators: h.spectators,
      spectatorsOverMax: h.spectatorsOverMax,
      spectatorInputsRefused: h.spectatorInputsRefused,
      spectatorMessagesRefused: h.spectatorMessagesRefused,
      spectatorRequestsRefused: h.spectatorRequestsRefused,
      ticks: c.ticks,
      inputsTaken: c.inputsTaken,
      inputsRefused: c.inputsRefused,
      hitTests: c.hitTests,
      hookErrors: c.hookErrors,
      stepErrors: c.stepErrors,
      messages: c.messages,
      spawnsCreated: c.spawnsCreated,
      spawnsVetoed: c.spawnsVetoed,
      claimsMatched: c.claimsMatched,
      claimsRefused: c.claimsRefused,
      claimsDropped: c.claimsDropped,
      tokensIssued: h.tokensIssued,
      joinsRateLimited: h.joinsRateLimited,
      joinsOverAddressCap: h.joinsOverAddressCap,
      joinsWrongOrigin: h.joinsWrongOrigin,
      joinsDenied: h.joinsDenied,
      joinsServerBusy: h.joinsServerBusy,
      connectsOverAddressCap: h.connectsOverAddressCap,
      transports: h.transports,
      datagramsSent: h.datagramsSent,
      datagramsReceived: h.datagramsReceived,
      killcamsPending: k.killcamsPending,
      killcamsSent: k.killcamsSent,
      killcamsDropped: k.killcamsDropped,
      killcamSlices: k.killcamSlices,
      killcamTicks: k.killcamTicks,
      killcamWorstTickMs: k.killcamWorstTickMs,
    };
  }

  /**
   * The spectator delay's held stream (with `spectators.delaySeconds`; else null): ticks and bytes
   * held, the byte bound, ticks applied early because of it, the delayed world's newest tick.
   */
  spectatorDelay(): SpectatorDelayStats | null {
    return this.host.delay?.stats() ?? null;
  }

  /**
   * Starts recording the match (once; later calls return the same recording): the world as a
   * client that owns nothing sees it (no private field, no event sent to one player), captured
   * every tick, the newest `keepSeconds` (default 90) kept in memory with a keyframe every
   * `keyframeSeconds` (default 5). `save({ seconds })` gives a .gwr file; see docs/game.md.
   * After the recording's `stop()`, a call starts a new one.
   */
  record(options: { keepSeconds?: number; keyframeSeconds?: number } = {}): Recorder {
    const replication = this.simulation.replication;
    return (
      replication.recording ??
      replication.record({ tickRate: this.simulation.definition.tickRate, ...options })
    );
  }

  /**
   * Sends `viewer` a kill-cam: the last `seconds` (default 5) of the recording (`record()` first),
   * following `follow` (the killer's entity), as a reliable block its GameClient plays in a second
   * mirror (`onKillcam`). When a player owns `follow`, the others are shown as that player saw
   * them: its interpolation delay behind it (`ReplayPlayer.viewDelayTicks`). With `relevancy`,
   * the clip holds at each tick only what the view following `follow` held then (within the
   * radius of its recorded position, entering and leaving as live; types without a position and
   * `follow` itself always): the victim never sees what the killer could not (Recorder.save's
   * `viewOf`).
   *
   * The span is fixed at the call (the recording up to its newest tick); the clip is cut in
   * slices, `killcamBudgetMs` a tick at most, oldest kill-cam first, and sent when done: on the
   * tick of the call when it fits. Resolves with what became of it, never rejects: sent (its
   * bytes, the ticks it took), or not: 'busy' (8 kill-cams already pending: refused at once),
   * 'viewer-left' (cancelled), 'too-large' (over a block's 256 KiB: give fewer seconds),
   * 'closed'. Throws at the call when not recording or when the viewer is not connected.
   */
  killcam(
    viewer: GamePlayer,
    options: { seconds?: number; follow?: GameEntity | null } = {},
  ): Promise<KillcamResult> {
    const recorder = this.simulation.replication.recording;
    if (recorder === null) throw new Error('GameServer.killcam: not recording: call record() first');
    if (!(viewer instanceof PlayerHandle) || viewer.index < 0)
      throw new RangeError('GameServer.killcam: viewer must be a connected player');
    // What the killer saw: its own entity now, the others its interpolation delay behind.
    const killer = options.follow?.owner;
    const viewDelay =
      killer instanceof PlayerHandle && killer.index >= 0 ? this.simulation.viewDelayTicks(killer.index) : 0;
    // With relevancy, the clip holds only what the followed entity's view held, tick by tick.
    const follow = options.follow?.id;
    const seconds = options.seconds ?? 5;
    if (!(seconds > 0)) throw new RangeError(`GameServer.killcam: seconds must be > 0, got ${seconds}`);
    const cut = recorder.cut({ seconds, ...(follow === undefined ? {} : { viewOf: follow }) });
    return this.killcams.add(
      viewer.index,
      cut,
      (clip) => encodeKillcam(follow ?? -1, clip, viewDelay),
      this.host.hosted.clockTick,
    );
  }

  /**
   * The network inspector (game-inspector.ts): off until something watches. It reveals every
   * client's data: expose it only behind `http` with your own authentication.
   */
  inspector(): GameInspector {
    this.inspectorMade ??= new GameInspector(this.simulation.replication, this.messages);
    return this.inspectorMade;
  }

  /** Tells every client, stops the clock and closes the transports (pending kill-cams resolve 'closed'). Idempotent. */
  close(): Promise<void> {
    this.killcams.close();
    return this.host.close();
  }
}

/** The reliable-ordered channel of the game's messages (game-host.ts), which carries kill-cams. */
const MESSAGE_CHANNEL = 2;
/** The channel's default most bytes a block. */
const KILLCAM_MAX_BYTES = 256 * 1024;
/** Kill-cams pending at most (each holds its span's chunks; the open one's bytes copied). */
const KILLCAM_MAX_PENDING = 8;

/** A GameSimulation as GameHost drives it: each tick simulated, then stamped (and recorded). */
class HostedSimulation implements HostedGame {
  readonly replication: ReplicationServer;
  readonly inputs: GameSimulation['inputs'];
  readonly startTick: number;
  /** The kill-cams being cut (GameServer's): sliced after each tick's capture. */
  killcams: KillcamQueue | null = null;
  /** The clock's tick being run, or the last one run. */
  clockTick: number;

  constructor(
    /** Whether relevancy is by distance: each player's view then follows its entity. */
    private readonly spatial: boolean,
    readonly simulation: GameSimulation,
  ) {
    this.replication = simulation.replication;
    this.inputs = simulation.inputs;
    this.startTick = simulation.world.serverTick;
    this.clockTick = this.startTick;
  }

  get playerCount(): number {
    return this.simulation.players.length;
  }

  join(index: number, userId: string | null): void {
    this.simulation.join(index, userId);
  }

  leave(index: number): void {
    const player = this.simulation.playerAt(index);
    if (player !== null) this.simulation.leave(player);
    this.killcams?.leave(index);
  }

  *playerSlots(): Iterable<number> {
    for (const player of this.simulation.players) yield player.index;
  }

  plays(index: number): boolean {
    return this.simulation.playerAt(index) !== null;
  }

  deliver(index: number, name: string, value: unknown): void {
    const player = this.simulation.playerAt(index);
    if (player !== null) this.simulation.deliver(player, name, value);
  }

  /** Each player's interest view follows its entity (O(players) a tick). */
  private followPlayers(): void {
    for (const player of this.simulation.players) {
      const entity = player.entity;
      if (player.index < 0 || entity === null || !entity.alive) continue;
      const view = this.replication.view(player.index);
      if (view !== null && view.follow !== entity.id) view.follow = entity.id;
    }
  }

  tick(tick: number): void {
    this.clockTick = tick;
    this.simulation.simulate();
    if (this.spatial) this.followPlayers();
    if (this.simulation.world.tick() !== tick)
      throw new Error(`GameServer: the world's tick is not the clock's (${tick})`);
    this.replication.recording?.capture(); // GameServer.record
    this.killcams?.run(tick); // GameServer.killcam: this tick's slices, after the capture
  }
}

export type { KillcamResult, RelevancyOptions };
