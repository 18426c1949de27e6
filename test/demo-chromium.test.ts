/**
 * The demo game end to end in real Chromium over WebSocket: the demo server (demo/server.ts) runs
 * in-process on 127.0.0.1 with its bots, a page opens it in bot mode (`?bot=1`: it steers itself)
 * and plays for about 8 s; then both ends are checked: the netcode handshake completed, ghosts and
 * replication flowed, the page's inputs reached the server's InputReceiver and moved its avatar,
 * the page logged no error, and a screenshot was taken. Skipped with the reason where Chromium is
 * absent (test/support/chromium.ts), except under CI=true or GHOSTWIRE_REQUIRE_BROWSER=1.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import type { PageStatus } from '../demo/client.js';
import { type DemoServer, startDemoServer } from '../demo/server.js';
import { ARENA } from '../tools/live-arena.js';
import { chromiumSkip, launchChromium } from './support/chromium.js';

const PLAY_MS = 8000;

describe('the demo game in real Chromium over WebSocket', { skip: chromiumSkip(), timeout: 25_000 }, () => {
  let browser: Browser | undefined;
  let demo: DemoServer | undefined;
  before(async () => {
    [demo, browser] = await Promise.all([
      startDemoServer({ host: '127.0.0.1', port: 0, bots: 3, seed: 12 }),
      launchChromium(),
    ]);
  });
  after(async () => {
    await browser?.close();
    await demo?.close();
  });

  it('a page in bot mode connects, mirrors the arena, drives its avatar, draws; no console errors', async (t) => {
    const page = await browser!.newPage();
    const errors: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(`console: ${message.text()}`);
    });
    page.on('pageerror', (error) => errors.push(`page: ${error.message}`));
    // Beside it, a player's page steered by the keys: ArrowRight held for a second.
    const player = await browser!.newPage();
    player.on('console', (message) => {
      if (message.type() === 'error') errors.push(`player console: ${message.text()}`);
    });
    player.on('pageerror', (error) => errors.push(`player page: ${error.message}`));
    await Promise.all([page.goto(`${demo!.url}?bot=1`), player.goto(demo!.url)]);
    const connected = () => window.ghostwire?.connected === true;
    await page.waitForFunction(connected, undefined, { timeout: 5000 });
    await player.waitForFunction(connected, undefined, { timeout: 5000 });
    await page.waitForTimeout(PLAY_MS / 2);
    const keyAvatar = await player.evaluate(() => window.ghostwire.avatar);
    const before = demo!.status().players.find((p) => p.avatar === keyAvatar)!.place!;
    await player.keyboard.down('ArrowRight');
    await page.waitForTimeout(1000);
    await player.keyboard.up('ArrowRight');
    await page.waitForTimeout(PLAY_MS / 2 - 1000);
    const steered = demo!.status().players.find((p) => p.avatar === keyAvatar)!.place!;
    t.diagnostic(`ArrowRight held 1 s: (${before.x}, ${before.y}) -> (${steered.x}, ${steered.y})`);
    assert.ok(steered.x - before.x > 10, 'the key moved the avatar right (30 m/s while held)');
    assert.ok(Math.abs(steered.y - before.y) < 1, 'and not up or down');
    assert.equal((await player.evaluate(() => window.ghostwire.errors)).length, 0);
    await player.close();

    const status = (await page.evaluate(() => JSON.parse(JSON.stringify(window.ghostwire)))) as PageStatus;
    const server = demo!.status();
    t.diagnostic(`page: ${JSON.stringify({ ...status, errors: status.errors.length })}`);
    t.diagnostic(`server: ${JSON.stringify(server)}`);

    // The page's end.
    assert.deepEqual(status.errors, []);
    assert.deepEqual(errors, []);
    assert.equal(status.botMode, true);
    assert.equal(status.socket, 'open');
    assert.equal(status.connected, true, 'the netcode handshake completed and the connection stands');
    assert.ok(status.sections > 100, `replication sections applied: ${status.sections}`);
    assert.ok(status.ghostsMax > 20, `ghosts mirrored at most: ${status.ghostsMax}`);
    assert.ok(status.newestInputTick > 0, `inputs pushed up to tick ${status.newestInputTick}`);
    assert.ok(status.framesDrawn > 30, `frames drawn: ${status.framesDrawn}`);

    // The server's end: the bots and the page connected, the page over the WebSocket.
    assert.equal(server.bots, 3);
    // The player's page closed a moment ago: its connection may not have timed out yet.
    assert.ok(server.connected === 4 || server.connected === 5, `${server.connected} clients`);
    assert.ok(server.peersOpen >= 1);
    assert.ok(
      server.wsSent > 100 && server.wsReceived > 100,
      `datagrams ${server.wsSent} / ${server.wsReceived}`,
    );
    const bot = server.players.find((p) => p.avatar === status.avatar);
    assert.ok(bot !== undefined, "the page's avatar number is known to the server");
    // A second's worth of the page's inputs at least consumed (60 per second), most on time.
    assert.ok(bot.inputsReceived > 60, `inputs received: ${bot.inputsReceived}`);
    assert.ok(bot.inputsTaken > 60, `inputs taken: ${bot.inputsTaken}`);
    assert.ok(bot.place !== null);
    const moved = Math.hypot(bot.place.x - ARENA / 2, bot.place.y - ARENA / 2);
    assert.ok(moved > 5, `the avatar walked ${moved.toFixed(1)} m from the centre by the page's inputs`);

    const screenshot = join(mkdtempSync(join(tmpdir(), 'ghostwire-demo-')), 'demo-page.png');
    await page.screenshot({ path: screenshot });
    const png = readFileSync(screenshot);
    assert.ok(png.length > 5000, `${png.length} bytes`);
    assert.deepEqual([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'a PNG');
    t.diagnostic(`Chromium ${browser!.version()}; screenshot: ${screenshot}`);
    await page.close();
  });
});
