/**
 * The demo's gamer services in real Chromium: a page signs in with the device id it keeps (the
 * same account after a reload), plays as that account (the server's player has its userId), sees
 * the zaps leaderboard with the bots on it, asks a bot to be its friend and sees it in the arena;
 * a second page (another browser profile) is asked from the board, accepts, and the first sees
 * it in the arena too. The Node part (the board from the API) runs everywhere; the pages are
 * skipped with the reason where Chromium is absent, except under CI=true or GHOSTWIRE_REQUIRE_BROWSER=1.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import type { GamerPanelStatus } from '../../demo/gamer-panel.js';
import { type DemoServer, startDemoServer } from '../../demo/server.js';
import { chromiumSkip, launchChromium } from '../support/chromium.js';
import { until } from '../support/until.js';

declare global {
  interface Window {
    ghostwireGamer: GamerPanelStatus;
  }
}

describe('the demo keeps a zaps leaderboard and shows friends', { timeout: 90_000 }, () => {
  let demo: DemoServer | undefined;
  before(async () => {
    demo = await startDemoServer({ host: '127.0.0.1', port: 0, bots: 3, seed: 11 });
  });
  after(() => demo?.close());

  it('puts the bots, each an account, on the board as they zap', async () => {
    const post = await fetch(new URL('/api/auth', demo!.url), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ device: 'node-reader-device-0001' }),
    });
    const { session } = (await post.json()) as { session: string };
    let names: string[] = [];
    await until('the bots on the board', 20_000, async () => {
      const answer = await fetch(new URL('/api/leaderboards/zaps?limit=10', demo!.url), {
        headers: { authorization: `Bearer ${session}` },
      });
      const page = (await answer.json()) as { records: { displayName: string; score: number }[] };
      names = page.records.filter((r) => r.score > 0).map((r) => r.displayName);
      return names.some((n) => /^Bot \d$/.test(n));
    });
    const ids = demo!.game.simulation.players.map((p) => p.userId);
    assert.ok(ids.length >= 3 && ids.every((id) => typeof id === 'string'), `${ids}`);
  });

  it('a page signs in, plays as its account, befriends a bot and a second page', {
    skip: chromiumSkip(),
  }, async () => {
    const browser: Browser = await launchChromium();
    try {
      const errors: string[] = [];
      const open = async (): Promise<Page> => {
        const page = await (await browser.newContext()).newPage();
        page.on('pageerror', (error) => errors.push(error.message));
        await page.goto(`${demo!.url}?bot=1`);
        await page.waitForFunction(
          () => window.ghostwire?.connected === true && window.ghostwireGamer !== undefined,
          undefined,
          {
            timeout: 15_000,
          },
        );
        return page;
      };
      const accountOf = (page: Page) => page.evaluate(() => window.ghostwire.accountId);
      const panel = (page: Page) => page.evaluate(() => ({ ...window.ghostwireGamer }));

      const a = await open();
      const idA = await accountOf(a);
      assert.ok(typeof idA === 'string');
      await until('the page plays as its account', 10_000, () =>
        demo!.game.simulation.players.some((p) => p.userId === idA),
      );
      await a.reload();
      await a.waitForFunction(() => window.ghostwire?.connected === true);
      assert.equal(await accountOf(a), idA, 'the same account after a reload (its device id kept)');

      // A bot on the board: ask it; the bots accept every request within seconds.
      await a.waitForFunction(
        () => window.ghostwireGamer.leaderboard.some((r) => / Bot \d /.test(r)),
        undefined,
        {
          timeout: 20_000,
        },
      );
      await a.click('li:has-text("Bot") button.ask-friend');
      await a.waitForFunction(
        () => window.ghostwireGamer.friends.some((f) => /^Bot \d in-match$/.test(f)),
        undefined,
        {
          timeout: 15_000,
        },
      );

      // A second player: on the board once it zaps; the first asks it, it accepts.
      const b = await open();
      const idB = (await accountOf(b))!;
      await b.waitForFunction(() => window.ghostwireGamer.mine !== null, undefined, { timeout: 30_000 });
      await a.waitForFunction(
        (id) => document.querySelector(`button.ask-friend[data-account="${id}"]`) !== null,
        idB,
        { timeout: 10_000 },
      );
      await a.click(`button.ask-friend[data-account="${idB}"]`);
      await b.waitForFunction(() => window.ghostwireGamer.requests === 1, undefined, { timeout: 10_000 });
      await b.click('button.accept-friend');
      await a.waitForFunction(
        () => window.ghostwireGamer.friends.some((f) => /^Player \d{4} in-match$/.test(f)),
        undefined,
        { timeout: 10_000 },
      );
      const shown = await panel(a);
      assert.equal(shown.friends.length, 2, JSON.stringify(shown.friends));
      assert.deepEqual(errors, []);
    } finally {
      await browser.close();
    }
  });
});
