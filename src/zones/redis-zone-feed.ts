/**
 * The zone feed over Redis PUBLISH/SUBSCRIBE, for zones and gateways on several machines. Messages
 * are binary (Buffers both ways) on channels named keyPrefix + channel. Publishing uses its own
 * connection and never waits: while Redis is unreachable a message is dropped (counted, and the
 * first loss of each outage reported), as the feed is lossy by design. Subscribing uses a dedicated
 * subscriber connection that keeps its subscriptions across reconnections (ioredis resubscribes),
 * one Redis subscription per channel however many local subscribers it has; a SUBSCRIBE takes one
 * round trip, and messages published before it lands are not seen (whenSubscribed() waits for it).
 * Received messages over maxMessageBytes (from a publisher configured otherwise, or not ours) are
 * dropped and counted.
 */
import { RedisUnavailableError } from '../services/redis-directory.js';
import { RedisZoneConnection, type RedisZoneConnectionOptions } from './redis-zone-connection.js';
import {
  checkChannel,
  checkHandler,
  checkMessage,
  feedSettings,
  type ZoneFeed,
  type ZoneFeedOptions,
  type ZoneFeedStats,
} from './zone-feed.js';

export interface RedisZoneFeedOptions extends RedisZoneConnectionOptions, ZoneFeedOptions {}

interface Subscription {
  onBytes: (bytes: Uint8Array) => void;
  active: boolean;
}

export class RedisZoneFeed implements ZoneFeed {
  private readonly publisher: RedisZoneConnection;
  private readonly subscriber: RedisZoneConnection;
  private readonly prefix: string;
  private readonly maxMessageBytes: number;
  private readonly onError: (error: unknown, where: string) => void;
  /** Local subscriptions by full Redis channel name. */
  private readonly channels = new Map<string, Set<Subscription>>();
  /** SUBSCRIBE and UNSUBSCRIBE commands not yet answered. */
  private readonly inFlight = new Set<Promise<unknown>>();
  private readonly counts: ZoneFeedStats = {
    publishedMessages: 0,
    deliveredMessages: 0,
    droppedMessages: 0,
    handlerErrors: 0,
  };
  /** True from a lost publish until the next one that reaches Redis: one report per outage. */
  private inOutage = false;
  private closed = false;

  constructor(options: RedisZoneFeedOptions = {}) {
    ({ maxMessageBytes: this.maxMessageBytes, onError: this.onError } = feedSettings(
      options,
      'RedisZoneFeed',
    ));
    this.prefix = options.keyPrefix ?? 'gw:zones:feed:';
    this.publisher = new RedisZoneConnection(options, 'RedisZoneFeed');
    this.subscriber = new RedisZoneConnection(options, 'RedisZoneFeed', true);
    this.subscriber.redis.on('messageBuffer', (channel: Buffer, message: Buffer) =>
      this.receive(channel, message),
    );
  }

  /** A feed whose connections are ready; rejects (and closes it) if Redis is not reachable in time. */
  static async connect(options: RedisZoneFeedOptions & { timeoutMs?: number } = {}): Promise<RedisZoneFeed> {
    const feed = new RedisZoneFeed(options);
    try {
      const timeoutMs = options.timeoutMs ?? 5000;
      await Promise.all([feed.publisher.untilReady(timeoutMs), feed.subscriber.untilReady(timeoutMs)]);
    } catch (error) {
      await feed.close();
      throw error;
    }
    return feed;
  }

  publish(channel: string, bytes: Uint8Array): void {
    this.checkOpen();
    checkChannel(channel);
    checkMessage(bytes, this.maxMessageBytes);
    if (this.publisher.redis.status !== 'ready') {
      this.lost(
        new RedisUnavailableError(`RedisZoneFeed: Redis unavailable (${this.publisher.redis.status})`),
      );
      return;
    }
    // Buffer.from copies: the publisher may reuse its buffer before the command is written.
    const message = Buffer.from(bytes);
    this.counts.publishedMessages += 1;
    this.publisher
      .run((redis) => redis.publish(this.prefix + channel, message))
      .then(
        () => {
          this.inOutage = false;
        },
        (error: unknown) => this.lost(error),
      );
  }

  subscribe(channel: string, onBytes: (bytes: Uint8Array) => void): () => void {
    this.checkOpen();
    checkChannel(channel);
    checkHandler(onBytes);
    const name = this.prefix + channel;
    let subscriptions = this.channels.get(name);
    if (subscriptions === undefined) {
      subscriptions = new Set();
      this.channels.set(name, subscriptions);
      this.track(this.subscriber.redis.subscribe(name), `subscribe '${channel}'`);
    }
    const subscription: Subscription = { onBytes, active: true };
    subscriptions.add(subscription);
    return () => {
      if (!subscription.active) return;
      subscription.active = false;
      const current = this.channels.get(name);
      current?.delete(subscription);
      if (current?.size !== 0 || this.closed) return;
      this.channels.delete(name);
      // Commands on one connection run in order: an UNSUBSCRIBE then a SUBSCRIBE ends subscribed.
      this.track(this.subscriber.redis.unsubscribe(name), `unsubscribe '${channel}'`);
    };
  }

  /** Resolves once every SUBSCRIBE and UNSUBSCRIBE asked so far has been answered by Redis. */
  async whenSubscribed(): Promise<void> {
    await Promise.all([...this.inFlight]);
  }

  stats(): ZoneFeedStats {
    return { ...this.counts };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const subscriptions of this.channels.values()) {
      for (const subscription of subscriptions) subscription.active = false;
    }
    this.channels.clear();
    this.publisher.close();
    this.subscriber.close();
  }

  private receive(channel: Buffer, message: Buffer): void {
    const subscriptions = this.channels.get(channel.toString());
    if (subscriptions === undefined) return;
    if (message.byteLength > this.maxMessageBytes) {
      this.counts.droppedMessages += 1;
      return;
    }
    // One plain copy for every subscriber (the reply Buffer may share memory with others).
    const bytes = new Uint8Array(message);
    for (const subscription of [...subscriptions]) {
      if (!subscription.active) continue;
      this.counts.deliveredMessages += 1;
      try {
        subscription.onBytes(bytes);
      } catch (error) {
        this.counts.handlerErrors += 1;
        this.onError(error, `subscriber of '${channel.toString().slice(this.prefix.length)}'`);
      }
    }
  }

  private track(command: Promise<unknown>, where: string): void {
    const settled = command.then(
      () => {},
      (error: unknown) => {
        if (!this.closed) this.onError(error, where);
      },
    );
    this.inFlight.add(settled);
    void settled.finally(() => this.inFlight.delete(settled));
  }

  private lost(error: unknown): void {
    this.counts.droppedMessages += 1;
    if (this.inOutage || this.closed) return;
    this.inOutage = true;
    this.onError(error, 'publish (messages are dropped until Redis answers again)');
  }

  private checkOpen(): void {
    if (this.closed) throw new Error('the zone feed is closed');
  }
}
