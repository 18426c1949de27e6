/**
 * The embedded zone feed: a FeedHub in this thread with PortZoneFeeds on MessageChannels (as zone
 * workers hold them). Fan-out to every port and the main thread, per-publisher order under a
 * seeded random mix, unsubscribing, ports that close, the limits, and hostile port messages.
 */
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { afterEach, describe, it } from 'node:test';
import { MessageChannel, type MessagePort } from 'node:worker_threads';
import { prng, randomInt } from '../../src/random/prng.js';
import { PortZoneFeed, type ZoneFeedLimits } from '../../src/zones/port-zone-feed.js';
import { FeedHub, type FeedHubPort } from '../../src/zones/zone-feed-hub.js';
import { testSeed } from '../support/seed.js';

let hubs: FeedHub[] = [];

afterEach(async () => {
  for (const hub of hubs) await hub.close();
  hubs = [];
});

function makeHub(limits?: Partial<ZoneFeedLimits>): FeedHub {
  const hub = new FeedHub(limits);
  hubs.push(hub);
  return hub;
}

/** A worker's feed on a fresh channel attached to the hub, with the hub's handle for its port. */
function feedOn(hub: FeedHub, limits?: Partial<ZoneFeedLimits>): { feed: PortZoneFeed; handle: FeedHubPort } {
  const { port1, port2 } = new MessageChannel();
  const handle = hub.attach(port1);
  return { feed: new PortZoneFeed(port2, limits), handle };
}

/** A raw port attached to the hub: posts what a hostile worker would. */
function rawOn(hub: FeedHub): { port: MessagePort; handle: FeedHubPort; received: unknown[] } {
  const { port1, port2 } = new MessageChannel();
  const handle = hub.attach(port1);
  const received: unknown[] = [];
  port2.on('message', (value) => received.push(value));
  return { port: port2, handle, received };
}

/** Lets the ports deliver what was posted (a round trip through the hub and back). */
async function settle(): Promise<void> {
  for (let i = 0; i < 3; i++) await new Promise((resolve) => setImmediate(resolve));
}

async function until(done: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !done(); i++) await new Promise((resolve) => setTimeout(resolve, 2));
  assert.ok(done(), 'timed out waiting');
}

const text = (bytes: Uint8Array): string => new TextDecoder().decode(bytes);
const bytesOf = (value: string): Uint8Array => new TextEncoder().encode(value);

describe('FeedHub and PortZoneFeed', () => {
  it("a port's publish reaches every subscriber of the channel: other ports, its own, the main thread", async () => {
    const hub = makeHub();
    const a = feedOn(hub).feed;
    const b = feedOn(hub).feed;
    const c = feedOn(hub).feed;
    const got: string[] = [];
    a.subscribe('zone:1', (bytes) => got.push(`a ${text(bytes)}`));
    b.subscribe('zone:1', (bytes) => got.push(`b ${text(bytes)}`));
    c.subscribe('zone:2', (bytes) => got.push(`c ${text(bytes)}`));
    hub.subscribe('zone:1', (bytes) => got.push(`main ${text(bytes)}`));
    await settle();
    a.publish('zone:1', bytesOf('x'));
    await until(() => got.length === 3);
    await settle();
    assert.deepEqual(got.sort(), ['a x', 'b x', 'main x']);
    got.length = 0;
    hub.publish('zone:2', bytesOf('y'));
    await until(() => got.length === 1);
    assert.deepEqual(got, ['c y']);
  });

  it('delivers each publisher’s messages in publish order per channel, none lost (seeded random mix)', async () => {
    const seed = testSeed('feed order');
    const next = prng(seed);
    const hub = makeHub();
    const feeds = Array.from({ length: 3 }, () => feedOn(hub).feed);
    const channels = ['n', 'e', 's'];
    /** received[subscriber][channel] = "publisher:seq" in arrival order. */
    const received: Map<string, string[]>[] = [];
    const subscribers: [number, string][] = [];
    for (const [index, feed] of [...feeds, hub].entries()) {
      const byChannel = new Map<string, string[]>();
      received.push(byChannel);
      for (const channel of channels) {
        if (randomInt(next, 3) === 0) continue;
        byChannel.set(channel, []);
        subscribers.push([index, channel]);
        feed.subscribe(channel, (bytes) => byChannel.get(channel)!.push(text(bytes)));
      }
    }
    await settle();
    const sent = new Map<string, string[]>(channels.map((channel) => [channel, []]));
    const seqs = [0, 0, 0, 0];
    for (let step = 0; step < 400; step++) {
      const publisher = randomInt(next, 4);
      const channel = channels[randomInt(next, channels.length)];
      const message = `${publisher}:${seqs[publisher]++}`;
      sent.get(channel)!.push(message);
      (publisher === 3 ? hub : feeds[publisher]).publish(channel, bytesOf(message));
      if (randomInt(next, 20) === 0) await settle();
    }
    const expected = (channel: string): number => sent.get(channel)!.length;
    await until(() =>
      subscribers.every(([index, channel]) => received[index].get(channel)!.length === expected(channel)),
    );
    for (const [index, channel] of subscribers) {
      const got = received[index].get(channel)!;
      for (let publisher = 0; publisher < 4; publisher++) {
        const mine = (list: string[]) => list.filter((message) => message.startsWith(`${publisher}:`));
        assert.deepEqual(
          mine(got),
          mine(sent.get(channel)!),
          `subscriber ${index}, channel ${channel}, seed ${seed}`,
        );
      }
    }
  });

  it('unsubscribing stops delivery; the hub hears only of a channel’s first and last subscriber on a port', async () => {
    const hub = makeHub();
    const { feed, handle } = feedOn(hub);
    const got: string[] = [];
    const first = feed.subscribe('c', (bytes) => got.push(`1 ${text(bytes)}`));
    const second = feed.subscribe('c', (bytes) => got.push(`2 ${text(bytes)}`));
    await settle();
    assert.equal(handle.stats().channels, 1);
    hub.publish('c', bytesOf('a'));
    await until(() => got.length === 2);
    first();
    first();
    hub.publish('c', bytesOf('b'));
    await until(() => got.length === 3);
    assert.deepEqual(got, ['1 a', '2 a', '2 b']);
    second();
    await settle();
    assert.equal(handle.stats().channels, 0);
    const posted = hub.stats().posted;
    hub.publish('c', bytesOf('c'));
    await settle();
    assert.equal(hub.stats().posted, posted, 'nothing posted to a port with no subscriber');
    assert.equal(got.length, 3);
    const unsubscribeMain = hub.subscribe('c', (bytes) => got.push(`main ${text(bytes)}`));
    unsubscribeMain();
    hub.publish('c', bytesOf('d'));
    await settle();
    assert.equal(got.length, 3);
  });

  it('a port that closes, or whose hub handle detaches, gets no more messages and holds no subscription', async () => {
    const hub = makeHub();
    const a = feedOn(hub);
    const b = feedOn(hub);
    a.feed.subscribe('c', () => {});
    b.feed.subscribe('c', () => {});
    await settle();
    assert.equal(hub.stats().ports, 2);
    await a.feed.close();
    await until(() => hub.stats().ports === 1);
    assert.equal(a.handle.stats().channels, 0);
    assert.throws(() => a.feed.publish('c', bytesOf('late')), /closed/);
    b.handle.detach();
    assert.equal(hub.stats().ports, 0);
    const posted = hub.stats().posted;
    hub.publish('c', bytesOf('x'));
    assert.equal(hub.stats().posted, posted);
    await b.feed.close();
  });

  it("a Worker attached as the port is detached when it exits ('exit', as a Worker emits)", () => {
    const hub = makeHub();
    const posted: unknown[] = [];
    const worker = Object.assign(new EventEmitter(), { postMessage: (value: unknown) => posted.push(value) });
    const handle = hub.attach(worker);
    worker.emit('message', { kind: 'zone-feed', op: 'subscribe', channel: 'c' });
    hub.publish('c', bytesOf('x'));
    assert.equal(posted.length, 1);
    worker.emit('exit', 1);
    assert.deepEqual([hub.stats().ports, handle.stats().channels], [0, 0]);
    hub.publish('c', bytesOf('y'));
    assert.equal(posted.length, 1);
  });

  it('a port that loses the hub counts its publishes as lost instead of throwing', async () => {
    const hub = makeHub();
    const { feed } = feedOn(hub);
    await hub.close();
    await settle();
    feed.publish('c', bytesOf('x'));
    assert.equal(feed.stats().lost, 1);
    assert.throws(() => hub.publish('c', bytesOf('x')), /closed/);
    await feed.close();
  });

  it('bytes arrive as Uint8Arrays of the published bytes, whatever the publisher does with its buffer next', async () => {
    const hub = makeHub();
    const { feed } = feedOn(hub);
    const got: Uint8Array[] = [];
    feed.subscribe('c', (bytes) => got.push(bytes));
    hub.subscribe('c', (bytes) => got.push(bytes));
    await settle();
    const buffer = Uint8Array.of(0, 1, 2, 3, 4, 5, 6, 7);
    feed.publish('c', buffer.subarray(2, 5));
    hub.publish('c', buffer.subarray(5));
    buffer.fill(9);
    assert.equal(buffer.byteLength, 8, 'the caller kept its buffer');
    await until(() => got.length === 4);
    for (const bytes of got) assert.ok(bytes instanceof Uint8Array);
    const sorted = got.map((bytes) => [...bytes].join()).sort();
    assert.deepEqual(sorted, ['2,3,4', '2,3,4', '5,6,7', '5,6,7']);
  });

  it('oversized messages and bad channel names are refused at publish and subscribe', () => {
    const hub = makeHub({ maxMessageBytes: 16, maxChannelLength: 8, maxChannelsPerPort: 2 });
    const { feed } = feedOn(hub, { maxMessageBytes: 16, maxChannelLength: 8, maxChannelsPerPort: 2 });
    for (const publisher of [feed, hub]) {
      assert.throws(() => publisher.publish('c', new Uint8Array(17)), RangeError);
      publisher.publish('c', new Uint8Array(16));
      assert.throws(() => publisher.publish('c'.repeat(9), new Uint8Array(1)), RangeError);
      assert.throws(() => publisher.publish('', new Uint8Array(1)), RangeError);
      assert.throws(() => publisher.publish(7 as never, new Uint8Array(1)), TypeError);
      assert.throws(() => publisher.publish('c', [1] as never), TypeError);
      assert.throws(() => publisher.subscribe('c'.repeat(9), () => {}), RangeError);
      assert.throws(() => publisher.subscribe('c', 'f' as never), TypeError);
      publisher.subscribe('a', () => {});
      publisher.subscribe('b', () => {});
      publisher.subscribe('b', () => {});
      assert.throws(() => publisher.subscribe('c', () => {}), RangeError, 'a third channel');
    }
    assert.throws(() => new FeedHub({ maxMessageBytes: 0 }), RangeError);
  });
});

describe('FeedHub: hostile ports', () => {
  it('bad shapes are counted against the port and ignored; the port and the hub keep working', async () => {
    const hub = makeHub({ maxMessageBytes: 16, maxChannelLength: 8 });
    const got: string[] = [];
    hub.subscribe('c', (bytes) => got.push(text(bytes)));
    const raw = rawOn(hub);
    const bad = [
      { kind: 'zone-feed', op: 'publish', channel: 'c', bytes: new Uint8Array(17) },
      { kind: 'zone-feed', op: 'publish', channel: 'c', bytes: [1, 2] },
      { kind: 'zone-feed', op: 'publish', channel: 'c', bytes: new ArrayBuffer(2) },
      { kind: 'zone-feed', op: 'publish', channel: 'c'.repeat(9), bytes: new Uint8Array(1) },
      { kind: 'zone-feed', op: 'publish', channel: '', bytes: new Uint8Array(1) },
      { kind: 'zone-feed', op: 'publish', bytes: new Uint8Array(1) },
      { kind: 'zone-feed', op: 'message', channel: 'c', bytes: new Uint8Array(1) },
      { kind: 'zone-feed', op: 'delete', channel: 'c' },
      { kind: 'zone-feed', op: 'subscribe', channel: 42 },
    ];
    for (const message of bad) raw.port.postMessage(message);
    // Not feed messages: another adapter's, or noise; not counted here.
    raw.port.postMessage({ kind: 'zone-store', id: 1 });
    raw.port.postMessage('noise');
    raw.port.postMessage({ kind: 'zone-feed', op: 'publish', channel: 'c', bytes: bytesOf('ok') });
    await until(() => got.length === 1);
    assert.deepEqual(got, ['ok']);
    assert.deepEqual(raw.handle.stats(), { published: 1, malformed: bad.length, overLimit: 0, channels: 0 });
    assert.equal(hub.stats().malformed, bad.length);
    raw.port.close();
  });

  it('a port subscribing to too many channels is refused past its limit and fed only those it holds', async () => {
    const hub = makeHub({ maxChannelsPerPort: 4 });
    const raw = rawOn(hub);
    for (let i = 0; i < 1000; i++)
      raw.port.postMessage({ kind: 'zone-feed', op: 'subscribe', channel: `c${i}` });
    await until(() => raw.handle.stats().overLimit === 996);
    assert.equal(raw.handle.stats().channels, 4);
    hub.publish('c3', bytesOf('in'));
    hub.publish('c4', bytesOf('out'));
    await until(() => raw.received.length === 1);
    await settle();
    assert.deepEqual(raw.received.length, 1);
    raw.port.close();
  });

  it('a worker feed ignores and counts hub messages of a bad shape', async () => {
    const { port1, port2 } = new MessageChannel();
    const feed = new PortZoneFeed(port2, { maxMessageBytes: 4 });
    const got: Uint8Array[] = [];
    feed.subscribe('c', (bytes) => got.push(bytes));
    port1.on('message', () => {});
    port1.postMessage({ kind: 'zone-feed', op: 'message', channel: 'c', bytes: new Uint8Array(5) });
    port1.postMessage({ kind: 'zone-feed', op: 'publish', channel: 'c', bytes: new Uint8Array(1) });
    port1.postMessage({ kind: 'zone-feed', op: 'message', channel: 'c', bytes: 'x' });
    port1.postMessage({ kind: 'zone-feed', op: 'message', channel: 'c', bytes: Uint8Array.of(1) });
    await until(() => got.length === 1);
    assert.deepEqual(feed.stats(), { delivered: 1, malformed: 3, lost: 0 });
    await feed.close();
  });
});
