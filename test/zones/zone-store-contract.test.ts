/**
 * The ZoneStore contract (test/support/zone-store-contract.ts) run against every implementation:
 * the embedded store on a fake clock, its peer being the same store (one thread holds it for every
 * zone); and the Redis store on a real redis-server, its peer a second store on its own connection
 * (another process), with lease time let pass by the store's test clock offset, which both share
 * (the server's TIME plus the offset: no test waits out a TTL, so a busy machine cannot make a
 * renewed lease look lapsed).
 */
import { after } from 'node:test';
import { EmbeddedZoneStore } from '../../src/zones/embedded-zone-store.js';
import { RedisZoneStore } from '../../src/zones/redis-zone-store.js';
import { RedisServer, redisSkip } from '../support/redis.js';
import { zoneStoreContract } from '../support/zone-store-contract.js';

zoneStoreContract(
  'embedded',
  async (limits) => {
    let now = 1_700_000_000_000;
    const store = new EmbeddedZoneStore({ nowMs: () => now, limits });
    return {
      store,
      peer: store,
      elapse: async (ms) => {
        now += ms;
      },
      close: () => store.close(),
    };
  },
  { ttlMs: 1000 },
);

let server: Promise<RedisServer> | undefined;
after(async () => {
  await (await server)?.dispose();
});
let subjects = 0;

zoneStoreContract(
  'redis',
  async (limits) => {
    server ??= RedisServer.start();
    const { url } = await server;
    // A fresh prefix per subject: every test starts on an empty store.
    subjects += 1;
    let offsetMs = 0;
    const options = { url, keyPrefix: `contract-${subjects}:`, limits, testClockOffsetMs: () => offsetMs };
    const store = await RedisZoneStore.connect(options);
    const peer = await RedisZoneStore.connect(options);
    return {
      store,
      peer,
      elapse: async (ms) => {
        offsetMs += Math.ceil(ms);
      },
      close: async () => {
        await Promise.all([store.close(), peer.close()]);
      },
    };
  },
  { ttlMs: 1000, skip: redisSkip() },
);
