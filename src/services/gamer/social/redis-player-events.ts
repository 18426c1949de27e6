/**
 * Player events across backends: a Redis channel per player (<prefix>events:<accountId>), which a
 * backend subscribes to while it holds at least one stream of that player's (one SUBSCRIBE per
 * player, however many streams). A publish reaches every backend holding a stream of the player,
 * in publish order. When the subscriber connection drops, events published meanwhile are lost,
 * so every listener is told (`onLost`) and the streams end: their clients reconnect and resume.
 */
import type { GamerRedis } from '../gamer-redis.js';
import type { GamerEvent, PlayerEvents, Unsubscribe } from '../player-events.js';

type Listener = (event: GamerEvent) => void;

/** Each message is ours, yet read as any input: bounded, and skipped when it is not an event. */
const MAX_MESSAGE_BYTES = 16 * 1024;

export class RedisPlayerEvents implements PlayerEvents {
  private readonly listeners = new Map<string, Set<Listener>>();
  /** Each subscribed player's SUBSCRIBE, resolved when Redis acknowledged it. */
  private readonly subscribing = new Map<string, Promise<void>>();
  private readonly lostListeners = new Set<() => void>();
  /** Players whose UNSUBSCRIBE failed (Redis down): ioredis subscribes them again on reconnecting. */
  private readonly stale = new Set<string>();
  private readonly onMessage = (channel: string, message: string) => this.deliver(channel, message);
  private readonly onClose = () => this.lose();
  private readonly onReady = () => this.dropStale();
  private closed = false;

  constructor(private readonly redis: GamerRedis) {
    redis.subscriber.on('message', this.onMessage);
    redis.subscriber.on('close', this.onClose);
    redis.subscriber.on('ready', this.onReady);
  }

  private channel(accountId: string): string {
    return `${this.redis.prefix}events:${accountId}`;
  }

  /** Whether the subscriber connection is up (a stream opened now would hear its events). */
  available(): boolean {
    return !this.closed && this.redis.subscriber.status === 'ready';
  }

  /** Calls `listener` whenever the subscriber connection drops (events may have been lost). */
  onLost(listener: () => void): Unsubscribe {
    this.lostListeners.add(listener);
    return () => this.lostListeners.delete(listener);
  }

  async publish(accountId: string, event: GamerEvent): Promise<void> {
    await this.redis.commands.publish(this.channel(accountId), JSON.stringify(event));
  }

  async publishMany(accountIds: readonly string[], event: GamerEvent): Promise<void> {
    if (accountIds.length === 0) return;
    const text = JSON.stringify(event);
    const pipeline = this.redis.commands.pipeline();
    for (const accountId of accountIds) pipeline.publish(this.channel(accountId), text);
    const answers = (await pipeline.exec()) ?? [];
    const failed = answers.find(([error]) => error !== null);
    if (failed !== undefined) throw failed[0];
  }

  subscribe(accountId: string, listener: Listener): Unsubscribe {
    let set = this.listeners.get(accountId);
    if (set === undefined) {
      set = new Set();
      this.listeners.set(accountId, set);
      const subscribing = this.redis.subscriber.subscribe(this.channel(accountId)).then(() => {});
      subscribing.catch(() => {}); // told through ready()
      this.subscribing.set(accountId, subscribing);
    }
    set.add(listener);
    return () => {
      const current = this.listeners.get(accountId);
      if (current === undefined || !current.delete(listener) || current.size > 0) return;
      this.listeners.delete(accountId);
      this.subscribing.delete(accountId);
      this.unsubscribeChannel(accountId);
    };
  }

  /** Resolves once events for `accountId` published from now on reach its listeners; rejects when Redis cannot be reached. */
  ready(accountId: string): Promise<void> {
    return this.subscribing.get(accountId) ?? Promise.resolve();
  }

  async close(): Promise<void> {
    this.closed = true;
    this.redis.subscriber.off('message', this.onMessage);
    this.redis.subscriber.off('close', this.onClose);
    this.redis.subscriber.off('ready', this.onReady);
    this.stale.clear();
    this.listeners.clear();
    this.subscribing.clear();
    this.lostListeners.clear();
  }

  private unsubscribeChannel(accountId: string): void {
    this.redis.subscriber.unsubscribe(this.channel(accountId)).then(
      () => this.stale.delete(accountId),
      () => {
        if (!this.closed) this.stale.add(accountId);
      },
    );
  }

  /** After a reconnection: the channels subscribed again with no one listening are let go. */
  private dropStale(): void {
    for (const accountId of [...this.stale]) {
      this.stale.delete(accountId);
      if (!this.listeners.has(accountId)) this.unsubscribeChannel(accountId);
    }
  }

  private lose(): void {
    if (this.closed || this.lostListeners.size === 0) return;
    for (const listener of [...this.lostListeners]) {
      try {
        listener();
      } catch {
        // each its own
      }
    }
  }

  private deliver(channel: string, message: string): void {
    const start = `${this.redis.prefix}events:`;
    if (!channel.startsWith(start) || message.length > MAX_MESSAGE_BYTES) return;
    const set = this.listeners.get(channel.slice(start.length));
    if (set === undefined) return;
    let event: GamerEvent;
    try {
      event = JSON.parse(message) as GamerEvent;
    } catch {
      return;
    }
    if (event === null || typeof event !== 'object' || typeof event.kind !== 'string') return;
    for (const listener of [...set]) {
      try {
        listener(event);
      } catch {
        // one stream's failure is its own
      }
    }
  }
}
