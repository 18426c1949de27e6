/**
 * The join endpoint under a hostile client, over real HTTP and UDP on loopback: 127.0.0.1 and ::1
 * are two client addresses. One address asking for tokens in a loop cannot take every player's
 * place, nor ask faster than its rate; a page of another site gets no token.
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { after, before, describe, it } from 'node:test';
import '../../src/node.js';
import { GameClient } from '../../src/game/game-client.js';
import { GameServer, type GameServerOptions } from '../../src/game/game-server.js';
import { registeredUdpOpener } from '../../src/game/transport-openers.js';
import { arena, arenaRules, emptyLog } from '../support/test-game.js';
import { until } from '../support/until.js';

/** A TCP port free on every address now (the server takes it on TCP and UDP). */
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '::', resolve));
  const port = (probe.address() as { port: number }).port;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

/** A server on every address (HTTP dual-stack), its tokens naming UDP on [::1]. */
async function startDualStack(
  options: GameServerOptions,
): Promise<{ server: GameServer; v4: string; v6: string }> {
  const port = await freePort();
  const server = await GameServer.start(arenaRules(emptyLog()), {
    host: '::',
    port,
    publicAddress: `[::1]:${port}`,
    transports: ['udp'],
    ...options,
  });
  return { server, v4: `http://127.0.0.1:${port}`, v6: `http://[::1]:${port}` };
}

async function join(url: string, headers: Record<string, string> = {}) {
  const response = await fetch(`${url}/ghostwire/join`, { headers });
  const body = (await response.json()) as { token?: string; error?: string };
  return { response, body };
}

/** Connects a netcode client with a token the caller fetched (an attacker's own client). */
async function connectWithToken(token: string): Promise<GameClient> {
  const transport = await registeredUdpOpener()!(`[::1]:0`);
  return GameClient.connect(
    arena,
    { token: new Uint8Array(Buffer.from(token, 'base64')), transport },
    { timeout: 5 },
  );
}

describe('GameServer join endpoint limits', () => {
  let server: GameServer;
  let v4: string;
  let v6: string;
  const clients: GameClient[] = [];
  before(async () => {
    ({ server, v4, v6 } = await startDualStack({
      maxPlayers: 4,
      maxPlayersPerAddress: 2,
      joinRate: { burst: 100, perSecond: 100 },
    }));
  });
  after(async () => {
    for (const client of clients) client.close();
    await server.close();
  });

  it('one address asking for tokens in a loop holds maxPlayersPerAddress players; another address still joins', async () => {
    const tokens: string[] = [];
    let refused = 0;
    for (let i = 0; i < 20; i++) {
      const { response, body } = await join(v4);
      if (response.status === 200) tokens.push(body.token!);
      else {
        assert.equal(response.status, 429);
        assert.match(body.error ?? '', /already holds 2 players/);
        assert.ok(Number(response.headers.get('retry-after')) > 0, 'a Retry-After');
        refused++;
      }
    }
    assert.equal(tokens.length, 2);
    assert.equal(refused, 18);
    // The attacker connects what it got: the server keeps room for everyone else.
    for (const token of tokens) clients.push(await connectWithToken(token));
    const player = await GameClient.connect(arena, v6, { timeout: 5 });
    clients.push(player);
    assert.equal(player.status, 'connected');
    assert.equal(server.stats().players, 3);
    assert.equal(server.stats().joinsOverAddressCap, 18);
  });

  it("a player who leaves frees its address's place", async () => {
    // The ::1 address holds one player (above); a second join fills it, a third is refused.
    const second = await GameClient.connect(arena, v6, { timeout: 5 });
    assert.equal((await join(v6)).response.status, 429);
    second.close();
    await until('the server sees the player leave', 5000, () => server.stats().players === 3);
    const third = await GameClient.connect(arena, v6, { timeout: 5 });
    clients.push(third);
    assert.equal(third.status, 'connected');
  });
});

describe('GameServer join endpoint rate and origins', () => {
  let server: GameServer;
  let v4: string;
  let v6: string;
  before(async () => {
    ({ server, v4, v6 } = await startDualStack({
      maxPlayers: 64,
      maxPlayersPerAddress: 64,
      joinRate: { burst: 3, perSecond: 0.01 },
      allowOrigins: ['http://localhost:5173'],
    }));
  });
  after(() => server.close());

  it('requests beyond the burst get 429 with Retry-After; another address has its own budget', async () => {
    const statuses: number[] = [];
    let retryAfter = 0;
    for (let i = 0; i < 6; i++) {
      const { response } = await join(v4);
      statuses.push(response.status);
      if (response.status === 429) retryAfter = Number(response.headers.get('retry-after'));
    }
    assert.deepEqual(statuses, [200, 200, 200, 429, 429, 429]);
    assert.ok(retryAfter >= 1, `Retry-After ${retryAfter}`);
    assert.equal((await join(v6)).response.status, 200);
    assert.equal(server.stats().joinsRateLimited, 3);
  });

  it("a page of another site gets no token; the server's own pages and listed origins do", async () => {
    const issued = server.stats().tokensIssued;
    const evil = await join(v6, { origin: 'https://evil.example' });
    assert.equal(evil.response.status, 403);
    assert.equal(evil.body.token, undefined);
    assert.equal(evil.response.headers.get('access-control-allow-origin'), null);
    assert.equal(server.stats().tokensIssued, issued, 'no token minted for the other site');
    assert.equal(server.stats().joinsWrongOrigin, 1);

    const own = await join(v6, { origin: v6 });
    assert.equal(own.response.status, 200);
    const listed = await join(v6, { origin: 'http://localhost:5173' });
    assert.equal(listed.response.status, 200);
    assert.equal(listed.response.headers.get('access-control-allow-origin'), 'http://localhost:5173');
    // Not a page (no Origin): no CORS header at all.
    assert.equal((await join(v6)).response.headers.get('access-control-allow-origin'), null);
  });
});

describe('GameServer join endpoint, many addresses', () => {
  it('live tokens stay bounded whatever the number of addresses (503 beyond)', async () => {
    // Addresses as a reverse proxy would report them: the documented clientAddress hook.
    const server = await GameServer.start(arenaRules(emptyLog()), {
      port: 0,
      transports: ['udp'],
      maxPlayers: 8,
      clientAddress: (request) => String(request.headers['x-client-ip']),
    });
    try {
      const statuses = new Map<number, number>();
      for (let i = 0; i < 80; i++) {
        const { response } = await join(server.url, { 'x-client-ip': `10.0.${i >> 8}.${i & 255}` });
        statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
      }
      assert.deepEqual(
        [...statuses],
        [
          [200, 64],
          [503, 16],
        ],
      );
      assert.equal(server.stats().joinsServerBusy, 16);
    } finally {
      await server.close();
    }
  });
});
