/**
 * RedisZoneFeed beyond the shared contract: what arrives from outside is bounded (a message over the
 * limit from a publisher that is not ours is dropped and counted), publishing while Redis is down
 * drops messages with one report per outage and never throws, subscriptions outlive a Redis
 * restart, and feeds on different prefixes share no channel.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { RedisZoneFeed } from '../../src/zones/redis-zone-feed.js';
import { RedisServer, redisSkip } from '../support/redis.js';
import { until } from '../support/until.js';

describe('RedisZoneFeed', { skip: redisSkip() }, () => {
  let server: RedisServer;
  before(async () => {
    server = await RedisServer.start();
  });
  after(async () => {
    await server?.dispose();
  });

  it('drops a received message over the limit, and takes binary ones from any publisher', async () => {
    const feed = await RedisZoneFeed.connect({ url: server.url, keyPrefix: 'raw:', maxMessageBytes: 16 });
    const raw = new Redis(server.url);
    try {
      const got: Uint8Array[] = [];
      feed.subscribe('in', (bytes) => got.push(bytes.slice()));
      await feed.whenSubscribed();
      await raw.publish('raw:in', Buffer.alloc(17, 1));
      await raw.publish('raw:in', Buffer.from([0xff, 0x00, 0xfe]));
      await until('the small message', 5000, () => got.length === 1);
      assert.deepEqual(got, [Uint8Array.of(0xff, 0x00, 0xfe)]);
      assert.equal(feed.stats().droppedMessages, 1);
      assert.equal(feed.stats().deliveredMessages, 1);
    } finally {
      raw.disconnect();
      await feed.close();
    }
  });

  it('drops what is published while Redis is down, reports it once, and resubscribes after a restart', async () => {
    const errors: string[] = [];
    const onError = (_error: unknown, where: string) => errors.push(where);
    const options = { url: server.url, keyPrefix: 'restart:', onError };
    const publisher = await RedisZoneFeed.connect(options);
    const subscriber = await RedisZoneFeed.connect(options);
    try {
      const got: number[] = [];
      subscriber.subscribe('tick', (bytes) => got.push(bytes[0]));
      await subscriber.whenSubscribed();
      publisher.publish('tick', Uint8Array.of(1));
      await until('the message before the restart', 5000, () => got.length === 1);

      await server.stop();
      await until('the publisher to see Redis gone', 5000, () => {
        publisher.publish('tick', Uint8Array.of(2));
        return publisher.stats().droppedMessages > 0;
      });
      for (let i = 0; i < 10; i++) publisher.publish('tick', Uint8Array.of(2));
      assert.equal(errors.length, 1, `one report per outage: ${errors}`);
      await server.restart();

      // ioredis reconnects both and subscribes again; publish until a message gets through.
      await until('a message after the restart', 10_000, () => {
        publisher.publish('tick', Uint8Array.of(3));
        return got.includes(3);
      });
      assert.ok(!got.includes(2), 'nothing published during the outage arrives');
      assert.ok(publisher.stats().droppedMessages >= 11);
    } finally {
      await Promise.all([publisher.close(), subscriber.close()]);
    }
  });

  it('keeps feeds on different prefixes apart', async () => {
    const one = await RedisZoneFeed.connect({ url: server.url, keyPrefix: 'world-1:' });
    const two = await RedisZoneFeed.connect({ url: server.url, keyPrefix: 'world-2:' });
    try {
      const heardOne: number[] = [];
      const heardTwo: number[] = [];
      one.subscribe('border', (bytes) => heardOne.push(bytes[0]));
      two.subscribe('border', (bytes) => heardTwo.push(bytes[0]));
      await Promise.all([one.whenSubscribed(), two.whenSubscribed()]);
      two.publish('border', Uint8Array.of(2));
      one.publish('border', Uint8Array.of(1));
      await until('both', 5000, () => heardOne.length === 1 && heardTwo.length === 1);
      assert.deepEqual([heardOne, heardTwo], [[1], [2]]);
    } finally {
      await Promise.all([one.close(), two.close()]);
    }
  });
});
