/**
 * A GameServer's `auth` names who joins: `{ userId }` lets the client in as that user
 * (`player.userId` in the hooks, what gamer services key stats and presence by); false or a
 * reason refuses; a malformed answer is the game's mistake, reported, and the join gets no token.
 */
import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import { after, before, describe, it } from 'node:test';
import '../../src/node.js';
import { GameClient } from '../../src/game/game-client.js';
import { GameServer } from '../../src/game/game-server.js';
import type { JoinVerdict } from '../../src/game/join-endpoint.js';
import { arena, arenaRules, emptyLog } from '../support/test-game.js';
import { until } from '../support/until.js';

describe('GameServer auth names the user', () => {
  let server: GameServer;
  let url: string;
  const errors: string[] = [];
  before(async () => {
    const auth = (request: IncomingMessage): JoinVerdict => {
      const who = request.headers['x-user'];
      if (who === 'banned') return 'banned until tomorrow';
      if (who === 'broken') return { userId: '' };
      if (typeof who === 'string') return { userId: who };
      return true;
    };
    server = await GameServer.start(arenaRules(emptyLog()), {
      port: 0,
      transports: ['udp'],
      auth,
      joinRate: { burst: 100, perSecond: 100 },
      onError: (error, where) => errors.push(`${where}: ${String(error)}`),
    });
    url = `http://127.0.0.1:${server.port}`;
  });
  after(async () => {
    await server.close();
  });

  const as = (user: string | null) =>
    GameClient.connect(arena, url, {
      timeout: 5,
      fetch: (input, init) =>
        fetch(input, { ...init, headers: { ...(user === null ? {} : { 'x-user': user }) } }),
    });

  it('gives each player the user id auth answered, or null when it answered true', async () => {
    const ann = await as('ann');
    const anon = await as(null);
    try {
      await until('both joined', 5000, () => server.simulation.players.length === 2);
      const ids = server.simulation.players.map((p) => p.userId).sort();
      assert.deepEqual(ids, ['ann', null].sort());
    } finally {
      ann.close();
      anon.close();
    }
  });

  it('refuses with the reason auth gave, and reports a malformed verdict without a token', async () => {
    const banned = await fetch(`${url}/ghostwire/join`, { headers: { 'x-user': 'banned' } });
    assert.equal(banned.status, 403);
    assert.match(((await banned.json()) as { error: string }).error, /banned until tomorrow/);
    const broken = await fetch(`${url}/ghostwire/join`, { headers: { 'x-user': 'broken' } });
    assert.ok(broken.status >= 500, `status ${broken.status}`);
    const body = await broken.text();
    assert.doesNotMatch(body, /token/);
    await until('the error reported', 5000, () => errors.some((e) => /userId.*1 to 128 characters/.test(e)));
  });
});
