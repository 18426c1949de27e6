/**
 * GameClient.connect against a hostile or wrong server's join endpoint (a real HTTP server on
 * loopback): every bad answer rejects the connect promise with a clear reason, within its
 * timeout, and nothing is thrown elsewhere.
 */
import assert from 'node:assert/strict';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import '../../src/node.js';
import { GameClient } from '../../src/game/game-client.js';
import { arena } from '../support/test-game.js';

const TOKEN = Buffer.alloc(2048, 7).toString('base64');

const answer = (fields: Record<string, unknown>) =>
  JSON.stringify({
    game: arena.name,
    token: TOKEN,
    serverAddress: '127.0.0.1:9',
    udp: true,
    websocket: null,
    webrtc: null,
    ...fields,
  });

/** Each path answers as one hostile or wrong server would. */
const ROUTES: Record<string, (response: ServerResponse) => void> = {
  '/huge': (response) => {
    // A body with no length that never ends on its own: megabytes of it.
    response.writeHead(200, { 'content-type': 'application/json' });
    const chunk = Buffer.alloc(65536, 32);
    for (let i = 0; i < 64; i++) response.write(chunk);
    response.end('{}');
  },
  '/other-game': (response) => response.end(answer({ game: 'chess' })),
  '/bad-base64': (response) => response.end(answer({ token: `${'!'.repeat(2732)}=` })),
  '/short-token': (response) => response.end(answer({ token: Buffer.alloc(100).toString('base64') })),
  '/bad-address': (response) => response.end(answer({ serverAddress: 'nowhere' })),
  '/not-json': (response) => response.end('<html>hello</html>'),
  '/refused': (response) => response.writeHead(429, { 'retry-after': '30' }).end('{"error":"slow down"}'),
  '/silent': () => {}, // never answers
  '/udp-only': (response) => response.end(answer({})),
};

describe('GameClient.connect against a bad join answer', () => {
  let server: Server;
  let base: string;
  before(async () => {
    server = createServer((request, response) => {
      const route = (request.url ?? '').replace('/ghostwire/join', '');
      ROUTES[route]?.(response);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const cases: [string, RegExp][] = [
    ['/huge', /join answer over 16384 bytes/],
    ['/other-game', /serves the game "chess", not "test-arena"/],
    ['/bad-base64', /bad connect token \(not 2048 bytes of base64\)/],
    ['/short-token', /bad connect token/],
    ['/bad-address', /bad server address "nowhere"/],
    ['/not-json', /is not a ghostwire game server \(bad join answer\)/],
    ['/refused', /refused to join: 429 \{"error":"slow down"\}/],
    ['/silent', /could not be asked to join: timed out|no connection within the timeout \(1 s\)/],
  ];
  it('rejects a UDP-only server for a client that cannot use UDP, saying so (not a transport error)', async () => {
    await assert.rejects(
      GameClient.connect(arena, `${base}/udp-only`, { transport: 'websocket', timeout: 1 }),
      /serves only UDP, not websocket/,
    );
  });

  for (const [route, reason] of cases)
    it(`rejects ${route.slice(1)} with its reason`, async () => {
      // The server's URL with a path: the join request goes to <url>/ghostwire/join.
      await assert.rejects(GameClient.connect(arena, `${base}${route}`, { timeout: 1 }), reason);
    });
});
