/**
 * RedisDirectory when Redis misbehaves: restarted mid-run (calls reject promptly while it is down,
 * succeed once it is back, subscriptions are delivered again, and the lost data makes heartbeat
 * answer false so the process registers again) and stalled (calls time out instead of hanging).
 * Damaged entries: redis-directory.test.ts.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { RedisDirectory, RedisUnavailableError } from '../../src/services/redis-directory.js';
import { LOAD, processRecord, roomListing, seatRequest, until } from '../support/directory-contract.js';
import { RedisServer, redisSkip } from '../support/redis.js';

/** Rejects within `ms`, with a RedisUnavailableError. */
async function rejectsPromptly(call: Promise<unknown>, ms: number, what: string): Promise<void> {
  const started = performance.now();
  await assert.rejects(call, RedisUnavailableError, what);
  const took = performance.now() - started;
  assert.ok(took < ms, `${what} took ${took.toFixed(0)} ms to reject (limit ${ms} ms)`);
}

/** Retries `call` until it resolves (Redis is back and ioredis reconnected); fails after `ms`. */
async function eventually<T>(call: () => Promise<T>, what: string, ms = 5000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    try {
      return await call();
    } catch (error) {
      if (Date.now() > deadline) throw new Error(`${what} still failing after ${ms} ms`, { cause: error });
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

describe('RedisDirectory recovery', { skip: redisSkip() }, () => {
  let server: RedisServer;
  before(async () => {
    server = await RedisServer.start();
  });
  after(async () => {
    await server?.dispose();
  });

  it('rejects promptly while Redis is down, then recovers: data lost, subscriptions live', async () => {
    const directory = await RedisDirectory.connect({ url: server.url, keyPrefix: 'restart:' });
    try {
      const got: string[] = [];
      await directory.subscribe('chat', (message) => got.push(message));
      await directory.registerProcess(processRecord('p1'), 60_000);
      await directory.createRoom(roomListing('r1', 'p1'));
      const reserved = await directory.reserveSeat('r1', seatRequest('s1', 60_000));
      assert.ok(reserved.ok);
      const taken = await directory.consumeSeat('s1', 'r1');
      assert.ok(taken.ok);

      await server.stop();
      await rejectsPromptly(directory.getRoom('r1'), 1500, 'getRoom while down');
      await rejectsPromptly(
        directory.reserveSeat('r1', seatRequest('s2', 60_000)),
        1500,
        'reserveSeat while down',
      );
      await rejectsPromptly(directory.heartbeat('p1', 'ready', LOAD, 60_000), 1500, 'heartbeat while down');
      await rejectsPromptly(directory.publish('chat', 'lost'), 1500, 'publish while down');
      await rejectsPromptly(
        directory.subscribe('other', () => {}),
        1500,
        'subscribe while down',
      );

      await server.restart();
      // The restarted server kept nothing: the process learns it from its heartbeat and lists itself again.
      assert.equal(
        await eventually(() => directory.heartbeat('p1', 'ready', LOAD, 60_000), 'heartbeat'),
        false,
      );
      assert.equal(await directory.getRoom('r1'), null);
      await directory.registerProcess(processRecord('p1'), 60_000);
      assert.equal(await directory.createRoom(roomListing('r1', 'p1')), true);
      assert.equal(await directory.restoreSeat(taken.seat), true);
      assert.deepEqual(await directory.getSeat('s1'), taken.seat);
      assert.equal(await directory.heartbeat('p1', 'ready', LOAD, 60_000), true);

      // The subscription made before the restart is renewed on the new server.
      const other = await RedisDirectory.connect({ url: server.url, keyPrefix: 'restart:' });
      try {
        await eventually(async () => {
          await other.publish('chat', 'after restart');
          await until(() => got.length > 0, 'the message after the restart', 200);
        }, 'delivery after the restart');
        assert.ok(got.every((message) => message === 'after restart'));
      } finally {
        await other.close();
      }
    } finally {
      await directory.close();
    }
  });

  it('rejects instead of hanging when Redis stalls, and answers again when it resumes', async () => {
    const directory = await RedisDirectory.connect({
      url: server.url,
      keyPrefix: 'stall:',
      commandTimeoutMs: 300,
    });
    try {
      await directory.registerProcess(processRecord('p1'), 60_000);
      server.pause();
      try {
        await rejectsPromptly(directory.getProcess('p1'), 1500, 'getProcess while stalled');
      } finally {
        server.resume();
      }
      assert.equal((await eventually(() => directory.getProcess('p1'), 'getProcess'))?.processId, 'p1');
    } finally {
      await directory.close();
    }
  });
});
