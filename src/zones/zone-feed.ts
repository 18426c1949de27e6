/**
 * The zone feed: the lossy fan-out bus that carries what the next tick supersedes anyway (border
 * batches, owner-change hints). Messages are opaque bytes on named channels. A message reaches the
 * subscribers the channel has when it arrives, in publish order per channel from one publisher,
 * at most once: one published while its subscriber is not yet subscribed, or while the engine is
 * unreachable, is lost. What must not be lost goes through the ZoneStore instead.
 *
 * Two implementations: EmbeddedZoneFeed (in-process) and RedisZoneFeed (PUBLISH/SUBSCRIBE). Both
 * pass test/support/zone-feed-contract.ts. Misuse (a bad channel, a message over the limit, a
 * closed feed) throws at the call; a subscriber that throws is reported, never propagated.
 */

export interface ZoneFeed {
  /** Sends a copy of `bytes` (the caller may reuse its buffer at once). Throws on misuse only. */
  publish(channel: string, bytes: Uint8Array): void;
  /**
   * Calls `onBytes` with each later message of the channel, asynchronously. The bytes are shared by
   * every subscriber of the message: read them, do not modify them. Returns the unsubscribe.
   */
  subscribe(channel: string, onBytes: (bytes: Uint8Array) => void): () => void;
  close(): Promise<void>;
}

export interface ZoneFeedOptions {
  /** The largest message, bytes (default 256 KiB): larger ones are refused at publish, dropped on receipt. */
  maxMessageBytes?: number;
  /** Where a throwing subscriber and a lost publish are reported (default console.error). */
  onError?: (error: unknown, where: string) => void;
}

export const DEFAULT_MAX_FEED_MESSAGE_BYTES = 256 * 1024;

/** The longest channel name, characters. */
export const MAX_FEED_CHANNEL_LENGTH = 256;

/** What a feed did since it was made. */
export interface ZoneFeedStats {
  publishedMessages: number;
  /** Deliveries: one per message per subscriber. */
  deliveredMessages: number;
  /** Messages lost here: published while the engine was unreachable, or received over the limit. */
  droppedMessages: number;
  /** Subscribers that threw (each reported through onError). */
  handlerErrors: number;
}

export function checkChannel(channel: string, maxLength = MAX_FEED_CHANNEL_LENGTH): void {
  if (typeof channel !== 'string') throw new TypeError('channel must be a string');
  if (channel.length === 0 || channel.length > maxLength) {
    throw new RangeError(`channel must have 1..${maxLength} characters, got ${channel.length}`);
  }
}

export function checkMessage(bytes: Uint8Array, maxMessageBytes: number): void {
  if (!(bytes instanceof Uint8Array)) throw new TypeError('bytes must be a Uint8Array');
  if (bytes.byteLength > maxMessageBytes) {
    throw new RangeError(`a feed message is ${bytes.byteLength} bytes, the limit is ${maxMessageBytes}`);
  }
}

export function checkHandler(onBytes: unknown): void {
  if (typeof onBytes !== 'function') throw new TypeError('onBytes must be a function');
}

/** The options with their defaults, checked. */
export function feedSettings(options: ZoneFeedOptions, name: string) {
  const maxMessageBytes = options.maxMessageBytes ?? DEFAULT_MAX_FEED_MESSAGE_BYTES;
  if (!Number.isSafeInteger(maxMessageBytes) || maxMessageBytes < 1) {
    throw new RangeError(`maxMessageBytes must be a positive safe integer, got ${maxMessageBytes}`);
  }
  if (options.onError !== undefined && typeof options.onError !== 'function') {
    throw new TypeError('onError must be a function');
  }
  const onError =
    options.onError ?? ((error: unknown, where: string) => console.error(`${name} ${where}:`, error));
  return { maxMessageBytes, onError };
}
