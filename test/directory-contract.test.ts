/**
 * The Directory contract (test/support/directory-contract.ts) run against both implementations:
 * the embedded one on a fake clock, and RedisDirectory against a real redis-server with real short
 * TTLs, two directories (two connections) sharing it as two processes of a fleet would.
 */
import { after } from 'node:test';
import { EmbeddedDirectory } from '../src/services/embedded-directory.js';
import { RedisDirectory } from '../src/services/redis-directory.js';
import { directoryContract } from './support/directory-contract.js';
import { RedisServer, redisSkip } from './support/redis.js';

directoryContract(
  'embedded',
  async () => {
    let now = 1_700_000_000_000;
    const directory = new EmbeddedDirectory({ now: () => now });
    return {
      directory,
      peer: directory,
      elapse: async (ms) => {
        now += ms;
      },
      close: () => directory.close(),
    };
  },
  { ttlMs: 1000 },
);

const skip = redisSkip();
let server: RedisServer | null = null;
let subjects = 0;
after(async () => {
  await server?.dispose();
});

directoryContract(
  'redis',
  async () => {
    // Started by the first test that needs it (a missing required server fails these tests only).
    server ??= await RedisServer.start();
    // Each test on its own key prefix: nothing left by another test is seen.
    const options = { url: server.url, keyPrefix: `contract${++subjects}:` };
    const [directory, peer] = await Promise.all([
      RedisDirectory.connect(options),
      RedisDirectory.connect(options),
    ]);
    return {
      directory,
      peer,
      elapse: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
      close: async () => {
        await Promise.all([directory.close(), peer.close()]);
      },
    };
  },
  { ttlMs: 400, skip },
);
