/**
 * GameClient in real Chromium (headless, playwright-core): a page served by the GameServer itself
 * (its `http` hook) imports the browser bundle, declares the same game, connects to the page's
 * own origin (WebRTC first, as a browser does), and walks; the server sees it move, the page sees
 * its own entity predicted and the server's target among the others.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { buildBrowserBundle } from '../../scripts/browser-bundle.js';
import '../../src/node.js';
import { GameServer } from '../../src/game/game-server.js';
import { chromiumSkip, launchChromium } from '../support/chromium.js';
import { arenaRules, emptyLog } from '../support/test-game.js';

/** The test arena again (test/support/test-game.ts), as a page declares it with the bundle. */
const PAGE = `<!doctype html><html><head><meta charset="utf-8"><link rel="icon" href="data:,"></head><body>
<script type="module">
import { defineGame, GameClient, t, WebRtcClientTransport } from '/ghostwire.js';
const coord = t.float(-64, 64, 1 / 64);
const arena = defineGame({
  name: 'test-arena',
  tickRate: 30,
  entities: {
    avatar: { state: t.object({ x: coord, y: coord, score: t.uint16() }), hitbox: (a) => ({ type: 'circle', x: a.x, y: a.y, radius: 0.5 }) },
    target: { state: t.object({ x: coord, y: coord }), hitbox: (s) => ({ type: 'circle', x: s.x, y: s.y, radius: 0.5 }) },
  },
  player: 'avatar',
  input: t.object({ dx: t.int(-1, 1), fire: t.bool(), aimX: coord, aimY: coord, mode: t.int(0, 1) }),
  step: (a, input) => ({ ...a, x: Math.max(-60, Math.min(60, a.x + input.dx * 0.25)) }),
  events: { fired: t.object({ by: t.uint16(), hit: t.bool() }) },
  messages: { chat: t.object({ text: t.string(64) }), ready: t.object({}) },
});
window.report = { status: 'starting' };
try {
  const client = await GameClient.connect(arena, location.origin);
  setInterval(() => {
    client.update({ dx: 1, fire: false, aimX: 0, aimY: 0, mode: 0 });
    window.report = {
      status: client.status,
      webrtc: client.expert.transport instanceof WebRtcClientTransport,
      x: client.me?.state.x ?? null,
      others: client.entities.map((e) => e.type),
      rtt: client.rtt,
    };
  }, 1000 / 60);
} catch (error) {
  window.report = { status: 'failed', error: String(error) };
}
</script></body></html>`;

describe('GameClient in real Chromium', { skip: chromiumSkip(), timeout: 60_000 }, () => {
  let browser: Browser | undefined;
  let server: GameServer;
  before(async () => {
    const bundle = await buildBrowserBundle();
    server = await GameServer.start(arenaRules(emptyLog()), {
      port: 0,
      http: (request, response) => {
        const files: Record<string, [string, string]> = {
          '/': ['text/html; charset=utf-8', PAGE],
          '/ghostwire.js': ['text/javascript; charset=utf-8', bundle.code],
        };
        const file = files[request.url ?? ''];
        if (file === undefined) response.writeHead(404).end();
        else response.writeHead(200, { 'content-type': file[0] }).end(file[1]);
      },
    });
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await server.close();
  });

  it('a page connects over WebRTC, walks (predicted), and sees the target; the server moves it', async () => {
    const page = await browser!.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(server.url);
    await page.waitForFunction(
      () => {
        const r = (window as unknown as { report: { status: string; x: number | null } }).report;
        return r.status === 'failed' || (r.x !== null && r.x > 3);
      },
      undefined,
      { timeout: 20_000 },
    );
    const report = await page.evaluate(
      () => (window as unknown as { report: Record<string, unknown> }).report,
    );
    assert.equal(report.status, 'connected', JSON.stringify(report));
    assert.equal(report.webrtc, true, 'over WebRTC, the transport a browser tries first');
    assert.ok((report.others as string[]).includes('target'), JSON.stringify(report));
    // The page predicts ahead of the server by its input lead (round trip plus buffer), so on a
    // loaded machine the server's copy may trail the page's x > 3 by several ticks: wait for it.
    const serverX = () => (server.simulation.players[0]?.state as { x: number } | null | undefined)?.x ?? 0;
    const deadline = Date.now() + 10_000;
    while (serverX() <= 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    assert.ok(serverX() > 2, `the server moved its avatar (x ${serverX()})`);
    assert.deepEqual(errors, []);
  });
});
