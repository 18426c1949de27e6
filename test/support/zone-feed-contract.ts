/**
 * What every ZoneFeed must do, run against each implementation (embedded and Redis): messages
 * arrive asynchronously and in publish order per channel, fan out to every subscriber (on one feed
 * or on several sharing the engine), stop at unsubscribe, come back byte for byte whatever the
 * publisher does with its buffer afterwards, and are bounded in size; a throwing subscriber is
 * reported and harms no other; misuse throws at the call.
 */
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { prng, randomBytes } from '../../src/random/prng.js';
import type { ZoneFeed } from '../../src/zones/zone-feed.js';
import { testSeed } from './seed.js';
import { until } from './until.js';

export interface ZoneFeedSubject {
  /** The feed messages are published on. */
  publisher: ZoneFeed;
  /** Two feeds subscribers use: the publisher itself in one process, others on the same engine. */
  subscribers: [ZoneFeed, ZoneFeed];
  /** Resolves once every subscribe and unsubscribe made so far is in effect. */
  settled(): Promise<void>;
  close(): Promise<void>;
}

/** Makes a subject whose feeds have this size limit and report to `onError`. */
export type MakeZoneFeedSubject = (options: {
  maxMessageBytes: number;
  onError: (error: unknown, where: string) => void;
}) => Promise<ZoneFeedSubject>;

const MAX_MESSAGE_BYTES = 4096;
const WAIT_MS = 5000;

/** Collects what a subscription receives, as copies. */
function collector(feed: ZoneFeed, channel: string) {
  const got: Uint8Array[] = [];
  const unsubscribe = feed.subscribe(channel, (bytes) => got.push(bytes.slice()));
  return { got, unsubscribe };
}

export function zoneFeedContract(
  name: string,
  make: MakeZoneFeedSubject,
  skip: string | false = false,
): void {
  describe(`ZoneFeed contract: ${name}`, { skip }, () => {
    let subject: ZoneFeedSubject | undefined;
    let errors: { error: unknown; where: string }[] = [];
    const fresh = async () => {
      errors = [];
      subject = await make({
        maxMessageBytes: MAX_MESSAGE_BYTES,
        onError: (error, where) => errors.push({ error, where }),
      });
      return subject;
    };
    afterEach(async () => {
      await subject?.close();
      subject = undefined;
    });

    it('delivers asynchronously, in publish order per channel', async () => {
      const { publisher, subscribers, settled } = await fresh();
      const a = collector(subscribers[1], 'a');
      const b = collector(subscribers[1], 'b');
      await settled();
      for (let i = 0; i < 100; i++) {
        publisher.publish('a', Uint8Array.of(1, i));
        publisher.publish('b', Uint8Array.of(2, i));
      }
      assert.equal(a.got.length + b.got.length, 0, 'nothing is delivered during publish');
      await until('both channels', WAIT_MS, () => a.got.length === 100 && b.got.length === 100);
      const expected = (channel: number) => Array.from({ length: 100 }, (_, i) => Uint8Array.of(channel, i));
      assert.deepEqual(a.got, expected(1));
      assert.deepEqual(b.got, expected(2));
    });

    it('fans out to every subscriber of the channel, on one feed or several, and to no other', async () => {
      const { publisher, subscribers, settled } = await fresh();
      const first = collector(subscribers[0], 'border');
      const second = collector(subscribers[0], 'border');
      const third = collector(subscribers[1], 'border');
      const other = collector(subscribers[1], 'other');
      await settled();
      for (let i = 0; i < 5; i++) publisher.publish('border', Uint8Array.of(i));
      publisher.publish('other', Uint8Array.of(99));
      const all = [first, second, third];
      await until(
        'every subscriber',
        WAIT_MS,
        () => all.every((c) => c.got.length === 5) && other.got.length === 1,
      );
      for (const c of all)
        assert.deepEqual(
          c.got,
          [0, 1, 2, 3, 4].map((i) => Uint8Array.of(i)),
        );
      assert.deepEqual(other.got, [Uint8Array.of(99)]);
    });

    it('stops delivery at unsubscribe, at once, and leaves the other subscribers', async () => {
      const { publisher, subscribers, settled } = await fresh();
      const leaving = collector(subscribers[1], 'feed');
      const staying = collector(subscribers[1], 'feed');
      await settled();
      publisher.publish('feed', Uint8Array.of(1));
      await until('the first message', WAIT_MS, () => leaving.got.length === 1 && staying.got.length === 1);
      publisher.publish('feed', Uint8Array.of(2));
      leaving.unsubscribe();
      leaving.unsubscribe();
      publisher.publish('feed', Uint8Array.of(3));
      await until('the later messages', WAIT_MS, () => staying.got.length === 3);
      assert.deepEqual(leaving.got, [Uint8Array.of(1)], 'not even a message already on its way');
      // The last subscriber leaves and a new one comes: the channel works again.
      staying.unsubscribe();
      const again = collector(subscribers[1], 'feed');
      await settled();
      publisher.publish('feed', Uint8Array.of(4));
      await until('the message after resubscribing', WAIT_MS, () => again.got.length === 1);
      assert.deepEqual(again.got, [Uint8Array.of(4)]);
      assert.equal(staying.got.length, 3);
    });

    it('gives back any bytes exactly, though the publisher reuses its buffer at once', async () => {
      const seed = testSeed('zone feed bytes');
      const next = prng(seed);
      const { publisher, subscribers, settled } = await fresh();
      const c = collector(subscribers[1], 'bytes');
      await settled();
      const messages = [
        new Uint8Array(0),
        Uint8Array.from({ length: 256 }, (_, i) => i),
        Uint8Array.of(0xc3, 0x28, 0xff, 0xfe, 0x00, 0xa0),
        randomBytes(next, MAX_MESSAGE_BYTES),
        randomBytes(next, 1 + Math.floor(next() * 1000)),
      ];
      const reused = Buffer.alloc(MAX_MESSAGE_BYTES);
      for (const message of messages) {
        reused.set(message);
        publisher.publish('bytes', reused.subarray(0, message.length));
        reused.fill(0x55);
      }
      await until('every message', WAIT_MS, () => c.got.length === messages.length);
      assert.deepEqual(c.got, messages, `seed ${seed}`);
    });

    it('refuses a message over the limit at publish, and sends one at the limit', async () => {
      const { publisher, subscribers, settled } = await fresh();
      const c = collector(subscribers[1], 'big');
      await settled();
      assert.throws(() => publisher.publish('big', new Uint8Array(MAX_MESSAGE_BYTES + 1)), RangeError);
      publisher.publish('big', new Uint8Array(MAX_MESSAGE_BYTES).fill(7));
      await until('the message at the limit', WAIT_MS, () => c.got.length === 1);
      assert.deepEqual(c.got, [new Uint8Array(MAX_MESSAGE_BYTES).fill(7)]);
    });

    it('reports a throwing subscriber and delivers to the others', async () => {
      const { publisher, subscribers, settled } = await fresh();
      let thrown = 0;
      subscribers[1].subscribe('boom', () => {
        thrown += 1;
        throw new Error('subscriber failed');
      });
      const c = collector(subscribers[1], 'boom');
      await settled();
      publisher.publish('boom', Uint8Array.of(1));
      publisher.publish('boom', Uint8Array.of(2));
      await until('both messages', WAIT_MS, () => c.got.length === 2);
      assert.equal(thrown, 2, 'the throwing subscriber stays subscribed');
      assert.equal(errors.length, 2);
      assert.match(String(errors[0].error), /subscriber failed/);
      assert.match(errors[0].where, /boom/);
    });

    it('throws at the call on misuse, and once closed', async () => {
      const { publisher, subscribers } = await fresh();
      assert.throws(() => publisher.publish('', Uint8Array.of()), RangeError);
      assert.throws(() => publisher.publish('x'.repeat(257), Uint8Array.of()), RangeError);
      assert.throws(() => publisher.publish(5 as unknown as string, Uint8Array.of()), TypeError);
      assert.throws(() => publisher.publish('ok', [1, 2] as unknown as Uint8Array), TypeError);
      assert.throws(() => subscribers[1].subscribe('', () => {}), RangeError);
      assert.throws(() => subscribers[1].subscribe('ok', 'no' as never), TypeError);
      await publisher.close();
      assert.throws(() => publisher.publish('ok', Uint8Array.of()), /closed/);
      assert.throws(() => publisher.subscribe('ok', () => {}), /closed/);
    });
  });
}
