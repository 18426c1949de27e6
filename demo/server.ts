/**
 * The demo game's server: a GameServer running the demo's rules (demo/rules.ts) over UDP, WebSocket
 * and WebRTC on one port set, which also serves the page, its bundled script and the network
 * dashboard on its HTTP port (GET /zones answers null: no zone borders to draw); a few bots of
 * the server's own (demo/bots.ts, over UDP) keep the arena alive with one player.
 */
import { GameServer, type GameServerStats, type Recorder } from '../src/node.js';
import { demoServeOptions, joinDemoBots } from './bots.js';
import { buildDemoAssets } from './client-bundle.js';
import { arena } from './game.js';
import { startDemoGamer } from './gamer.js';
import { serveInspector } from './inspector-routes.js';
import { demoHttp, sendDemo } from './page-routes.js';
import { REPLAY_KEEP_SECONDS, serveReplay } from './replay-routes.js';
import { demoRules, type ZapCount } from './rules.js';
import { DemoStats } from './stats.js';
import { buildDashboardAssets, serveStats } from './stats-routes.js';

export interface DemoServerOptions {
  /** Where to listen (default 127.0.0.1); 0.0.0.0 serves other machines (give publicAddress then). */
  host?: string;
  /** The HTTP, WebSocket and UDP port; WebRTC takes the next UDP port (default 8080; 0: any free one). */
  port?: number;
  /** The host:port connect tokens name, when it is not the listening address. */
  publicAddress?: string;
  /** Serve WebRTC (default true). */
  webrtc?: boolean;
  /** The server's own bots (default 4, at most 16). */
  bots?: number;
  /** The orbs' seed (default: random). */
  seed?: number;
}

/** A player (a page, not a bot) as the server sees it. */
export interface PlayerStatus {
  clientIndex: number;
  /** Its avatar's entity id (what its page calls `avatar`). */
  avatar: number;
  place: { x: number; y: number; score: number } | null;
  /** Its inputs consumed (one per server tick), repeated for want of one, and received. */
  inputsTaken: number;
  inputsStarved: number;
  inputsReceived: number;
}

export interface DemoStatus {
  /** The GameServer's figures (players counts the bots too). */
  server: GameServerStats;
  /** Bots connected now. */
  bots: number;
  players: PlayerStatus[];
  /** Zaps judged (lag-compensated) and those that hit an orb, over every player. */
  zaps: ZapCount;
}

export interface DemoServer {
  /** The page's URL: http://host:port/ */
  readonly url: string;
  readonly game: GameServer;
  status(): DemoStatus;
  close(): Promise<void>;
}

/** Starts the demo (builds the page's scripts first); resolves once listening with its bots connected. */
export async function startDemoServer(options: DemoServerOptions = {}): Promise<DemoServer> {
  // The page's scripts build while the embedded database opens (about 2 s each).
  const [assets, dashboard, gamer] = await Promise.all([
    buildDemoAssets(),
    buildDashboardAssets(),
    startDemoGamer(arena.protocolId),
  ]);
  const zaps: ZapCount = { zaps: 0, hits: 0 };
  let stats: DemoStats | null = null;
  let recording: Recorder | null = null;
  const rules = demoRules(
    options.seed ?? (Math.random() * 2 ** 32) >>> 0,
    zaps,
    (ms) => stats?.timed(ms),
    gamer.hooks,
  );
  let inspected: GameServer | null = null;
  const http = demoHttp(
    assets,
    (path, response, query) => {
      // No zones: the page draws no borders (a 404 would be a console error in the page).
      if (serveReplay(path, response, recording)) return true;
      if (path === '/zones') sendDemo(response, 'application/json', 'null');
      else if (path.startsWith('/inspect/'))
        return inspected !== null && serveInspector(path, query, response, inspected);
      else return stats !== null && serveStats(path, response, stats, dashboard);
      return true;
    },
    (request, response) => gamer.serve(request, response),
  );
  const count = Math.min(16, Math.max(0, options.bots ?? 4));
  const game = await GameServer.start(rules, {
    ...demoServeOptions(options, count),
    // The page with ?spectate watches without an avatar (demo/spectator.ts).
    spectators: { max: 32 },
    http,
    auth: (request) => gamer.auth(request),
  }).catch(async (error) => {
    await gamer.close();
    throw error;
  });
  recording = game.record({ keepSeconds: REPLAY_KEEP_SECONDS });
  inspected = game;
  // Each bot is an account of its own ("Bot n"), so the leaderboard has players from the start.
  const sessions = await gamer.botSessions(count).catch(async (error) => {
    await Promise.all([game.close(), gamer.close()]);
    throw error;
  });
  const bots = await joinDemoBots(game.url, count, options, () => game.close(), sessions);
  stats = new DemoStats({ server: game, bots: () => bots.numbers() });
  let closing: Promise<void> | null = null;
  return {
    url: `${game.url}/`,
    game,
    status: () => {
      const botIds = bots.numbers();
      const { simulation } = game;
      const players = simulation.players
        .filter((p) => p.entity !== null && !botIds.has(p.entity.id))
        .map((p) => {
          const inputs = simulation.inputs.stats(p.index);
          return {
            clientIndex: p.index,
            avatar: p.entity!.id,
            place: p.state,
            inputsTaken: inputs?.taken ?? 0,
            inputsStarved: inputs?.starved ?? 0,
            inputsReceived: inputs?.received ?? 0,
          };
        });
      return { server: game.stats(), bots: bots.connected, players, zaps: { ...zaps } };
    },
    close: () => {
      closing ??= (async () => {
        stats?.close();
        bots.close();
        await game.close();
        await gamer.close();
      })();
      return closing;
    },
  };
}
