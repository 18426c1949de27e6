/**
 * The demo as a zoned world (`npm start -- --zones N`): the same page, bots and transports as
 * demo/server.ts, but the arena is a ZonedWorld cut into N zones (demo/zone-grid.ts), each run by
 * demo/zoned-rules.ts in a worker thread, behind one gateway the page and the bots join as they
 * join a GameServer. GET /zones tells the page the grid (it draws the borders); GET /status is
 * the world's figures. What the plain demo reads from its GameServer (its simulation's players,
 * the zaps counted in the rules' closure, the dashboard's per-connection samples) has no zoned
 * counterpart here: /status says so, and the dashboard's routes answer 404 with the reason.
 */
import { ZonedWorld, type ZonedWorldStats } from '../src/zones/index.js';
import { demoServeOptions, joinDemoBots } from './bots.js';
import { buildDemoAssets } from './client-bundle.js';
import { ARENA } from './game.js';
import { demoHttp, sendDemo } from './page-routes.js';
import type { DemoServerOptions } from './server.js';
import { type DemoZoneGrid, demoZoneGrid } from './zone-grid.js';

export interface ZonedDemoServerOptions extends Omit<DemoServerOptions, 'seed'> {
  /** Zones, 1 to 16: the arena cut into the most square grid (4: 2 × 2). */
  zones: number;
}

/** What the zoned demo reports (GET /status): the world's figures, the grid and the bots. */
export interface ZonedDemoStatus extends ZonedWorldStats {
  grid: DemoZoneGrid;
  /** Bots connected now. */
  bots: number;
  /** What the plain demo's status has and this one cannot, and why. */
  leftOut: string;
}

export interface ZonedDemoServer {
  /** The page's URL: http://host:port/ */
  readonly url: string;
  readonly world: ZonedWorld;
  readonly grid: DemoZoneGrid;
  status(): ZonedDemoStatus;
  close(): Promise<void>;
}

const LEFT_OUT =
  "players' inputs and zap counts: each zone's rules run in their own thread, so the gateway holds no simulation to read them from (see each zone's report)";
const NO_DASHBOARD =
  'The dashboard reads a GameServer’s per-connection figures; the zoned demo has none. GET /status has the zones’ figures.\n';

/** Starts the zoned demo (builds the page's script first); resolves once every zone steps and the bots are connected. */
export async function startZonedDemoServer(options: ZonedDemoServerOptions): Promise<ZonedDemoServer> {
  const { columns, rows } = demoZoneGrid(options.zones);
  const grid: DemoZoneGrid = { columns, rows, bounds: { minX: 0, minY: 0, maxX: ARENA, maxY: ARENA } };
  const assets = await buildDemoAssets();
  let status: (() => ZonedDemoStatus) | null = null;
  const http = demoHttp(assets, (path, response) => {
    if (path === '/zones') sendDemo(response, 'application/json', JSON.stringify(grid));
    else if (path === '/status' && status !== null)
      sendDemo(response, 'application/json', JSON.stringify(status()));
    else if (path === '/dashboard' || path.startsWith('/stats'))
      response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end(NO_DASHBOARD);
    else return false;
    return true;
  });
  const count = Math.min(16, Math.max(0, options.bots ?? 4));
  const world = await ZonedWorld.start({
    rules: new URL('./zoned-rules.js', import.meta.url),
    bounds: grid.bounds,
    columns,
    rows,
    // The page shows about 48 m across: a player sees that far, as in the plain demo.
    interestRadius: ARENA / 2,
    handoff: { margin: 2 },
    ...demoServeOptions(options, count),
    http,
  });
  const bots = await joinDemoBots(world.url, count, options, () => world.close());
  status = () => ({ ...world.stats(), grid, bots: bots.connected, leftOut: LEFT_OUT });
  const read = status;
  let closing: Promise<void> | null = null;
  return {
    url: `${world.url}/`,
    world,
    grid,
    status: read,
    close: () => {
      closing ??= (async () => {
        bots.close();
        await world.close();
      })();
      return closing;
    },
  };
}
