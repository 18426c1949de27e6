/**
 * The demo server's dashboard routes without a browser (demo/stats.ts, demo/stats-routes.ts): after
 * a few seconds with bots, GET /stats holds a sample a second with a row per bot whose figures are
 * plausible (an RTT, bandwidth both ways, the entities replicated to it, a tick time);
 * /stats/stream sends the next sample as a server-sent event; the dashboard page, its script and
 * uPlot's stylesheet are served.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type DemoServer, startDemoServer } from '../../demo/server.js';
import type { StatsSample } from '../../demo/stats.js';

describe("the demo server's stats", { timeout: 30_000 }, () => {
  let demo: DemoServer;
  before(async () => {
    demo = await startDemoServer({ host: '127.0.0.1', port: 0, bots: 3, seed: 9 });
  });
  after(() => demo.close());

  it('GET /stats: a sample a second, a row per bot, plausible figures', async (t) => {
    // The sent bandwidth is measured over the older half of the last 256 packets sent (the
    // reference's window): at 30 packets a second it reads 0 until that half holds two packets.
    const started = performance.now();
    let samples: StatsSample[] = [];
    while (performance.now() - started < 12_000) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      const response = await fetch(`${demo.url}stats`);
      assert.equal(response.status, 200);
      assert.equal(response.headers.get('content-type'), 'application/json');
      samples = ((await response.json()) as { samples: StatsSample[] }).samples;
      const last = samples.at(-1);
      if (samples.length >= 3 && last !== undefined && last.clients.every((c) => c.kbpsDown > 0)) break;
    }
    const seconds = (performance.now() - started) / 1000;
    t.diagnostic(`after ${seconds.toFixed(1)} s: ${JSON.stringify(samples.at(-1))}`);
    assert.ok(
      samples.length >= 3 && samples.length <= seconds + 1,
      `${samples.length} samples in ${seconds} s`,
    );
    for (let i = 1; i < samples.length; i++) {
      const step = samples[i].t - samples[i - 1].t;
      assert.ok(step > 0.5 && step < 1.8, `a second apart (${step.toFixed(2)} s)`);
    }
    const last = samples.at(-1)!;
    assert.ok(last.ticks >= 20 && last.ticks <= 40, `${last.ticks} ticks in a second (30 Hz)`);
    // The rules' tick (60 orbs wandering) takes well under a millisecond; 100 ms is beyond plausible under load.
    assert.ok(last.tickMs > 0 && last.tickMs < 100, `${last.tickMs} ms per tick`);
    assert.ok(last.tickMsMax >= last.tickMs);
    assert.deepEqual(last.clients.map((c) => c.name).sort(), ['bot 0', 'bot 1', 'bot 2']);
    for (const c of last.clients) {
      assert.equal(c.kind, 'bot');
      assert.ok(c.rtt > 0 && c.rtt < 500, `${c.name} RTT ${c.rtt}`);
      assert.ok(c.loss >= 0 && c.loss < 5, `${c.name} loss ${c.loss} (an in-process link loses nothing)`);
      assert.ok(c.kbpsUp > 1 && c.kbpsDown > c.kbpsUp, `${c.name} ${c.kbpsUp} up, ${c.kbpsDown} down`);
      assert.ok(c.relevant > 10 && c.relevant < 500, `${c.name} relevant ${c.relevant}`);
      assert.ok(Number.isInteger(c.corrections) && c.corrections >= 0 && c.corrections <= 80);
    }
  });

  it('GET /stats/stream sends the next sample as an event', async () => {
    const controller = new AbortController();
    const response = await fetch(`${demo.url}stats/stream`, { signal: controller.signal });
    assert.equal(response.headers.get('content-type'), 'text/event-stream');
    const reader = response.body!.getReader();
    let text = '';
    const until = Date.now() + 3000;
    while (!/data: .*\n\n/.test(text) && Date.now() < until) {
      const { value, done } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
    }
    controller.abort();
    const data = /event: sample\ndata: (.*)\n\n/.exec(text);
    assert.ok(data !== null, text);
    const sample = JSON.parse(data[1]) as StatsSample;
    assert.equal(sample.clients.length, 3);
  });

  it('serves the dashboard page, its script and uPlot.min.css', async () => {
    const page = await fetch(`${demo.url}dashboard`);
    assert.match(await page.text(), /<div id="charts">/);
    const script = await fetch(`${demo.url}dashboard.js`);
    assert.equal(script.headers.get('content-type'), 'text/javascript; charset=utf-8');
    assert.ok((await script.text()).length > 20_000, 'uPlot bundled in');
    const css = await fetch(`${demo.url}uPlot.min.css`);
    assert.match(await css.text(), /\.uplot/);
  });
});
