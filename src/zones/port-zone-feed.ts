/**
 * The zone feed reached over a message port: in the embedded mode a zone worker publishes its
 * border batches and hears its neighbours' through the main thread's FeedHub (zone-feed-hub.ts).
 * The feed is lossy fan-out, like Redis PUBLISH: a message goes to whoever is subscribed when it
 * arrives, in publish order per channel and publisher, and nothing is kept for later.
 *
 * Wire, port to hub: { kind: 'zone-feed', op: 'subscribe' | 'unsubscribe', channel }
 *                    { kind: 'zone-feed', op: 'publish', channel, bytes }
 *       hub to port: { kind: 'zone-feed', op: 'message', channel, bytes }
 * Messages of another kind on the same port belong to another adapter and are left alone.
 */
import { closePort, isRecord, type MessagePortLike, onPortEnd, tryPost } from './message-port-like.js';
import {
  checkChannel,
  checkMessage,
  DEFAULT_MAX_FEED_MESSAGE_BYTES,
  MAX_FEED_CHANNEL_LENGTH,
  type ZoneFeed,
} from './zone-feed.js';

export interface ZoneFeedLimits {
  /** The largest message, bytes: larger is refused at publish (a RangeError) and by the hub. */
  maxMessageBytes: number;
  /** The longest channel name, characters. */
  maxChannelLength: number;
  /** Channels one port (or the main thread) may be subscribed to at once. */
  maxChannelsPerPort: number;
}

export const DEFAULT_ZONE_FEED_LIMITS: Readonly<ZoneFeedLimits> = Object.freeze({
  maxMessageBytes: DEFAULT_MAX_FEED_MESSAGE_BYTES,
  maxChannelLength: MAX_FEED_CHANNEL_LENGTH,
  maxChannelsPerPort: 1024,
});

export const FEED_MESSAGE_KIND = 'zone-feed';

export type FeedOp =
  | { op: 'subscribe' | 'unsubscribe'; channel: string }
  | { op: 'publish' | 'message'; channel: string; bytes: Uint8Array };

export function feedLimits(limits: Partial<ZoneFeedLimits> = {}): ZoneFeedLimits {
  const merged = { ...DEFAULT_ZONE_FEED_LIMITS, ...limits };
  for (const [name, value] of Object.entries(merged)) {
    if (!Number.isSafeInteger(value) || value < 1) {
      throw new RangeError(`limits.${name} must be a positive safe integer, got ${value}`);
    }
  }
  return merged;
}

/** Caller misuse throws: a channel that is not a string of 1..maxChannelLength characters. */
export function checkPortChannel(channel: string, limits: ZoneFeedLimits): void {
  checkChannel(channel, limits.maxChannelLength);
}

export function checkPortMessage(bytes: Uint8Array, limits: ZoneFeedLimits): void {
  checkMessage(bytes, limits.maxMessageBytes);
}

/**
 * Reads a feed message from another thread without throwing: null when it is not a feed message
 * at all, 'malformed' when it is one of a bad shape or past the limits, else the operation.
 */
export function readFeedOp(value: unknown, limits: ZoneFeedLimits): FeedOp | 'malformed' | null {
  if (!isRecord(value) || value.kind !== FEED_MESSAGE_KIND) return null;
  const { op, channel, bytes } = value;
  if (typeof channel !== 'string' || channel.length === 0 || channel.length > limits.maxChannelLength) {
    return 'malformed';
  }
  if (op === 'subscribe' || op === 'unsubscribe') return { op, channel };
  if (op !== 'publish' && op !== 'message') return 'malformed';
  if (!(bytes instanceof Uint8Array) || bytes.byteLength > limits.maxMessageBytes) return 'malformed';
  return { op, channel, bytes };
}

/** Posts bytes, moving a copy of exactly their size (the caller keeps its buffer). */
function postBytes(
  port: MessagePortLike,
  op: 'publish' | 'message',
  channel: string,
  bytes: Uint8Array,
): void {
  const copy = new Uint8Array(bytes);
  tryPost(port, { kind: FEED_MESSAGE_KIND, op, channel, bytes: copy }, [copy.buffer]);
}

export interface PortZoneFeedStats {
  /** Messages delivered to at least one subscriber here. */
  delivered: number;
  /** Messages from the hub of a bad shape: ignored. */
  malformed: number;
  /** Publishes after the port ended: lost, as a lossy feed loses them. */
  lost: number;
}

type OnBytes = (bytes: Uint8Array) => void;

/** The ZoneFeed of a worker: publishes and subscriptions go to the main thread's FeedHub. */
export class PortZoneFeed implements ZoneFeed {
  private readonly limits: ZoneFeedLimits;
  /** This worker's subscribers by channel; the hub hears of a channel's first and last only. */
  private readonly subscribers = new Map<string, Set<{ onBytes: OnBytes }>>();
  private readonly counts = { delivered: 0, malformed: 0, lost: 0 };
  private closed = false;
  private ended = false;

  constructor(
    private readonly port: MessagePortLike,
    limits: Partial<ZoneFeedLimits> = {},
  ) {
    this.limits = feedLimits(limits);
    port.on('message', (value) => this.receive(value));
    onPortEnd(port, () => {
      this.ended = true;
    });
  }

  publish(channel: string, bytes: Uint8Array): void {
    this.checkOpen();
    checkPortChannel(channel, this.limits);
    checkPortMessage(bytes, this.limits);
    if (this.ended) {
      this.counts.lost += 1;
      return;
    }
    postBytes(this.port, 'publish', channel, bytes);
  }

  /** `onBytes` gets each message of the channel; the bytes are shared by this worker's subscribers: read them only. */
  subscribe(channel: string, onBytes: OnBytes): () => void {
    this.checkOpen();
    checkPortChannel(channel, this.limits);
    if (typeof onBytes !== 'function') throw new TypeError('onBytes must be a function');
    let set = this.subscribers.get(channel);
    if (set === undefined) {
      if (this.subscribers.size >= this.limits.maxChannelsPerPort) {
        throw new RangeError(`a port subscribes to at most ${this.limits.maxChannelsPerPort} channels`);
      }
      set = new Set();
      this.subscribers.set(channel, set);
      tryPost(this.port, { kind: FEED_MESSAGE_KIND, op: 'subscribe', channel });
    }
    const subscriber = { onBytes };
    set.add(subscriber);
    return () => {
      const current = this.subscribers.get(channel);
      if (current === undefined || !current.delete(subscriber) || current.size > 0) return;
      this.subscribers.delete(channel);
      if (!this.closed) tryPost(this.port, { kind: FEED_MESSAGE_KIND, op: 'unsubscribe', channel });
    };
  }

  /** Drops every subscription and closes the port (the hub detaches it). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.subscribers.clear();
    closePort(this.port);
  }

  stats(): PortZoneFeedStats {
    return { ...this.counts };
  }

  private receive(value: unknown): void {
    if (this.closed) return;
    const read = readFeedOp(value, this.limits);
    if (read === null) return;
    if (read === 'malformed' || read.op !== 'message') {
      this.counts.malformed += 1;
      return;
    }
    // A message for a channel just unsubscribed was in flight: nobody wants it now.
    const set = this.subscribers.get(read.channel);
    if (set === undefined) return;
    this.counts.delivered += 1;
    for (const { onBytes } of set) onBytes(read.bytes);
  }

  private checkOpen(): void {
    if (this.closed) throw new Error('the zone feed is closed');
  }
}
