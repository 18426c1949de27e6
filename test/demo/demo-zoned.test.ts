/**
 * The zoned demo (`npm start -- --zones 4`, demo/zoned-server.ts) in Node: the arena as a 2 × 2
 * ZonedWorld serves the same page, its bots join and walk, a GameClient over WebSocket joins as
 * the page does and sees orbs in more than one zone, and GET /zones answers the grid the page
 * draws (GET /status: the zones' figures, with what the plain demo has and this one has not).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import WebSocket from 'ws';
import { ARENA, arena, ORBS } from '../../demo/game.js';
import { type DemoZoneGrid, readZoneGrid } from '../../demo/zone-grid.js';
import { startZonedDemoServer, type ZonedDemoServer, type ZonedDemoStatus } from '../../demo/zoned-server.js';
import { GameClient } from '../../src/node.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The zone a point is in on the demo's grid (row by row from (minX, minY), as ZoneMap numbers them). */
function zoneOf(grid: DemoZoneGrid, x: number, y: number): number {
  const { minX, minY, maxX, maxY } = grid.bounds;
  const column = Math.min(grid.columns - 1, Math.floor(((x - minX) / (maxX - minX)) * grid.columns));
  const row = Math.min(grid.rows - 1, Math.floor(((y - minY) / (maxY - minY)) * grid.rows));
  return row * grid.columns + column;
}

describe('the zoned demo (--zones 4)', { timeout: 60_000 }, () => {
  let demo: ZonedDemoServer;
  before(async () => {
    demo = await startZonedDemoServer({ host: '127.0.0.1', port: 0, bots: 2, zones: 4 });
  });
  after(() => demo.close());

  it('serves the page, and GET /zones answers the 2 × 2 grid over the arena', async () => {
    const page = await fetch(demo.url);
    assert.equal(page.status, 200);
    assert.match(await page.text(), /<canvas id="arena"/);
    const zones = await fetch(`${demo.url}zones`);
    assert.equal(zones.headers.get('content-type'), 'application/json');
    const grid = readZoneGrid(await zones.json());
    assert.deepEqual(grid, { columns: 2, rows: 2, bounds: { minX: 0, minY: 0, maxX: ARENA, maxY: ARENA } });
    assert.equal(demo.world.map.zoneCount, 4, 'the world runs as many zones as the page is told');
    const dashboard = await fetch(`${demo.url}dashboard`);
    assert.equal(dashboard.status, 404);
    assert.match(await dashboard.text(), /zoned demo has none/);
  });

  it('its bots connect and walk; a GameClient joins, sees orbs in more than one zone and walks', async (t) => {
    const client = await GameClient.connect(arena, demo.url, { transport: 'websocket', WebSocket });
    try {
      const botPlaces = new Map<number, { x: number; y: number }>();
      const botsMoved = new Set<number>();
      let orbZones = new Set<number>();
      let orbs = 0;
      const until = performance.now() + 4000;
      while (performance.now() < until) {
        client.update({ dx: 1, dy: 0, zap: false, aimX: 0, aimY: 0 });
        await sleep(1000 / 60);
        const seen = client.entities.filter((e) => e.type === 'orb');
        if (seen.length >= orbs) {
          orbs = seen.length;
          orbZones = new Set(seen.map((orb) => zoneOf(demo.grid, orb.state.x, orb.state.y)));
        }
        for (const e of client.entities) {
          if (e.type !== 'avatar' || e.id === client.me?.id) continue;
          const first = botPlaces.get(e.id);
          if (first === undefined) botPlaces.set(e.id, { x: e.state.x, y: e.state.y });
          else if (Math.hypot(e.state.x - first.x, e.state.y - first.y) > 1) botsMoved.add(e.id);
        }
      }
      t.diagnostic(
        `orbs ${orbs} in zones ${[...orbZones].join(' ')}; bots seen ${botPlaces.size}, moved ${botsMoved.size}`,
      );
      assert.equal(client.status, 'connected', client.statusReason ?? '');
      assert.ok(orbs > ORBS / 2, `orbs seen: ${orbs}`);
      assert.ok(orbZones.size > 1, `orbs in zones ${[...orbZones].join(' ')}`);
      assert.equal(botPlaces.size, 2, 'the two bots are seen');
      assert.equal(botsMoved.size, 2, 'and both walk');
      const me = client.me?.state;
      assert.ok(
        me !== undefined && me.x - ARENA / 2 > 5,
        `walked right from the centre: ${JSON.stringify(me)}`,
      );
      const status = (await (await fetch(`${demo.url}status`)).json()) as ZonedDemoStatus;
      assert.equal(status.bots, 2);
      assert.deepEqual(
        status.zones.map((z) => z.zone).sort(),
        [0, 1, 2, 3],
        'every zone runs in this process',
      );
      assert.equal(status.server?.players, 3, 'two bots and the client, on the gateway');
      assert.match(status.leftOut, /zap counts/);
    } finally {
      client.close();
    }
  });
});
