/**
 * A zoned world on one machine or several (Node): the world's rectangle cut into zones, each run
 * by a zone thread (ZoneSupervisor), and a gateway that holds every player's one connection and
 * replicates every zone's entities to it (GameHost over a ZoneGateway). Players join and play with
 * the same GameClient as a GameServer's:
 *
 *   const world = await ZonedWorld.start({
 *     rules: new URL('./rules.js', import.meta.url),   // default export: game.rules({...})
 *     bounds: { minX: 0, minY: 0, maxX: 64, maxY: 64 },
 *     columns: 2, rows: 2,
 *   });
 *   // clients: GameClient.connect(game, world.url) · world.stats() · await world.close()
 *
 * With no `redis` the zones keep their state in the main thread (no outside service); with one,
 * in that Redis server, and each machine of the world runs the zones it lists (`runZones`) and
 * a gateway or not: every zone a standby machine lists too is taken over when its holder dies.
 */
import { availableParallelism } from 'node:os';
import { GameHost, type GameHostStats } from '../game/game-host.js';
import type { GameServerOptions } from '../game/game-server.js';
import { EmbeddedZoneStore } from './embedded-zone-store.js';
import { ticksSinceOrigin } from './world-clock.js';
import { feedChannel, inputChannel } from './zone-channels.js';
import { checkZonedRefs } from './zone-event-refs.js';
import type { ZoneFeed } from './zone-feed.js';
import { FeedHub } from './zone-feed-hub.js';
import { ZoneGateway, type ZoneGatewayStats } from './zone-gateway.js';
import { ZoneMap } from './zone-map.js';
import { loadZoneRules } from './zone-rules-module.js';
import { type SupervisedZone, type ZoneEngine, ZoneSupervisor } from './zone-supervisor.js';
import { zoneCodecs } from './zone-wire.js';
import { fingerprintOf, joinRedisWorld } from './zoned-world-redis.js';

/** The feed's channel prefix a world uses unless told otherwise. */
const CHANNEL_PREFIX = 'gw.';

export interface ZonedWorldOptions extends GameServerOptions {
  /**
   * The rules module, which every zone thread imports: its default export (or `rulesExport`) is
   * `game.rules({...})`, or a function `(zone) => game.rules({...})` for rules that must know
   * their zone (what zone 0 alone spawns).
   */
  rules: URL | string;
  /** The rules module's export to use (default 'default'). */
  rulesExport?: string;
  /** The world's rectangle, in the units of the entities' positions. */
  bounds: { minX: number; minY: number; maxX: number; maxY: number };
  /** The zones: `columns` × `rows` equal rectangles, numbered row by row from (minX, minY) (default 2 × 2). */
  columns?: number;
  /** See `columns`. */
  rows?: number;
  /** How far a player sees (world units; default a quarter of the world's smaller side). */
  interestRadius?: number;
  /**
   * How far past a border an entity goes before the next zone takes it (default a quarter of
   * interestRadius), and the least time it then stays (default 1 s): an entity on a border does
   * not change zone back and forth.
   */
  handoff?: { margin?: number; dwellSeconds?: number };
  /** Zone threads at most (default the machine's cores, at most one per zone). */
  threads?: number;
  /** A Redis server's URL: the zones keep their state there (default: in this process). */
  redis?: string;
  /** The zones this process runs (default every zone; with `redis`, others may run on other machines). */
  runZones?: number[];
  /** Whether this process serves players (default true): a machine of zones alone says false. */
  gateway?: boolean;
  /**
   * The world's tick 0, milliseconds since 1970 (default now). With `redis`, the first process of
   * the world keeps its origin there and every later one takes it (giving another rejects).
   */
  originMs?: number;
  /** Ticks between two snapshots of a zone: the most a zone's takeover loses (default 10). */
  snapshotTicks?: number;
  /** A zone's lease, milliseconds: how long a dead zone process goes unnoticed by others (default 2000). */
  leaseTtlMs?: number;
  /** Where the supervisor says what it did (a zone thread restarted, a zone moved). */
  onEvent?: (event: string) => void;
}

export interface ZonedWorldStats {
  /** The gateway's figures (players, joins, datagrams…), null without a gateway. */
  server: GameHostStats | null;
  /** The gateway's mirror of the zones: feeds applied and refused, stamps, inputs routed. */
  gateway: ZoneGatewayStats | null;
  /** Each zone this process runs: its thread, epoch and last report. */
  zones: SupervisedZone[];
  /** Zone threads running now. */
  threads: number;
  /** Zone threads restarted after they ended unasked (their zones taken over). */
  restarts: number;
  /** Zones moved to a thread of their own by the load policy. */
  moves: number;
}

/** A zoned world's processes on this machine: its zone threads and its gateway. */
export class ZonedWorld {
  /** http://host:port: what GameClient.connect takes ('' without a gateway). */
  readonly url: string;
  /** The gateway's port (0 without a gateway). */
  readonly port: number;
  /** The world's zones. */
  readonly map: ZoneMap;
  /** The world's tick 0, milliseconds since 1970: every process of the world counts ticks from it. */
  readonly originMs: number;

  private constructor(
    map: ZoneMap,
    originMs: number,
    private readonly host: GameHost<ZoneGateway> | null,
    private readonly supervisor: ZoneSupervisor | null,
    private readonly closers: (() => Promise<void> | void)[],
  ) {
    this.map = map;
    this.originMs = originMs;
    this.url = host?.url ?? '';
    this.port = host?.port ?? 0;
  }

  /**
   * Starts the zones this process runs (each in a thread, restored from the store if it ran
   * before) and the gateway; resolves once every zone steps and the gateway listens. Throws on
   * bad options (naming them) and rejects when a port is taken or Redis cannot be reached.
   */
  static async start(options: ZonedWorldOptions): Promise<ZonedWorld> {
    const where = 'ZonedWorld.start';
    if (typeof options !== 'object' || options === null)
      throw new TypeError(`${where}: give the world's options`);
    const rulesUrl = options.rules instanceof URL ? options.rules.href : options.rules;
    if (typeof rulesUrl !== 'string' || rulesUrl === '')
      throw new TypeError(
        `${where}: rules must be the URL of the rules module (new URL('./rules.js', import.meta.url))`,
      );
    const columns = options.columns ?? 2;
    const rows = options.rows ?? 2;
    const bounds = options.bounds;
    if (typeof bounds !== 'object' || bounds === null)
      throw new TypeError(`${where}: bounds must be { minX, minY, maxX, maxY }`);
    const map = new ZoneMap({
      ...bounds,
      columns,
      rows,
      cellZones: Array.from({ length: columns * rows }, (_, i) => i),
    });
    const side = Math.min(bounds.maxX - bounds.minX, bounds.maxY - bounds.minY);
    const radius = positive(where, 'interestRadius', options.interestRadius ?? side / 4);
    const margin = positive(where, 'handoff.margin', options.handoff?.margin ?? radius / 4);
    const dwellSeconds = options.handoff?.dwellSeconds ?? 1;
    if (!(dwellSeconds >= 0 && Number.isFinite(dwellSeconds)))
      throw new RangeError(
        `${where}: handoff.dwellSeconds must be a finite number >= 0, got ${dwellSeconds}`,
      );
    const runZones = options.runZones ?? Array.from({ length: map.zoneCount }, (_, zone) => zone);
    for (const zone of runZones)
      if (!Number.isInteger(zone) || zone < 0 || zone >= map.zoneCount)
        throw new RangeError(`${where}: runZones lists ${zone}, not one of the ${map.zoneCount} zones`);
    if (options.redis === undefined && (options.runZones !== undefined || options.gateway === false))
      throw new RangeError(
        `${where}: runZones and gateway: false split a world over machines: give redis too`,
      );

    const makeRules = await loadZoneRules(rulesUrl, options.rulesExport);
    const game = makeRules({ zone: runZones[0] ?? 0, zones: map.zoneCount }).game;
    // Here, not in a zone thread: a game the zones cannot run is refused at the start.
    checkZonedRefs(where, game);
    let originMs = options.originMs ?? Date.now();
    if (options.originMs !== undefined && !(Number.isSafeInteger(originMs) && originMs >= 0))
      throw new RangeError(`${where}: originMs must be milliseconds since 1970, got ${originMs}`);
    const closers: (() => Promise<void> | void)[] = [];
    // This process's gateway index (its players' ids carry it): one per live gateway of the world.
    let gatewayIndex = 0;
    let lostGateway = () => {};
    const close = async () => {
      for (const closer of closers.reverse()) await closer();
    };
    try {
      let engine: ZoneEngine;
      let feed: ZoneFeed;
      if (options.redis === undefined) {
        const store = new EmbeddedZoneStore({ nowMs: Date.now });
        const hub = new FeedHub();
        engine = { kind: 'embedded', store, hub };
        feed = hub;
        closers.push(
          () => store.close(),
          () => hub.close(),
        );
      } else {
        const joined = await joinRedisWorld(where, {
          url: options.redis,
          originMs: options.originMs,
          fingerprint: fingerprintOf(game, bounds, columns, rows),
          gateway: options.gateway !== false,
          leaseTtlMs: options.leaseTtlMs ?? 2000,
          onLost: () => lostGateway(),
          onError: (error) => console.error(`ghostwire ${where}: renewing the gateway's lease failed`, error),
        });
        closers.push(() => joined.close());
        originMs = joined.originMs;
        gatewayIndex = joined.gateway;
        const { RedisZoneFeed } = await import('./redis-zone-feed.js');
        const redisFeed = await RedisZoneFeed.connect({ url: options.redis });
        closers.push(() => redisFeed.close());
        engine = { kind: 'redis', url: options.redis };
        feed = redisFeed;
      }
      let supervisor: ZoneSupervisor | null = null;
      if (runZones.length > 0) {
        const started = await ZoneSupervisor.start({
          rulesUrl,
          ...(options.rulesExport === undefined ? {} : { rulesExport: options.rulesExport }),
          map,
          zones: runZones,
          handoff: { margin, minDwellTicks: Math.round(dwellSeconds * game.tickRate) },
          originMs,
          tickRate: game.tickRate,
          borderRadius: radius,
          engine,
          maxThreads: options.threads ?? Math.max(1, availableParallelism()),
          runner: {
            channelPrefix: CHANNEL_PREFIX,
            ...(options.snapshotTicks === undefined ? {} : { snapshotTicks: options.snapshotTicks }),
            ...(options.leaseTtlMs === undefined ? {} : { leaseTtlMs: options.leaseTtlMs }),
          },
          ...(options.onEvent === undefined ? {} : { onEvent: options.onEvent }),
        });
        supervisor = started;
        closers.push(() => started.close());
      }
      let host: GameHost<ZoneGateway> | null = null;
      if (options.gateway !== false) {
        const codecs = zoneCodecs(game);
        const startTick = Math.max(0, Math.floor(ticksSinceOrigin(Date.now(), originMs, game.tickRate)));
        const started = await GameHost.start(
          where,
          game,
          (maxPlayers, onError) =>
            new ZoneGateway({
              game,
              map,
              gateway: gatewayIndex,
              maxPlayers,
              radius,
              startTick,
              clock: () => Math.floor(ticksSinceOrigin(Date.now(), originMs, game.tickRate)),
              // Two ticks ahead: an input reaches its zone before that zone steps the tick before
              // it, so one that meets a handoff travels with the entity instead of arriving late.
              inputLeadTicks: 2,
              send: (zone, batch) =>
                feed.publish(inputChannel(CHANNEL_PREFIX, zone), codecs.encodeGatewayBatch(batch)),
              ...(onError === undefined ? {} : { onError }),
            }),
          options,
        );
        host = started;
        closers.push(() => started.close());
        lostGateway = () => {
          options.onEvent?.(
            `gateway ${gatewayIndex}: another process holds its index now; it stopped serving`,
          );
          void started.close();
        };
        for (let zone = 0; zone < map.zoneCount; zone++)
          closers.push(
            feed.subscribe(feedChannel(CHANNEL_PREFIX, zone), (bytes) => {
              const read = codecs.decodeFeedBatch(bytes);
              if (read.ok) started.hosted.receive(read.value);
            }),
          );
      }
      return new ZonedWorld(map, originMs, host, supervisor, closers);
    } catch (error) {
      await close();
      throw error;
    }
  }

  stats(): ZonedWorldStats {
    const supervisor = this.supervisor?.stats();
    return {
      server: this.host?.stats() ?? null,
      gateway: this.host?.hosted.stats() ?? null,
      zones: this.supervisor?.list() ?? [],
      threads: supervisor?.threads ?? 0,
      restarts: supervisor?.restarts ?? 0,
      moves: supervisor?.moves ?? 0,
    };
  }

  /** Ends the thread running `zone` at once, as a crash would: its zone is taken over from its snapshot. @internal (tests) */
  crashZone(zone: number): Promise<void> {
    if (this.supervisor === null) throw new RangeError('ZonedWorld.crashZone: this process runs no zone');
    return this.supervisor.crash(zone);
  }

  private closing: Promise<void> | null = null;

  /** Tells every player, stops every zone (each writes a last snapshot) and closes. Idempotent. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      for (const closer of this.closers.reverse()) await closer();
    })();
    return this.closing;
  }
}

function positive(where: string, name: string, value: number): number {
  if (!(value > 0 && Number.isFinite(value)))
    throw new RangeError(`${where}: ${name} must be a finite number > 0, got ${value}`);
  return value;
}
