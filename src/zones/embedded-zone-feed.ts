/**
 * The zone feed inside one process: the default where every zone and gateway of a world shares a
 * thread (or the main thread relays for workers). A message is copied once at publish and handed
 * to the channel's subscribers of that moment on a later microtask, so delivery is asynchronous as
 * over a network and in publish order per channel (microtasks run first in, first out).
 */
import {
  checkChannel,
  checkHandler,
  checkMessage,
  feedSettings,
  type ZoneFeed,
  type ZoneFeedOptions,
  type ZoneFeedStats,
} from './zone-feed.js';

interface Subscription {
  onBytes: (bytes: Uint8Array) => void;
  /** False once unsubscribed: a message already queued for it is not delivered. */
  active: boolean;
}

export class EmbeddedZoneFeed implements ZoneFeed {
  private readonly channels = new Map<string, Set<Subscription>>();
  private readonly maxMessageBytes: number;
  private readonly onError: (error: unknown, where: string) => void;
  private readonly counts: ZoneFeedStats = {
    publishedMessages: 0,
    deliveredMessages: 0,
    droppedMessages: 0,
    handlerErrors: 0,
  };
  private closed = false;

  constructor(options: ZoneFeedOptions = {}) {
    ({ maxMessageBytes: this.maxMessageBytes, onError: this.onError } = feedSettings(
      options,
      'EmbeddedZoneFeed',
    ));
  }

  publish(channel: string, bytes: Uint8Array): void {
    this.checkOpen();
    checkChannel(channel);
    checkMessage(bytes, this.maxMessageBytes);
    this.counts.publishedMessages += 1;
    const subscriptions = this.channels.get(channel);
    if (subscriptions === undefined) return;
    // A plain copy: a Buffer's slice() would be a view of the publisher's memory.
    const copy = new Uint8Array(bytes);
    const targets = [...subscriptions];
    queueMicrotask(() => {
      for (const subscription of targets) this.deliver(channel, subscription, copy);
    });
  }

  subscribe(channel: string, onBytes: (bytes: Uint8Array) => void): () => void {
    this.checkOpen();
    checkChannel(channel);
    checkHandler(onBytes);
    let subscriptions = this.channels.get(channel);
    if (subscriptions === undefined) {
      subscriptions = new Set();
      this.channels.set(channel, subscriptions);
    }
    const subscription: Subscription = { onBytes, active: true };
    subscriptions.add(subscription);
    return () => {
      if (!subscription.active) return;
      subscription.active = false;
      const current = this.channels.get(channel);
      current?.delete(subscription);
      if (current?.size === 0) this.channels.delete(channel);
    };
  }

  stats(): ZoneFeedStats {
    return { ...this.counts };
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const subscriptions of this.channels.values()) {
      for (const subscription of subscriptions) subscription.active = false;
    }
    this.channels.clear();
  }

  private deliver(channel: string, subscription: Subscription, bytes: Uint8Array): void {
    if (!subscription.active) return;
    this.counts.deliveredMessages += 1;
    try {
      subscription.onBytes(bytes);
    } catch (error) {
      this.counts.handlerErrors += 1;
      this.onError(error, `subscriber of '${channel}'`);
    }
  }

  private checkOpen(): void {
    if (this.closed) throw new Error('the zone feed is closed');
  }
}
