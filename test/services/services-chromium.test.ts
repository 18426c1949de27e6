/**
 * The join path from a real browser: a page in headless Chromium imports the bundle, and with the
 * bundle's BackendClient authenticates and asks for a seat on WebSocket, connects with its
 * MessageClient and mirrors the room with its ClientMirror, beside a Node player over UDP in the
 * same room. The page is served from 127.0.0.1 with the backend under /api on the same origin (a
 * reverse proxy, as a game would deploy it); the room server's WebSocket is on a port of its own.
 * The test checks the page's mirror against the server's room and the Node player's mirror against
 * the page's player. Skipped with the reason where Chromium is absent (test/support/chromium.ts),
 * except under CI=true or GHOSTWIRE_REQUIRE_BROWSER=1.
 */
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { buildBrowserBundle } from '../../scripts/browser-bundle.js';
import type * as Ghostwire from '../../src/browser.js';
import { BackendClient } from '../../src/join/backend-client.js';
import { type LocalFleet, startLocalFleet } from '../../src/services/local-fleet.js';
import { roomChannel } from '../../src/services/room-channels.js';
import { chromiumSkip, launchChromium } from '../support/chromium.js';
import { factory, PROTOCOL_ID, Score, TestRoom } from '../support/room-scene.js';
import { mirroredPlayers, Players, until } from '../support/services-players.js';

type Ghost = { room: string; seat?: number; score?: number };
interface PageResult {
  roomId: string;
  transport: string;
  /** The values of every ghost the page mirrors, in ghost-id order. */
  ghosts: Ghost[];
}
type PageReport = { result: PageResult } | { error: string };
interface PageInput {
  api: string;
  /** What the page adds to its score. */
  add: number;
  /** Players it waits to mirror. */
  players: number;
}

/**
 * Runs in the page on the bundle's exports (its source goes into the page's script): the same
 * entity types and message as test/support/room-scene.ts, in the same order.
 */
async function joinInPage(gw: typeof Ghostwire, input: PageInput): Promise<PageResult> {
  const { t } = gw;
  const Player = gw.defineEntity(
    'player',
    t.object({ room: t.string(8), seat: t.uint16(), score: t.uint16() }),
  );
  const Banner = gw.defineEntity('banner', t.object({ room: t.string(8) }));
  const ScoreMessage = gw.defineMessage('score', t.object({ add: t.int(1, 100) }));
  const backend = new gw.BackendClient({ url: input.api });
  await backend.auth({ name: 'page' });
  const seat = await backend.joinOrCreate('lobby', { transport: 'websocket' });
  const mirror = new gw.ClientMirror({ types: [Player, Banner], capacity: 64 });
  const messages = new gw.MessageClient({
    transport: new gw.WebSocketClientTransport({
      url: `ws://${seat.serverAddress}/`,
      serverAddress: seat.serverAddress,
    }),
    factory: new gw.MessageFactory([ScoreMessage]),
    channels: [mirror.channel, { kind: 'reliable-ordered' }],
  });
  const started = performance.now();
  const now = () => (performance.now() - started) / 1000;
  messages.connect(seat.connectToken, now());
  const pump = setInterval(() => messages.update(now()), 1000 / 60);
  const ghosts = (): Ghost[] => {
    const out: Ghost[] = [];
    for (let id = 0; id < 64; id++) {
      const ghost = mirror.ghost(id);
      if (ghost !== null) out.push(ghost.value as Ghost);
    }
    return out;
  };
  const until = async (what: string, check: () => boolean) => {
    const end = performance.now() + 8000;
    while (!check()) {
      if (performance.now() > end)
        throw new Error(`page: timed out waiting for ${what}; state ${messages.client.state}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  try {
    await until('the connection', () => messages.client.state === gw.ClientState.Connected);
    messages.send(1, ScoreMessage, { add: input.add });
    await until('every player, its own score among them', () => {
      const players = ghosts().filter((g) => g.seat !== undefined);
      return players.length === input.players && players.some((g) => g.score === input.add);
    });
    return { roomId: seat.roomId, transport: seat.transport, ghosts: ghosts() };
  } finally {
    clearInterval(pump);
  }
}

const PAGE = `<!doctype html>
<html><head><meta charset="utf-8"><title>ghostwire join</title><link rel="icon" href="data:,"></head>
<body><script type="module" src="page.js"></script></body></html>`;

function pageScript(input: PageInput): string {
  return `import * as ghostwire from './ghostwire.js';
const joinInPage = ${joinInPage.toString()};
try {
  window.report = { result: await joinInPage(ghostwire, ${JSON.stringify(input)}) };
} catch (error) {
  window.report = { error: String((error && error.stack) || error) };
}
`;
}

/** Serves the page and the bundle, and passes /api/* on to the backend (same origin: no CORS). */
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

describe('the join path from real Chromium over WebSocket', { skip: chromiumSkip(), timeout: 20_000 }, () => {
  let browser: Browser | undefined;
  let fleet: LocalFleet | undefined;
  let pages: Server | undefined;
  let players: Players | undefined;
  let origin = '';
  const INPUT = { add: 3, players: 2 };

  before(async () => {
    const bundle = await buildBrowserBundle();
    [fleet, browser] = await Promise.all([
      startLocalFleet({
        rooms: { lobby: { type: TestRoom, defaults: { maxClients: 4, tickRate: 20 } } },
        protocolId: PROTOCOL_ID,
        factory,
        channels: [roomChannel('replication'), { kind: 'reliable-ordered' }],
        transports: ['udp', 'websocket'],
        backend: { rateLimit: false },
      }),
      launchChromium(),
    ]);
    pages = startPageServer(
      {
        '/': ['text/html; charset=utf-8', PAGE],
        '/ghostwire.js': ['text/javascript; charset=utf-8', bundle.code],
        '/ghostwire.js.map': ['application/json', bundle.map],
        // The page finds the backend on its own origin, under /api.
        '/page.js': ['text/javascript; charset=utf-8', pageScript({ api: '/api', ...INPUT })],
      },
      () => fleet!.url,
    );
    await new Promise<void>((resolve) => pages!.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(pages.address() as AddressInfo).port}`;
    players = new Players();
  });
  after(async () => {
    players?.close();
    await browser?.close();
    if (pages !== undefined) await new Promise((resolve) => pages!.close(resolve));
    await fleet?.close();
  });

  it('a page authenticates, joins over WebSocket and mirrors the room the server holds, beside a UDP player', async () => {
    // A Node player over UDP is in the room first, with a score of 4.
    const node = new BackendClient({ url: fleet!.url });
    await node.auth({ name: 'node' });
    const seat = await node.joinOrCreate('lobby', { transport: 'udp' });
    const udp = await players!.connect(seat.connectToken);
    await until('the UDP player to mirror itself', 5000, () => mirroredPlayers(udp).length === 1);
    udp.messages.send(1, Score, { add: 4 });
    await until('its score to reach it', 5000, () => mirroredPlayers(udp)[0]?.score === 4);

    const page = await browser!.newPage();
    const errors: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(`console: ${message.text()}`);
    });
    page.on('pageerror', (error) => errors.push(`page: ${error.message}`));
    await page.goto(`${origin}/`);
    await page.waitForFunction(() => (window as { report?: unknown }).report !== undefined, null, {
      timeout: 12_000,
    });
    const report = (await page.evaluate(() => (window as { report?: unknown }).report)) as PageReport;
    assert.ok('result' in report, 'error' in report ? report.error : '');
    const { result } = report;
    assert.deepEqual([result.roomId, result.transport], [seat.roomId, 'websocket'], 'the UDP player’s room');

    // What the server's room holds: its banner and a player entity per seat.
    const room = fleet!.servers[0].room(seat.roomId) as TestRoom;
    const held = [{ room: room.tag }, ...[...room.players.values()].map((e) => room.world.get(e))];
    const bySeat = (list: Ghost[]) =>
      [...list].sort((a, b) => (a.seat ?? -1) - (b.seat ?? -1)).map((g) => JSON.stringify(g));
    assert.deepEqual(bySeat(result.ghosts), bySeat(held));
    assert.deepEqual(
      result.ghosts
        .filter((g) => g.seat !== undefined)
        .map((g) => g.score)
        .sort(),
      [3, 4],
    );
    // And the UDP player mirrors the page's player.
    await until('the UDP player to see the page’s score', 5000, () =>
      mirroredPlayers(udp).some((g) => g.score === 3),
    );
    assert.deepEqual(errors, []);
    await page.close();
  });
});
