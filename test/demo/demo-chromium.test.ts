/**
 * The demo game end to end in real Chromium: the demo server (demo/server.ts, a GameServer) runs
 * in-process on 127.0.0.1 with its bots, WebRTC on the UDP port after the HTTP one and WebSocket on
 * the HTTP port. Two runs at once:
 * a page in bot mode (`?bot=1`: it steers itself) plays 20 s over WebRTC (the page's default,
 * auto) beside a player's page steered by the keys; and a page with WebRTC removed (no
 * RTCPeerConnection, as where a browser or policy disables it) falls back to WebSocket and plays.
 * Both ends are checked: the transport each page ran over (the page's end: the GameServer counts
 * its datagrams over all transports together), the netcode handshake, ghosts and replication
 * flowing, the page's inputs reaching the server and moving its avatar, no console errors, a
 * screenshot. Chromium needs no flags: its host candidates are mDNS
 * names the server cannot resolve, but the server answers with its own candidate and the
 * browser's checks reach it, which learns the browser's address from them (peer reflexive).
 * Skipped with the reason where Chromium is absent (test/support/chromium.ts), except under
 * CI=true or GHOSTWIRE_REQUIRE_BROWSER=1.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import type { PageStatus } from '../../demo/client.js';
import { ARENA } from '../../demo/game.js';
import { type DemoServer, startDemoServer } from '../../demo/server.js';
import { chromiumSkip, launchChromium } from '../support/chromium.js';

const WEBRTC_PLAY_MS = 20_000;
const FALLBACK_PLAY_MS = 8000;

describe('the demo game in real Chromium over WebRTC and the WebSocket fallback', {
  skip: chromiumSkip(),
  timeout: 45_000,
  concurrency: 2,
}, () => {
  let browser: Browser | undefined;
  let demo: DemoServer | undefined;
  let shots: string;
  before(async () => {
    [demo, browser] = await Promise.all([
      startDemoServer({ host: '127.0.0.1', port: 0, bots: 3, seed: 12 }),
      launchChromium(),
    ]);
    shots = mkdtempSync(join(tmpdir(), 'ghostwire-demo-'));
  });
  after(async () => {
    await browser?.close();
    await demo?.close();
  });

  /** A page with its console errors and uncaught errors collected. */
  async function openPage(name: string, errors: string[]): Promise<Page> {
    const page = await browser!.newPage();
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(`${name} console: ${message.text()}`);
    });
    page.on('pageerror', (error) => errors.push(`${name} page: ${error.message}`));
    return page;
  }

  /** Waits for the page's netcode connection; on a timeout, fails with both ends' status. */
  async function waitConnected(page: Page): Promise<void> {
    try {
      await page.waitForFunction(() => window.ghostwire?.connected === true, undefined, { timeout: 8000 });
    } catch (error) {
      const status = await page.evaluate(() => JSON.stringify(window.ghostwire)).catch(String);
      throw new Error(`not connected: page ${status}; server ${JSON.stringify(demo!.status())}`, {
        cause: error,
      });
    }
  }
  const readStatus = async (page: Page) =>
    (await page.evaluate(() => JSON.parse(JSON.stringify(window.ghostwire)))) as PageStatus;

  /** The checks both runs share, on the page's end and the server's, and the screenshot. */
  async function checkPlayed(page: Page, status: PageStatus, name: string, errors: string[]) {
    assert.deepEqual(status.errors, []);
    assert.deepEqual(errors, []);
    assert.equal(status.botMode, true);
    assert.equal(status.socket, 'open');
    assert.equal(status.connected, true, 'the netcode handshake completed and the connection stands');
    assert.ok(status.sections > 100, `replication sections applied: ${status.sections}`);
    assert.ok(status.ghostsMax > 20, `ghosts mirrored at most: ${status.ghostsMax}`);
    assert.ok(status.newestInputTick > 0, `inputs pushed up to tick ${status.newestInputTick}`);
    assert.ok(status.framesDrawn > 30, `frames drawn: ${status.framesDrawn}`);
    assert.equal(status.zones, null, 'the plain demo has no zones');
    assert.equal(status.zoneBorders, 0, 'and draws no borders');

    const player = demo!.status().players.find((p) => p.avatar === status.avatar);
    assert.ok(player !== undefined, "the page's avatar number is known to the server");
    // Two seconds' worth of the page's inputs at least consumed (30 per second).
    assert.ok(player.inputsReceived > 60, `inputs received: ${player.inputsReceived}`);
    assert.ok(player.inputsTaken > 60, `inputs taken: ${player.inputsTaken}`);
    assert.ok(player.place !== null);
    const moved = Math.hypot(player.place.x - ARENA / 2, player.place.y - ARENA / 2);
    assert.ok(status.zapsSeen > 0, 'zaps hit orbs, and every page hears of them');
    assert.equal(status.zapsMisnamed, 0, "a zap's orb reference never names an avatar");
    // Its zaps launch bolts: predicted on this page at once, then matched with the server's.
    assert.ok(status.boltsPredicted > 0, `bolts predicted: ${status.boltsPredicted}`);
    assert.ok(status.boltsMatched > 0, `bolts matched: ${status.boltsMatched}`);
    // The demo vetoes none: a refusal is only a misprediction of the avatar at the tick it fired.
    assert.ok(status.boltsRefused * 4 <= status.boltsPredicted, `bolts refused: ${status.boltsRefused}`);
    assert.ok(moved > 5, `the avatar walked ${moved.toFixed(1)} m from the centre by the page's inputs`);

    const screenshot = join(shots, `${name}.png`);
    await page.screenshot({ path: screenshot });
    const png = readFileSync(screenshot);
    assert.ok(png.length > 5000, `${png.length} bytes`);
    assert.deepEqual([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'a PNG');
    return screenshot;
  }

  const timing = (s: PageStatus) =>
    `transport open ${s.transportConnectMs.toFixed(0)} ms after connectTransport, ` +
    `${s.transportOpenMs.toFixed(0)} ms after navigation; netcode connected at ${s.handshakeMs.toFixed(0)} ms`;

  it('over WebRTC (auto): a bot-mode page plays 20 s, a key-steered page walks; both ends agree', async (t) => {
    const errors: string[] = [];
    const page = await openPage('webrtc', errors);
    const player = await openPage('player', errors);
    await Promise.all([page.goto(`${demo!.url}?bot=1`), player.goto(demo!.url)]);
    await waitConnected(page);
    await waitConnected(player);
    const started = performance.now();

    // The player's page: ArrowRight held for a second moves its avatar right.
    await page.waitForTimeout(2000);
    const keyAvatar = await player.evaluate(() => window.ghostwire.avatar);
    const before = demo!.status().players.find((p) => p.avatar === keyAvatar)!.place!;
    // Held until the server's copy has moved 5 m (2/3 s at 7.5 m/s) or 6 s pass: the inputs reach
    // the server a round trip and a buffer later, which a loaded machine stretches.
    const placeNow = () => demo!.status().players.find((p) => p.avatar === keyAvatar)!.place!;
    const pressedAt = performance.now();
    await player.keyboard.down('ArrowRight');
    while (placeNow().x - before.x <= 5 && performance.now() - pressedAt < 6000)
      await page.waitForTimeout(100);
    await player.keyboard.up('ArrowRight');
    const heldS = (performance.now() - pressedAt) / 1000;
    const steered = placeNow();
    t.diagnostic(
      `ArrowRight held ${heldS.toFixed(1)} s: (${before.x}, ${before.y}) -> (${steered.x}, ${steered.y})`,
    );
    assert.ok(steered.x - before.x > 5, 'the key moved the avatar right (7.5 m/s while held)');
    assert.ok(Math.abs(steered.y - before.y) < 1, 'and not up or down');
    const playerStatus = await readStatus(player);
    assert.equal(playerStatus.transport, 'webrtc');
    assert.deepEqual(playerStatus.errors, []);
    await player.close();

    await page.waitForTimeout(WEBRTC_PLAY_MS - (performance.now() - started));
    const status = await readStatus(page);
    const server = demo!.status();
    t.diagnostic(`page: ${JSON.stringify({ ...status, errors: status.errors.length })}`);
    t.diagnostic(`server: ${JSON.stringify(server)}`);
    t.diagnostic(`WebRTC, bot page: ${timing(status)}; player page: ${timing(playerStatus)}`);

    // Over WebRTC: the page says so, and the server serves it.
    assert.equal(status.transportChoice, 'auto');
    assert.equal(status.transport, 'webrtc');
    assert.equal(status.fallbackReason, null);
    assert.ok(server.server.transports.includes('webrtc'));
    const seconds = WEBRTC_PLAY_MS / 1000;
    assert.ok(status.datagramsReceived > 25 * seconds, `datagrams received: ${status.datagramsReceived}`);
    assert.equal(server.bots, 3);
    const screenshot = await checkPlayed(page, status, 'webrtc', errors);
    t.diagnostic(`Chromium ${browser!.version()}; screenshot: ${screenshot}`);
    await page.close();
  });

  it('WebRTC disabled in the page: auto falls back to WebSocket and plays', async (t) => {
    const errors: string[] = [];
    const page = await openPage('fallback', errors);
    await page.addInitScript(() => {
      const global = window as unknown as Record<string, unknown>;
      delete global.RTCPeerConnection;
      delete global.webkitRTCPeerConnection;
    });
    await page.goto(`${demo!.url}?bot=1&transport=auto`);
    await waitConnected(page);
    await page.waitForTimeout(FALLBACK_PLAY_MS);
    const status = await readStatus(page);
    const server = demo!.status();
    t.diagnostic(`page: ${JSON.stringify({ ...status, errors: status.errors.length })}`);
    t.diagnostic(`WebSocket fallback: ${timing(status)}`);

    assert.equal(status.transport, 'websocket');
    assert.match(status.fallbackReason ?? '', /no RTCPeerConnection/);
    assert.equal(server.bots, 3);
    const seconds = FALLBACK_PLAY_MS / 1000;
    assert.ok(status.datagramsReceived > 25 * seconds, `datagrams received: ${status.datagramsReceived}`);
    await checkPlayed(page, status, 'fallback', errors);
    await page.close();
  });
});
