/**
 * The demo's network dashboard and network panel in real Chromium: the dashboard page plots the
 * server's per-second samples live (its charts drawn, points added each second, no console error,
 * a screenshot), and a game page whose panel sets 30% loss each way sees its own measured loss rise
 * and the server's stats for its client rise too. Skipped with the reason where Chromium is absent
 * (test/support/chromium.ts), except under CI=true or GHOSTWIRE_REQUIRE_BROWSER=1.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { type DemoServer, startDemoServer } from '../../demo/server.js';
import type { StatsSample } from '../../demo/stats.js';
import { chromiumSkip, launchChromium } from '../support/chromium.js';

describe('the demo dashboard and network panel in real Chromium', {
  skip: chromiumSkip(),
  timeout: 45_000,
}, () => {
  let browser: Browser | undefined;
  let demo: DemoServer | undefined;
  before(async () => {
    [demo, browser] = await Promise.all([
      startDemoServer({ host: '127.0.0.1', port: 0, bots: 2, seed: 5 }),
      launchChromium(),
    ]);
  });
  after(async () => {
    await browser?.close();
    await demo?.close();
  });

  function watchErrors(page: Page, errors: string[]): void {
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(`console: ${message.text()}`);
    });
    page.on('pageerror', (error) => errors.push(`page: ${error.message}`));
  }

  it('the dashboard plots every client live; no console errors', { timeout: 20_000 }, async (t) => {
    const errors: string[] = [];
    const game = await browser!.newPage();
    const dashboard = await browser!.newPage();
    watchErrors(game, errors);
    watchErrors(dashboard, errors);
    await game.goto(`${demo!.url}?bot=1`);
    await game.waitForFunction(() => window.ghostwire?.connected === true, undefined, { timeout: 5000 });
    await dashboard.goto(`${demo!.url}dashboard`);
    // Three clients (two bots, the page) in 7 charts, and 4 samples come in since it opened.
    await dashboard.waitForFunction(() => window.dashboard?.clients.length === 3, undefined, {
      timeout: 6000,
    });
    const first = await dashboard.evaluate(() => window.dashboard.samples);
    await dashboard.waitForFunction((n) => window.dashboard.samples >= n + 4, first, { timeout: 8000 });
    const shown = await dashboard.evaluate(() => ({
      ...window.dashboard,
      canvases: document.querySelectorAll('#charts canvas').length,
      rows: document.querySelectorAll('#clients tr').length,
    }));
    t.diagnostic(JSON.stringify(shown));
    assert.deepEqual(shown.errors, []);
    assert.deepEqual(errors, []);
    assert.equal(shown.charts, 7);
    assert.equal(shown.canvases, 7, 'a canvas per chart');
    assert.equal(shown.rows, 3, 'a table row per client');
    assert.ok(shown.clients.includes('bot 0') && shown.clients.some((c) => c.startsWith('page ')));
    assert.ok(shown.samples >= 5, `${shown.samples} samples plotted`);
    // 6 figures of 3 clients and the 2 tick series, over 4 samples at least.
    assert.ok(shown.points >= (6 * 3 + 2) * 4, `${shown.points} points plotted`);
    const screenshot = join(mkdtempSync(join(tmpdir(), 'ghostwire-dashboard-')), 'dashboard.png');
    await dashboard.screenshot({ path: screenshot, fullPage: true });
    const png = readFileSync(screenshot);
    assert.ok(png.length > 10_000, `${png.length} bytes`);
    t.diagnostic(`screenshot: ${screenshot}`);
    await dashboard.close();
    await game.close();
  });

  it("30% loss set in the page's panel: its measured loss and the server's figure for it rise", {
    timeout: 30_000,
  }, async (t) => {
    const errors: string[] = [];
    const page = await browser!.newPage();
    watchErrors(page, errors);
    await page.goto(`${demo!.url}?bot=1`);
    // Connected comes before the server says which entity is the page's own (avatar -1 until then).
    await page.waitForFunction(
      () => window.ghostwire?.connected === true && window.ghostwire.avatar >= 0,
      undefined,
      { timeout: 5000 },
    );
    const avatar = await page.evaluate(() => window.ghostwire.avatar);
    const lossOf = async () => {
      const { samples } = (await (await fetch(`${demo!.url}stats`)).json()) as { samples: StatsSample[] };
      return samples.at(-1)!.clients.find((c) => c.avatar === avatar)?.loss ?? Number.NaN;
    };
    // The stats sample once a second: on a loaded machine the first ones may predate the client.
    let before = await lossOf();
    for (const deadline = Date.now() + 8000; Number.isNaN(before) && Date.now() < deadline; ) {
      await page.waitForTimeout(250);
      before = await lossOf();
    }
    assert.ok(before < 5, `no loss before: ${before}%`);
    // The slider dragged as a user would (from its left end to 60% of its width: 30 of 50), then
    // setLink for the exact value.
    const box = (await page.locator('input[data-link="loss"]').boundingBox())!;
    await page.mouse.move(box.x + 2, box.y + box.height / 2);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width * 0.6, box.y + box.height / 2, { steps: 5 });
    await page.mouse.up();
    const dragged = await page.evaluate(() => window.ghostwire.link.loss);
    assert.ok(dragged >= 25 && dragged <= 35, `the slider sets the link: ${dragged}%`);
    await page.evaluate(() => window.ghostwire.setLink({ loss: 30 }));
    assert.equal(
      await page.locator('input[data-link="loss"]').inputValue(),
      '30',
      'setLink moves the slider',
    );
    assert.equal(await page.locator('#network-panel output').nth(2).textContent(), '30 %', 'and shows it');
    await page.waitForFunction(() => window.ghostwire.measured.loss > 10, undefined, { timeout: 10_000 });
    let after = await lossOf();
    for (let i = 0; i < 8 && !(after > 10); i++) {
      await page.waitForTimeout(1000);
      after = await lossOf();
    }
    const measured = await page.evaluate(() => window.ghostwire.measured);
    t.diagnostic(
      `server's loss for page ${avatar}: ${before}% -> ${after}%; the page measures ${JSON.stringify(measured)}`,
    );
    assert.ok(after > 10, `the server's loss figure rose: ${after}%`);
    assert.deepEqual(errors, []);
    assert.deepEqual(await page.evaluate(() => window.ghostwire.errors), []);
    await page.close();
  });
});
