/**
 * The main thread's end of the embedded zone feed: every zone worker's port attaches here, and
 * each message published on a port, or here, goes to every subscriber of its channel on every
 * port (the publisher's own included, as Redis PUBLISH does) and in the main thread (the gateway).
 * Subscriptions are per port and per channel; a port that closes or whose worker exits is
 * detached. What arrives from a port is read as hostile: a message of a bad shape or past the
 * limits is counted against the port and ignored, and a port holds a bounded number of channels.
 */
import { closePort, type MessagePortLike, onPortEnd, tryPost } from './message-port-like.js';
import {
  checkPortChannel,
  checkPortMessage,
  FEED_MESSAGE_KIND,
  feedLimits,
  readFeedOp,
  type ZoneFeedLimits,
} from './port-zone-feed.js';
import type { ZoneFeed } from './zone-feed.js';

export interface FeedHubPortStats {
  /** Messages this port published. */
  published: number;
  /** Messages of a bad shape or past the limits: ignored. */
  malformed: number;
  /** Subscriptions refused because the port held its limit of channels. */
  overLimit: number;
  /** Channels the port is subscribed to now. */
  channels: number;
}

/** One port attached to the hub. */
export interface FeedHubPort {
  /** Drops the port's subscriptions and stops reading it (the port itself stays open). */
  detach(): void;
  stats(): FeedHubPortStats;
}

export interface FeedHubStats {
  /** Ports attached now. */
  ports: number;
  /** Messages published, from ports and from the main thread. */
  published: number;
  /** Copies posted to subscribed ports. */
  posted: number;
  /** Bad messages from every port, detached ones included. */
  malformed: number;
  overLimit: number;
}

type OnBytes = (bytes: Uint8Array) => void;

interface AttachedPort {
  port: MessagePortLike;
  channels: Set<string>;
  counts: { published: number; malformed: number; overLimit: number };
  detached: boolean;
}

export class FeedHub implements ZoneFeed {
  private readonly limits: ZoneFeedLimits;
  private readonly ports = new Set<AttachedPort>();
  private readonly portsByChannel = new Map<string, Set<AttachedPort>>();
  /** The main thread's own subscribers by channel. */
  private readonly local = new Map<string, Set<{ onBytes: OnBytes }>>();
  private readonly counts = { published: 0, posted: 0, malformed: 0, overLimit: 0 };
  private closed = false;

  constructor(limits: Partial<ZoneFeedLimits> = {}) {
    this.limits = feedLimits(limits);
  }

  /** Reads the port's publishes and subscriptions until it ends or is detached. */
  attach(port: MessagePortLike): FeedHubPort {
    this.checkOpen();
    const attached: AttachedPort = {
      port,
      channels: new Set(),
      counts: { published: 0, malformed: 0, overLimit: 0 },
      detached: false,
    };
    this.ports.add(attached);
    port.on('message', (value) => this.receive(attached, value));
    onPortEnd(port, () => this.detach(attached));
    return {
      detach: () => this.detach(attached),
      stats: () => ({ ...attached.counts, channels: attached.channels.size }),
    };
  }

  /** Sends a copy of `bytes` to every subscriber; the main thread's own get it in a microtask. */
  publish(channel: string, bytes: Uint8Array): void {
    this.checkOpen();
    checkPortChannel(channel, this.limits);
    checkPortMessage(bytes, this.limits);
    // The caller may reuse its buffer at once, and delivery here is later: one copy for all.
    const copy = new Uint8Array(bytes);
    this.fanOut(channel, copy);
    if (this.local.has(channel)) queueMicrotask(() => this.deliverLocal(channel, copy));
  }

  /** `onBytes` gets each message of the channel; the bytes are shared by the main thread's subscribers: read them only. */
  subscribe(channel: string, onBytes: OnBytes): () => void {
    this.checkOpen();
    checkPortChannel(channel, this.limits);
    if (typeof onBytes !== 'function') throw new TypeError('onBytes must be a function');
    let set = this.local.get(channel);
    if (set === undefined) {
      if (this.local.size >= this.limits.maxChannelsPerPort) {
        throw new RangeError(
          `the main thread subscribes to at most ${this.limits.maxChannelsPerPort} channels`,
        );
      }
      set = new Set();
      this.local.set(channel, set);
    }
    const subscriber = { onBytes };
    set.add(subscriber);
    return () => {
      const current = this.local.get(channel);
      if (current?.delete(subscriber) && current.size === 0) this.local.delete(channel);
    };
  }

  /** Detaches and closes every port, and drops every subscription. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const attached of [...this.ports]) {
      this.detach(attached);
      closePort(attached.port);
    }
    this.local.clear();
  }

  stats(): FeedHubStats {
    return { ports: this.ports.size, ...this.counts };
  }

  private receive(attached: AttachedPort, value: unknown): void {
    if (attached.detached) return;
    const read = readFeedOp(value, this.limits);
    if (read === null) return;
    if (read === 'malformed' || read.op === 'message') {
      attached.counts.malformed += 1;
      this.counts.malformed += 1;
    } else if (read.op === 'publish') {
      attached.counts.published += 1;
      this.fanOut(read.channel, read.bytes);
      this.deliverLocal(read.channel, read.bytes);
    } else if (read.op === 'subscribe') {
      this.subscribePort(attached, read.channel);
    } else {
      this.unsubscribePort(attached, read.channel);
    }
  }

  private subscribePort(attached: AttachedPort, channel: string): void {
    if (attached.channels.has(channel)) return;
    if (attached.channels.size >= this.limits.maxChannelsPerPort) {
      attached.counts.overLimit += 1;
      this.counts.overLimit += 1;
      return;
    }
    attached.channels.add(channel);
    let set = this.portsByChannel.get(channel);
    if (set === undefined) {
      set = new Set();
      this.portsByChannel.set(channel, set);
    }
    set.add(attached);
  }

  private unsubscribePort(attached: AttachedPort, channel: string): void {
    if (!attached.channels.delete(channel)) return;
    const set = this.portsByChannel.get(channel);
    if (set?.delete(attached) && set.size === 0) this.portsByChannel.delete(channel);
  }

  /** Posts the message to every port subscribed to its channel (each gets its own copy). */
  private fanOut(channel: string, bytes: Uint8Array): void {
    this.counts.published += 1;
    const ports = this.portsByChannel.get(channel);
    if (ports === undefined) return;
    const message = { kind: FEED_MESSAGE_KIND, op: 'message', channel, bytes };
    for (const attached of ports) {
      tryPost(attached.port, message);
      this.counts.posted += 1;
    }
  }

  private deliverLocal(channel: string, bytes: Uint8Array): void {
    const set = this.local.get(channel);
    if (set === undefined) return;
    for (const { onBytes } of set) onBytes(bytes);
  }

  private detach(attached: AttachedPort): void {
    if (attached.detached) return;
    attached.detached = true;
    for (const channel of [...attached.channels]) this.unsubscribePort(attached, channel);
    this.ports.delete(attached);
  }

  private checkOpen(): void {
    if (this.closed) throw new Error('the feed hub is closed');
  }
}
