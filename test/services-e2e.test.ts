/**
 * The same join-path suite on the embedded directory and on a real redis-server (skipped with the
 * reason where redis-server is absent, failing under CI=true as the other Redis tests do).
 */

import { RedisServer, redisSkip } from './support/redis.js';
import { joinPathSuite } from './support/services-suite.js';

joinPathSuite('embedded directory', {});
joinPathSuite('Redis', {
  skip: redisSkip(),
  redis: async () => {
    const server = await RedisServer.start();
    return { url: server.url, close: () => server.dispose() };
  },
});
