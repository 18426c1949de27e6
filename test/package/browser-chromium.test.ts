/**
 * The browser bundle in real Chromium (headless, driven by playwright-core): a page served from
 * 127.0.0.1 imports dist/browser/ghostwire.js as `npm run bundle` builds it (built here in memory),
 * runs the shared scenario (schema round trip, connect token, netcode handshake over the in-memory
 * network) and posts its results back to the server; the test checks them in Node, checks the page
 * logged no error, and takes a screenshot. Skipped with the reason where Chromium is absent
 * (test/support/chromium.ts), except under CI=true or GHOSTWIRE_REQUIRE_BROWSER=1.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { buildBrowserBundle } from '../../scripts/browser-bundle.js';
import {
  browserScenario,
  checkScenarioResult,
  type ScenarioInput,
  type ScenarioResult,
} from '../support/browser-scenario.js';
import { chromiumSkip, launchChromium } from '../support/chromium.js';

const INPUT: ScenarioInput = {
  privateKey: Array.from({ length: 32 }, (_, i) => (i * 11 + 3) & 0xff),
  unixNow: 1_700_000_000,
  serverAddress: '10.0.0.100:40000',
};

/** What the page posts to /result: the scenario's result, or what it threw. */
type PageReport = { result: ScenarioResult } | { error: string };

// No favicon request (a 404 would be a console error); the script is a file of its own, as a page
// under a strict Content-Security-Policy would have it.
const PAGE = `<!doctype html>
<html><head><meta charset="utf-8"><title>ghostwire bundle</title><link rel="icon" href="data:,"></head>
<body style="font: 14px monospace; margin: 24px"><h1>ghostwire in Chromium</h1><pre id="out">running…</pre>
<script type="module" src="page.js"></script></body></html>`;

/** The page's script: the scenario, then its result shown and posted back. */
const PAGE_SCRIPT = `import * as ghostwire from './ghostwire.js';
const browserScenario = ${browserScenario.toString()};
let report;
try {
  report = { result: browserScenario(ghostwire, ${JSON.stringify(INPUT)}) };
  const { result } = report;
  document.getElementById('out').textContent = [
    'AEAD: ' + result.aead + (result.codegen ? ', compiled schemas' : ', interpreted schemas'),
    'schema: ' + result.schema.compiledHex.length / 2 + ' bytes, decoded ' + JSON.stringify(result.schema.value),
    'connect token: ' + (result.token.ok ? 'read, server ' + result.token.serverAddresses.join(' ') : result.token.reason),
    'netcode handshake: ' + result.handshake.described,
  ].join('\\n');
} catch (error) {
  report = { error: String((error && error.stack) || error) };
  document.getElementById('out').textContent = report.error;
}
await fetch('result', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(report) });
document.getElementById('out').id = 'done';
`;

/**
 * Serves the page, its script and the bundle, at / and under a strict Content-Security-Policy at
 * /strict/ (no eval: schemas fall back to the interpreter); keeps what the pages post, in order.
 */
function startServer(bundle: { code: string; map: string }) {
  const reports: PageReport[] = [];
  const files: Record<string, [string, string]> = {
    '/': ['text/html; charset=utf-8', PAGE],
    '/page.js': ['text/javascript; charset=utf-8', PAGE_SCRIPT],
    '/ghostwire.js': ['text/javascript; charset=utf-8', bundle.code],
    '/ghostwire.js.map': ['application/json', bundle.map],
  };
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const path = request.url ?? '';
    if (request.method === 'POST' && path.endsWith('/result')) {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        reports.push(JSON.parse(Buffer.concat(chunks).toString('utf8')) as PageReport);
        response.writeHead(204).end();
      });
      return;
    }
    const strict = path.startsWith(STRICT);
    const file = request.method === 'GET' ? files[strict ? path.slice(STRICT.length - 1) : path] : undefined;
    if (file === undefined) {
      response.writeHead(404).end();
      return;
    }
    const headers: Record<string, string> = { 'content-type': file[0] };
    if (strict) headers['content-security-policy'] = "script-src 'self'";
    response.writeHead(200, headers).end(file[1]);
  });
  return { server, reports };
}

/** Where the same page is served under a Content-Security-Policy without 'unsafe-eval'. */
const STRICT = '/strict/';

describe('the browser bundle in real Chromium', { skip: chromiumSkip(), timeout: 20_000 }, () => {
  let browser: Browser | undefined;
  let server: Server | undefined;
  let reports: PageReport[] = [];
  let origin = '';
  before(async () => {
    const started = startServer(await buildBrowserBundle());
    server = started.server;
    reports = started.reports;
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    if (server !== undefined) await new Promise((resolve) => server!.close(resolve));
  });

  /** Opens `path` in a new page, waits until it has posted its report; the page's errors beside it. */
  async function visit(path: string): Promise<{ page: Page; report: PageReport; errors: string[] }> {
    const page = await browser!.newPage();
    const errors: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(`console: ${message.text()}`);
    });
    page.on('pageerror', (error) => errors.push(`page: ${error.message}`));
    await page.goto(`${origin}${path}`);
    await page.waitForSelector('#done'); // set once the server has the report
    assert.equal(reports.length, 1, 'one report from the page');
    return { page, report: reports.shift()!, errors };
  }

  it('a page imports the bundle, round-trips a schema, reads a connect token, connects; no console errors', async (t) => {
    const { page, report, errors } = await visit('/');
    assert.ok('result' in report, 'error' in report ? report.error : '');
    checkScenarioResult(report.result, INPUT);
    assert.equal(report.result.codegen, true, 'Chromium runs the generated schema code (no CSP here)');
    assert.deepEqual(errors, []);

    const screenshot = join(mkdtempSync(join(tmpdir(), 'ghostwire-chromium-')), 'bundle-page.png');
    await page.screenshot({ path: screenshot });
    const png = readFileSync(screenshot);
    assert.ok(png.length > 1000, `${png.length} bytes`);
    assert.deepEqual([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'a PNG');
    t.diagnostic(`Chromium ${browser!.version()}; screenshot: ${screenshot}`);
    await page.close();
  });

  it('under a Content-Security-Policy without eval, schemas fall back to the interpreter, same bytes', async () => {
    const { page, report, errors } = await visit(STRICT);
    assert.ok('result' in report, 'error' in report ? report.error : '');
    checkScenarioResult(report.result, INPUT);
    assert.equal(report.result.codegen, false);
    assert.deepEqual(errors, [], 'the bundle probes for eval without an error in the console');
    await page.close();
  });
});
