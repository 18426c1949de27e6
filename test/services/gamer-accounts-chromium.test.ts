/**
 * Accounts and storage from a real browser: a page in headless Chromium imports the bundle, keeps
 * its device id in localStorage (storedDeviceId), signs in as a guest, picks a display name and
 * writes a save with versions; reloaded, it is the same account and reads its save back. The
 * backend (embedded gamer services) is under /api on the page's origin. Skipped with the reason
 * where Chromium is absent (test/support/chromium.ts), except under CI=true or GHOSTWIRE_REQUIRE_BROWSER=1.
 */
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { buildBrowserBundle } from '../../scripts/browser-bundle.js';
import type * as Ghostwire from '../../src/browser.js';
import { createBackend, type ServedBackend, serveBackend } from '../../src/services/backend.js';
import { EmbeddedDirectory } from '../../src/services/embedded-directory.js';
import { type GamerServices, openGamerServices } from '../../src/services/gamer/gamer-services.js';
import { PRIVATE_KEY, PROTOCOL_ID } from '../support/backend-fixture.js';
import { chromiumSkip, launchChromium } from '../support/chromium.js';

interface Visit {
  deviceId: string;
  accountId: string;
  displayName: string | null;
  before: { value: unknown; version: number } | null;
  put: unknown;
  stale: unknown;
}

/** Runs in the page on the bundle's exports: one visit of a player. */
async function visit(gw: typeof Ghostwire, api: string): Promise<Visit> {
  const gamer = new gw.GamerClient(new gw.BackendClient({ url: api }));
  const deviceId = gw.storedDeviceId();
  const { accountId } = await gamer.accounts.signIn({ device: deviceId });
  let me = await gamer.accounts.get();
  if (me.displayName === null) me = await gamer.accounts.rename('Page Ann');
  const save = await gamer.storage.get('saves', 'slot-1');
  const n = save === null ? 1 : (save.value as { n: number }).n + 1;
  const put = await gamer.storage.put('saves', 'slot-1', { n }, { version: save?.version ?? 0 });
  const stale = await gamer.storage.put('saves', 'slot-1', { n: -1 }, { version: save?.version ?? 0 });
  return {
    deviceId,
    accountId,
    displayName: me.displayName,
    before: save === null ? null : { value: save.value, version: save.version },
    put,
    stale,
  };
}

const PAGE = `<!doctype html>
<html><head><meta charset="utf-8"><title>ghostwire accounts</title><link rel="icon" href="data:,"></head>
<body><script type="module" src="page.js"></script></body></html>`;

const SCRIPT = `import * as ghostwire from './ghostwire.js';
const visit = ${visit.toString()};
try {
  window.report = { result: await visit(ghostwire, '/api') };
} catch (error) {
  window.report = { error: String((error && error.stack) || error) };
}
`;

function startPageServer(files: Record<string, [string, string]>, backendUrl: () => string): Server {
  return createServer((request: IncomingMessage, response: ServerResponse) => {
    const path = request.url ?? '';
    if (path.startsWith('/api/')) {
      void proxy(request, response, `${backendUrl()}${path.slice('/api'.length)}`);
      return;
    }
    const file = request.method === 'GET' ? files[path] : undefined;
    if (file === undefined) response.writeHead(404).end();
    else response.writeHead(200, { 'content-type': file[0] }).end(file[1]);
  });
}

async function proxy(request: IncomingMessage, response: ServerResponse, target: string): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const headers: Record<string, string> = {};
  for (const name of ['content-type', 'authorization']) {
    const value = request.headers[name];
    if (typeof value === 'string') headers[name] = value;
  }
  const answer = await fetch(target, {
    method: request.method ?? 'GET',
    headers,
    ...(chunks.length === 0 ? {} : { body: Buffer.concat(chunks) }),
  });
  response
    .writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' })
    .end(Buffer.from(await answer.arrayBuffer()));
}

describe('gamer accounts and storage from real Chromium', { skip: chromiumSkip(), timeout: 30_000 }, () => {
  let browser: Browser | undefined;
  let gamer: GamerServices | undefined;
  let served: ServedBackend | undefined;
  let pages: Server | undefined;
  let origin = '';

  before(async () => {
    let bundle: Awaited<ReturnType<typeof buildBrowserBundle>>;
    [bundle, gamer, browser] = await Promise.all([
      buildBrowserBundle(),
      openGamerServices(),
      launchChromium(),
    ]);
    const backend = createBackend({
      directory: new EmbeddedDirectory(),
      privateKey: PRIVATE_KEY,
      protocolId: PROTOCOL_ID,
      rateLimit: false,
      sweepIntervalMs: 0,
      gamer,
    });
    served = await serveBackend(backend);
    pages = startPageServer(
      {
        '/': ['text/html; charset=utf-8', PAGE],
        '/ghostwire.js': ['text/javascript; charset=utf-8', bundle.code],
        '/ghostwire.js.map': ['application/json', bundle.map],
        '/page.js': ['text/javascript; charset=utf-8', SCRIPT],
      },
      () => served!.url,
    );
    await new Promise<void>((resolve) => pages!.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(pages.address() as AddressInfo).port}`;
  });
  after(async () => {
    await browser?.close();
    if (pages !== undefined) await new Promise((resolve) => pages!.close(resolve));
    await served?.close();
    await gamer?.close();
  });

  it('a page signs in by its stored device id, names itself and keeps a versioned save across reloads', async () => {
    const page = await browser!.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(`page: ${error.message}`));
    const load = async (): Promise<Visit> => {
      await page.goto(`${origin}/`);
      await page.waitForFunction(() => (window as { report?: unknown }).report !== undefined, null, {
        timeout: 15_000,
      });
      const report = (await page.evaluate(() => (window as { report?: unknown }).report)) as
        | { result: Visit }
        | { error: string };
      assert.ok('result' in report, 'error' in report ? report.error : '');
      return report.result;
    };
    const first = await load();
    assert.match(first.deviceId, /^[A-Za-z0-9_-]{22}$/);
    assert.equal(first.displayName, 'Page Ann');
    assert.equal(first.before, null);
    assert.deepEqual(first.put, { ok: true, version: 1 });
    assert.deepEqual(first.stale, { ok: false, currentVersion: 1 }, 'create-only over an existing save');
    const second = await load();
    assert.equal(second.deviceId, first.deviceId, 'localStorage kept the device id');
    assert.equal(second.accountId, first.accountId, 'the same account');
    assert.deepEqual(second.before, { value: { n: 1 }, version: 1 });
    assert.deepEqual(second.put, { ok: true, version: 2 });
    assert.deepEqual(second.stale, { ok: false, currentVersion: 2 });
    const account = await gamer!.accounts.get(first.accountId);
    assert.equal(account?.displayName, 'Page Ann');
    assert.equal(account?.registered, false);
    assert.deepEqual((await gamer!.storage.read(first.accountId, 'saves', 'slot-1'))?.value, { n: 2 });
    assert.deepEqual(errors, []);
    await page.close();
  });
});
