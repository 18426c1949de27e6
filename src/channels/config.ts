import type { CustomChannel } from './channel.js';

/** How a channel delivers: the message kinds, or 'custom' (a section a higher layer writes). */
export type ChannelKind = MessageChannelKind | 'custom';
export type MessageChannelKind = 'reliable-ordered' | 'unreliable-unordered' | 'unreliable-sequenced';

/**
 * A channel whose entry a higher layer writes (the replication section): it shares the packet,
 * its priority order and budget, the all-or-nothing read and the ack records with the message
 * channels. `create` is called once per connection: on the server with the client's index, on
 * the client with 0. It has no messages: send and receive on it throw.
 */
export interface CustomChannelConfig {
  kind: 'custom';
  /** Higher first when packing a packet (default 0; ties keep the declared order). */
  priority?: number;
  /** The most bytes of a packet this channel may fill (default: the whole packet budget). */
  budgetBytes?: number;
  create(clientIndex: number): CustomChannel;
}

export type ChannelConfig = MessageChannelConfig | CustomChannelConfig;

export interface MessageChannelConfig {
  kind: MessageChannelKind;
  /** Higher first when packing a packet (default 0; ties keep the declared order). */
  priority?: number;
  /** Messages waiting to be sent (reliable: awaiting acks) before send() throws (default 1024). */
  sendQueueSize?: number;
  /** Messages received and not yet taken by receive() (reliable: the window; default 1024). */
  receiveQueueSize?: number;
  /** Reliable: seconds before an unacked message is included again (default 0.1). */
  resendInterval?: number;
  /**
   * Reliable: packets in a row that carry a message's first resend (default 2). With 2, a lost
   * resend costs one tick instead of another resend interval, which keeps the in-order channel's
   * tail latency near one-way latency + resendInterval + a tick; 1 resends exactly as Fiedler's
   * reliable-ordered messages do. Later resends always go once per interval.
   */
  resendCopies?: number;
  /** The most messages this channel puts in one packet (default 256). */
  maxMessagesPerPacket?: number;
  /** The largest serialized message, bytes (default: what fits in one packet). */
  maxMessageBytes?: number;
  /** The most bytes of a packet this channel may fill (default: the whole packet budget). */
  budgetBytes?: number;
  /** Reliable-ordered: the largest block, bytes (default 256 KiB; several MB are fine). */
  maxBlockBytes?: number;
  /**
   * Reliable-ordered: bytes of block data per fragment (default 1024, or the channel's budget less
   * 64 when that is smaller; at most that).
   */
  blockFragmentBytes?: number;
}

export type ResolvedChannelConfig = Required<Omit<MessageChannelConfig, 'kind'>> & {
  kind: ChannelKind;
  create?: CustomChannelConfig['create'];
};

export function resolveChannel(
  config: ChannelConfig,
  index: number,
  packetBudgetBytes: number,
): ResolvedChannelConfig {
  const c: ResolvedChannelConfig = {
    priority: 0,
    sendQueueSize: 1024,
    receiveQueueSize: 1024,
    resendInterval: 0.1,
    resendCopies: 2,
    maxMessagesPerPacket: 256,
    maxMessageBytes: packetBudgetBytes - 16,
    budgetBytes: packetBudgetBytes,
    maxBlockBytes: 256 * 1024,
    ...config,
    // A fragment must fit the channel's own budget, or the block would never be sent.
    blockFragmentBytes:
      (config as MessageChannelConfig).blockFragmentBytes ??
      Math.max(1, Math.min(1024, Math.min(config.budgetBytes ?? packetBudgetBytes, packetBudgetBytes) - 64)),
  };
  const where = `channel ${index} (${c.kind})`;
  if (!['reliable-ordered', 'unreliable-unordered', 'unreliable-sequenced', 'custom'].includes(c.kind)) {
    throw new RangeError(`${where}: unknown kind`);
  }
  if (c.kind === 'custom' && typeof c.create !== 'function')
    throw new TypeError(`${where}: a custom channel needs create(clientIndex)`);
  const integer = (key: keyof ResolvedChannelConfig, min: number, max: number) => {
    const v = c[key] as number;
    if (!Number.isInteger(v) || v < min || v > max)
      throw new RangeError(`${where}: ${key} must be an integer in [${min}, ${max}], got ${v}`);
  };
  integer('sendQueueSize', 1, 32768);
  integer('receiveQueueSize', 1, 32768);
  integer('maxMessagesPerPacket', 1, 4096);
  integer('resendCopies', 1, 8);
  integer('budgetBytes', 8, packetBudgetBytes);
  integer('maxMessageBytes', 1, packetBudgetBytes - 16);
  integer('maxBlockBytes', 1, 64 * 1024 * 1024);
  integer('blockFragmentBytes', 1, Math.max(1, c.budgetBytes - 64));
  if (!(c.resendInterval >= 0)) throw new RangeError(`${where}: resendInterval must be >= 0 seconds`);
  if (!Number.isFinite(c.priority)) throw new RangeError(`${where}: priority must be a number`);
  return c;
}
