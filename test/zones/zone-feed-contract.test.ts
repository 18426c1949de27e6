/**
 * The ZoneFeed contract (test/support/zone-feed-contract.ts) run against both feeds: the embedded
 * one (publisher and subscribers are one feed), and the Redis one on a real redis-server (the
 * publisher hears itself, and a second feed on the same prefix stands for another process).
 */
import { after } from 'node:test';
import { EmbeddedZoneFeed } from '../../src/zones/embedded-zone-feed.js';
import { RedisZoneFeed } from '../../src/zones/redis-zone-feed.js';
import { RedisServer, redisSkip } from '../support/redis.js';
import { zoneFeedContract } from '../support/zone-feed-contract.js';

zoneFeedContract('embedded', async (options) => {
  const feed = new EmbeddedZoneFeed(options);
  return { publisher: feed, subscribers: [feed, feed], settled: async () => {}, close: () => feed.close() };
});

let server: Promise<RedisServer> | undefined;
after(async () => {
  await (await server)?.dispose();
});
let subjects = 0;

zoneFeedContract(
  'redis',
  async (options) => {
    server ??= RedisServer.start();
    const { url } = await server;
    subjects += 1;
    const settings = { ...options, url, keyPrefix: `feed-${subjects}:` };
    const publisher = await RedisZoneFeed.connect(settings);
    const other = await RedisZoneFeed.connect(settings);
    return {
      publisher,
      subscribers: [publisher, other],
      settled: async () => {
        await Promise.all([publisher.whenSubscribed(), other.whenSubscribed()]);
      },
      close: async () => {
        await Promise.all([publisher.close(), other.close()]);
      },
    };
  },
  redisSkip(),
);
