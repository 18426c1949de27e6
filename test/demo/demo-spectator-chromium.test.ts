/**
 * The demo page as a spectator in real Chromium (`?spectate`, over WebSocket): it connects on a
 * spectator seat, has no avatar, is sent the world, and F follows a bot's avatar. Skipped with
 * the reason where Chromium is absent (test/support/chromium.ts).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import type { PageStatus } from '../../demo/client.js';
import { type DemoServer, startDemoServer } from '../../demo/server.js';
import { chromiumSkip, launchChromium } from '../support/chromium.js';

describe('the demo page as a spectator in real Chromium', { skip: chromiumSkip(), timeout: 30_000 }, () => {
  let browser: Browser | undefined;
  let demo: DemoServer | undefined;
  before(async () => {
    [demo, browser] = await Promise.all([
      startDemoServer({ host: '127.0.0.1', port: 0, bots: 2, seed: 7 }),
      launchChromium(),
    ]);
  });
  after(async () => {
    await browser?.close();
    await demo?.close();
  });

  it('watches without an avatar, and F follows an avatar', async () => {
    const page = await browser!.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(message.text());
    });
    await page.goto(`${demo!.url}?spectate&transport=websocket`);
    const read = async () =>
      (await page.evaluate(() => JSON.parse(JSON.stringify(window.ghostwire)))) as PageStatus;
    await page.waitForFunction(
      () => window.ghostwire?.connected === true && window.ghostwire.ghosts > 2,
      undefined,
      {
        timeout: 10_000,
      },
    );
    const game = demo!.game;
    assert.equal(game.stats().spectators, 1);
    assert.equal(game.stats().players, 2, 'the bots only: the spectator took no player seat');
    await page.keyboard.press('KeyF');
    await page.waitForFunction(() => window.ghostwire.following >= 0, undefined, { timeout: 5000 });
    const status = await read();
    assert.equal(status.spectating, true);
    assert.equal(status.avatar, -1, 'no avatar of its own');
    // Its input channel writes nothing (a packet carrying inputs would be refused and counted).
    assert.equal(game.stats().spectatorInputsRefused, 0, 'no input sent');
    assert.equal(game.stats().spectatorRequestsRefused, 0);
    assert.deepEqual(status.errors, []);
    assert.deepEqual(errors, []);
    await page.close();
  });
});
