/**
 * The zoned demo's page in real Chromium (`npm start -- --zones 4`, demo/zoned-server.ts): a page
 * in bot mode joins the 2 × 2 zoned arena's gateway over the page's default transport (auto),
 * plays, learns the grid from GET /zones and draws the two inner borders (the page reports the
 * lines it drew); no console errors, a screenshot. Skipped with the reason where Chromium is
 * absent (test/support/chromium.ts), except under CI=true or GHOSTWIRE_REQUIRE_BROWSER=1.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import type { PageStatus } from '../../demo/client.js';
import { startZonedDemoServer, type ZonedDemoServer } from '../../demo/zoned-server.js';
import { chromiumSkip, launchChromium } from '../support/chromium.js';

const PLAY_MS = 5000;

describe('the zoned demo in real Chromium', { skip: chromiumSkip(), timeout: 45_000 }, () => {
  let browser: Browser | undefined;
  let demo: ZonedDemoServer | undefined;
  before(async () => {
    [demo, browser] = await Promise.all([
      startZonedDemoServer({ host: '127.0.0.1', port: 0, bots: 2, zones: 4 }),
      launchChromium(),
    ]);
  });
  after(async () => {
    await browser?.close();
    await demo?.close();
  });

  it('a bot-mode page plays the 2 × 2 arena and draws its two borders', async (t) => {
    const errors: string[] = [];
    const page = await browser!.newPage();
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(`console: ${message.text()}`);
    });
    page.on('pageerror', (error) => errors.push(`page: ${error.message}`));
    await page.goto(`${demo!.url}?bot=1`);
    try {
      await page.waitForFunction(() => window.ghostwire?.connected === true, undefined, { timeout: 10_000 });
    } catch (error) {
      const status = await page.evaluate(() => JSON.stringify(window.ghostwire)).catch(String);
      throw new Error(`not connected: page ${status}; world ${JSON.stringify(demo!.status())}`, {
        cause: error,
      });
    }
    await page.waitForTimeout(PLAY_MS);
    const status = (await page.evaluate(() => JSON.parse(JSON.stringify(window.ghostwire)))) as PageStatus;
    t.diagnostic(`page: ${JSON.stringify({ ...status, errors: status.errors.length })}`);

    assert.deepEqual(status.errors, []);
    assert.deepEqual(errors, []);
    assert.deepEqual(status.zones, { columns: 2, rows: 2 }, 'the page learnt the grid from GET /zones');
    assert.equal(status.zoneBorders, 2, 'one border down the middle, one across');
    assert.equal(status.connected, true);
    assert.ok(status.ghostsMax > 20, `ghosts mirrored at most: ${status.ghostsMax}`);
    assert.ok(status.framesDrawn > 30, `frames drawn: ${status.framesDrawn}`);
    assert.equal(status.zapsMisnamed, 0, "a zap's orb reference never names an avatar");
    // Zones do not judge spawn claims: the gateway refuses them, so predicted bolts go and the zones' come.
    assert.ok(
      status.boltsRefused > 0 && status.boltsMatched === 0,
      `bolts: ${status.boltsRefused} refused, ${status.boltsMatched} matched`,
    );

    const screenshot = join(mkdtempSync(join(tmpdir(), 'ghostwire-zoned-demo-')), 'zoned.png');
    await page.screenshot({ path: screenshot });
    assert.ok(readFileSync(screenshot).length > 5000);
    t.diagnostic(`transport ${status.transport}; screenshot: ${screenshot}`);
    await page.close();
  });
});
