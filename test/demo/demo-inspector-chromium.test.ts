/**
 * The dashboard's Inspector tab in real Chromium: opening it and choosing a client streams that
 * client's packet traces (rows with bits, a click shows who holds an entity) while the server has
 * one watcher; closing the tab detaches it (the server reports 0 watchers). Skipped with the
 * reason where Chromium is absent (test/support/chromium.ts), except under CI=true or
 * GHOSTWIRE_REQUIRE_BROWSER=1.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { type DemoServer, startDemoServer } from '../../demo/server.js';
import { chromiumSkip, launchChromium } from '../support/chromium.js';

describe('the demo dashboard Inspector tab in real Chromium', {
  skip: chromiumSkip(),
  timeout: 40_000,
}, () => {
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

  it('shows a client’s entities with their bits, who sees one, and detaches when closed', {
    timeout: 30_000,
  }, async (t) => {
    const errors: string[] = [];
    const page = await browser!.newPage();
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
    });
    page.on('pageerror', (e) => errors.push(e.message));
    const inspector = demo!.game.inspector();
    assert.equal(inspector.watcherCount, 0, 'nothing traced before the tab opens');
    await page.goto(`${demo!.url}dashboard`);
    await page.click('#tab-inspector');
    await page.waitForSelector('#insp-clients button', { timeout: 5000 });
    await page.click('#insp-clients button');
    await page.waitForFunction(() => window.inspector.rowsWithBits > 0, undefined, { timeout: 8000 });
    const shown = await page.evaluate(() => ({
      ...window.inspector,
      cells: [...document.querySelectorAll('#insp-rows tr')].slice(0, 3).map((r) => r.textContent),
      bits: document.querySelector('#insp-bits')?.textContent,
    }));
    t.diagnostic(JSON.stringify(shown));
    assert.ok(shown.rows > 0 && shown.client >= 0);
    assert.match(shown.bits ?? '', /total \d+ bits/);
    assert.equal(inspector.watcherCount, 1, 'the stream attached one watcher');
    await page.click('#insp-rows tr');
    await page.waitForFunction(() => window.inspector.holders !== '', undefined, { timeout: 5000 });
    assert.match(await page.evaluate(() => window.inspector.holders), /client \d+ \((live|creating)\)/);
    await page.click('#tab-charts');
    const deadline = Date.now() + 5000;
    while (inspector.watcherCount > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    assert.equal(inspector.watcherCount, 0, 'closing the tab detached the trace');
    assert.deepEqual(errors, []);
    await page.close();
  });
});
