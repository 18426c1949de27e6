/**
 * The same join-path suite on the embedded directory and on a real redis-server (skipped with the
 * reason where redis-server is absent, failing under CI=true as the other Redis tests do).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { startLocalFleet } from '../../src/services/local-fleet.js';
import { RedisServer, redisSkip } from '../support/redis.js';
import { factory, PROTOCOL_ID, TestRoom } from '../support/room-scene.js';
import { joinPathSuite } from '../support/services-suite.js';

joinPathSuite('embedded directory', {});
joinPathSuite('Redis', {
  skip: redisSkip(),
  redis: async () => {
    const server = await RedisServer.start();
    return { url: server.url, close: () => server.dispose() };
  },
});

describe('startLocalFleet misuse', () => {
  it('throws RangeError at the call for no room types or a bad server count, leaving nothing open', async () => {
    await assert.rejects(startLocalFleet({ rooms: {}, protocolId: PROTOCOL_ID, factory }), RangeError);
    await assert.rejects(
      startLocalFleet({ rooms: { test: TestRoom }, protocolId: PROTOCOL_ID, factory, servers: 0 }),
      /servers must be an integer >= 1/,
    );
    await assert.rejects(
      startLocalFleet({
        rooms: { test: { type: TestRoom, defaults: { tickRate: 0 } } },
        protocolId: PROTOCOL_ID,
        factory,
      }),
      /tickRate/,
    );
  });
});
