/**
 * A real worker thread (test/support/zone-port-worker.ts) using the main thread's EmbeddedZoneStore
 * and FeedHub through ports, as the embedded zoned world runs its zones.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { it } from 'node:test';
import { MessageChannel, Worker } from 'node:worker_threads';
import { EmbeddedZoneStore } from '../../src/zones/embedded-zone-store.js';
import type { MessagePortLike } from '../../src/zones/message-port-like.js';
import { servePortZoneStore } from '../../src/zones/port-zone-store.js';
import { FeedHub } from '../../src/zones/zone-feed-hub.js';

it('a zone worker commits a handoff, reads the inbox and uses the feed through its ports', async () => {
  const store = new EmbeddedZoneStore({ nowMs: () => 1_000_000 });
  const hub = new FeedHub();
  const heard: number[][] = [];
  hub.subscribe('zone:0', (bytes) => heard.push([...bytes]));
  const storeChannel = new MessageChannel();
  const feedChannel = new MessageChannel();
  const serving = servePortZoneStore(store, storeChannel.port1);
  hub.attach(feedChannel.port1);
  const worldId = 5;
  const worker = new Worker(new URL('../support/zone-port-worker.js', import.meta.url), {
    workerData: { storePort: storeChannel.port2, feedPort: feedChannel.port2, worldId },
    transferList: [storeChannel.port2, feedChannel.port2],
  });
  // Node's Worker and MessagePort both fit the adapters' port type (checked by the compiler).
  worker satisfies MessagePortLike;
  storeChannel.port1 satisfies MessagePortLike;
  const [report] = await once(worker, 'message');
  const [exitCode] = await once(worker, 'exit');
  assert.equal(exitCode, 0);

  assert.equal(report.commit, 'ok');
  assert.equal(report.inbox.status, 'ok');
  assert.equal(report.inbox.entries.length, 1);
  assert.deepEqual(
    { ...report.inbox.entries[0], cursor: undefined },
    { cursor: undefined, worldId, from: 0, hseq: 1, tick: 42, payload: Uint8Array.of(10, 20, 30) },
  );
  assert.equal(report.payloadIsBytes, true);
  assert.deepEqual(report.misuse, {
    name: 'RangeError',
    message: 'zone must be an integer in 0..255, got 999',
  });
  assert.deepEqual(report.echo, [7, 8, 9], 'the hub fed the worker its own channel');

  // The main thread's store holds what the worker did; the main thread heard the feed.
  assert.deepEqual(await store.owners([worldId]), [{ zone: 1, hseq: 1 }]);
  assert.equal((await store.lease(1))?.processId, 'worker-b');
  assert.deepEqual(heard, [[7, 8, 9]]);
  assert.equal(serving.stats().answered, 5);
  assert.equal(serving.stats().refused, 0);
  // The worker closed its feed port, which the hub sees as the port's 'close' event: detached.
  for (let i = 0; i < 100 && hub.stats().ports > 0; i++)
    await new Promise((resolve) => setTimeout(resolve, 5));
  assert.equal(hub.stats().ports, 0);
  serving.close();
  await hub.close();
  await store.close();
});
