/**
 * A zone worker for test/zones/port-zone-worker.test.ts: it reaches the main thread's store and
 * feed only through the two ports it is given (workerData), commits a handoff from zone 0 to zone
 * 1, reads zone 1's inbox, hears its own feed message back from the hub, and reports what it saw.
 */
import { type MessagePort, parentPort, workerData } from 'node:worker_threads';
import { PortZoneFeed } from '../../src/zones/port-zone-feed.js';
import { PortZoneStore } from '../../src/zones/port-zone-store.js';

const { storePort, feedPort, worldId } = workerData as {
  storePort: MessagePort;
  feedPort: MessagePort;
  worldId: number;
};
const store = new PortZoneStore(storePort);
const feed = new PortZoneFeed(feedPort);

const a = await store.acquireLease(0, 'worker-a', 10_000);
const b = await store.acquireLease(1, 'worker-b', 10_000);
if (a === null || b === null) throw new Error('the worker did not get its leases');
const commit = await store.commitHandoff({
  worldId,
  from: 0,
  fromEpoch: a.epoch,
  to: 1,
  hseq: 1,
  tick: 42,
  payload: Uint8Array.of(10, 20, 30),
});
const inbox = await store.readInbox(1, b.epoch, { from: 'new' }, 10);
const misuse = await store.acquireLease(999, 'worker-a', 10_000).then(
  () => null,
  (error: Error) => ({ name: error.constructor.name, message: error.message }),
);

const echoed = new Promise<Uint8Array>((resolve) => feed.subscribe('zone:0', resolve));
feed.publish('zone:0', Uint8Array.of(7, 8, 9));
const echo = await echoed;

parentPort?.postMessage({
  commit,
  inbox,
  payloadIsBytes: inbox.status === 'ok' && inbox.entries[0]?.payload instanceof Uint8Array,
  misuse,
  echo: [...echo],
});
await store.close();
await feed.close();
