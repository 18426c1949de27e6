/**
 * The directory's subscriptions over one Redis subscriber connection: one 'message' listener fans
 * each message out to the local handlers of its channel, and the connection subscribes to a channel
 * when its first local handler arrives and unsubscribes when its last one leaves. ioredis sends
 * commands in call order on the one connection, so an UNSUBSCRIBE followed by a SUBSCRIBE of the
 * same channel ends subscribed; after a reconnection it subscribes again to what it had (its
 * autoResubscribe), so subscriptions outlive a Redis restart.
 */
import type { Redis } from 'ioredis';
import type { Unsubscribe } from './directory.js';

type Handler = (message: string) => void;

interface ChannelEntry {
  handlers: Set<Handler>;
  /** The SUBSCRIBE the first handler sent, which later ones wait for too. */
  subscribed: Promise<unknown>;
}

export class RedisChannels {
  private readonly channels = new Map<string, ChannelEntry>();

  /** `prefix` is put before every channel name, so fleets with different prefixes share no channel. */
  constructor(
    private readonly subscriber: Redis,
    private readonly prefix: string,
  ) {
    subscriber.on('message', (channel: string, message: string) => this.deliver(channel, message));
  }

  async subscribe(channel: string, handler: Handler): Promise<Unsubscribe> {
    const name = this.prefix + channel;
    let entry = this.channels.get(name);
    if (entry === undefined) {
      entry = { handlers: new Set(), subscribed: this.subscriber.subscribe(name) };
      this.channels.set(name, entry);
    }
    // Each subscription is its own, even for the same function twice.
    const own: Handler = (message) => handler(message);
    entry.handlers.add(own);
    const mine = entry;
    try {
      await mine.subscribed;
    } catch (error) {
      void this.leave(name, mine, own);
      throw error;
    }
    let left = false;
    return async () => {
      if (left) return;
      left = true;
      await this.leave(name, mine, own);
    };
  }

  /** Forgets every handler (the connection is closing). */
  clear(): void {
    this.channels.clear();
  }

  private async leave(name: string, entry: ChannelEntry, handler: Handler): Promise<void> {
    entry.handlers.delete(handler);
    if (entry.handlers.size > 0 || this.channels.get(name) !== entry) return;
    this.channels.delete(name);
    // Not subscribed on the server when its SUBSCRIBE failed; nothing to undo then.
    const wasSubscribed = await entry.subscribed.then(
      () => true,
      () => false,
    );
    if (wasSubscribed && this.channels.get(name) === undefined) await this.subscriber.unsubscribe(name);
  }

  private deliver(name: string, message: string): void {
    const entry = this.channels.get(name);
    if (entry === undefined) return;
    // Each handler on its own microtask, as the embedded directory delivers: a throwing one harms no other.
    for (const handler of [...entry.handlers]) queueMicrotask(() => handler(message));
  }
}
