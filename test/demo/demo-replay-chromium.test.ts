/**
 * "Replay the last minute" on the demo page, in real Chromium: the demo server records its match
 * (GameServer.record); GET /replay.gwr answers the last minute as a .gwr file, which is checked
 * here in Node (ReplayPlayer on the demo's types) and then played on the page: the button fetches
 * it and plays it in a second mirror, pause holds the clock, the speed and the seek slider move
 * it. Skipped with the reason where Chromium is absent (test/support/chromium.ts), except under
 * CI=true or GHOSTWIRE_REQUIRE_BROWSER=1; the Node part runs everywhere.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { arena } from '../../demo/game.js';
import type { ReplayStatus } from '../../demo/replay-view.js';
import { type DemoServer, startDemoServer } from '../../demo/server.js';
import { wiringOf } from '../../src/game/define-game.js';
import { ReplayPlayer } from '../../src/latency/replay-player.js';
import { chromiumSkip, launchChromium } from '../support/chromium.js';
import { until } from '../support/until.js';

declare global {
  interface Window {
    ghostwireReplay: ReplayStatus;
  }
}

describe('the demo replays its last minute', { timeout: 45_000 }, () => {
  let demo: DemoServer | undefined;
  before(async () => {
    demo = await startDemoServer({ host: '127.0.0.1', port: 0, bots: 3, seed: 7 });
  });
  after(() => demo?.close());

  it('GET /replay.gwr is a recording of the match the demo types play', async () => {
    await until('two seconds recorded', 8000, () => demo!.game.simulation.world.serverTick > 60);
    const response = await fetch(new URL('/replay.gwr', demo!.url));
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('content-type'), 'application/octet-stream');
    const bytes = new Uint8Array(await response.arrayBuffer());
    const wiring = wiringOf('test', arena);
    const replay = ReplayPlayer.open(bytes, {
      types: wiring.types,
      capacity: arena.maxEntities,
      events: wiring.events,
    });
    assert.ok(replay.endTick - replay.startTick >= 50, `${replay.startTick}..${replay.endTick}`);
    replay.seek(replay.endTick);
    const orbs = [...replay.mirror.ghosts()].filter((g) => g.type.name === 'orb').length;
    assert.equal(orbs, 60);
    assert.ok(replay.mirror.size >= 60 + 3, 'the orbs and the bots');
  });

  it('the page plays it with pause, speed and seek', { skip: chromiumSkip() }, async () => {
    const browser: Browser = await launchChromium();
    try {
      const page: Page = await browser.newPage();
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(error.message));
      await page.goto(`${demo!.url}?bot=1`);
      await page.waitForFunction(() => window.ghostwire?.connected === true, undefined, { timeout: 10_000 });
      await page.click('#replay-open');
      await page.waitForFunction(() => window.ghostwireReplay?.state === 'playing', undefined, {
        timeout: 10_000,
      });
      const read = () => page.evaluate(() => ({ ...window.ghostwireReplay }));
      const first = await read();
      assert.ok(first.bytes > 0 && first.endTick > first.startTick, JSON.stringify(first));
      await page.waitForFunction((tick) => window.ghostwireReplay.renderTick > tick + 5, first.renderTick);
      assert.ok((await read()).entities >= 60, 'the orbs are shown');
      await page.click('#replay-toggle');
      await page.waitForFunction(() => window.ghostwireReplay.state === 'paused');
      const paused = (await read()).renderTick;
      await page.waitForTimeout(300);
      assert.equal((await read()).renderTick, paused, 'paused: the clock holds');
      await page.evaluate((tick) => {
        const seek = document.getElementById('replay-seek') as HTMLInputElement;
        seek.value = String(tick);
        seek.dispatchEvent(new Event('input'));
      }, first.startTick + 10);
      await page.waitForFunction((tick) => window.ghostwireReplay.renderTick === tick, first.startTick + 10);
      await page.selectOption('#replay-speed', '4');
      await page.click('#replay-toggle');
      await page.waitForFunction(() => window.ghostwireReplay.state === 'playing');
      const before = await read();
      await page.waitForTimeout(500);
      const later = await read();
      // 4× at 30 Hz: about 60 ticks in half a second (frames and timers make it a little less).
      assert.ok(later.renderTick - before.renderTick > 30, `${before.renderTick} → ${later.renderTick}`);
      await page.click('#replay-close');
      await page.waitForFunction(() => window.ghostwireReplay.state === 'idle');
      assert.deepEqual(errors, []);
      assert.deepEqual(await page.evaluate(() => window.ghostwire.errors), []);
    } finally {
      await browser.close();
    }
  });
});
