import { BitWriterOverflowError } from '../bits/bit-writer.js';
import { bitsRequired } from '../bits/bits-required.js';
import type { ReadStream } from '../serialize/read-stream.js';
import type { WriteStream } from '../serialize/write-stream.js';
import { checkTime, NO_TIME_YET } from '../time/check-time.js';
import type { BlockProgress, Channel, EncodedMessage, PacketRecord } from './channel.js';
import { checkIndex } from './check-index.js';
import { type ChannelConfig, type ResolvedChannelConfig, resolveChannel } from './config.js';
import { CustomChannelAdapter } from './custom-channel-adapter.js';
import type { AnyMessageType, Block, MessageFactory, MessageValue, ReceivedMessageOf } from './message.js';
import { MessageScratch } from './message-scratch.js';
import { ReliableOrderedChannel } from './reliable-ordered-channel.js';
import { ScratchList } from './scratch-list.js';
import { UnreliableChannel } from './unreliable-channel.js';

export interface MessageConnectionOptions<M extends AnyMessageType = AnyMessageType> {
  factory: MessageFactory<M>;
  /** The channels, in the same order on both ends. */
  channels: ChannelConfig[];
  /**
   * Channel data per packet, bytes (default 1150: with the reliable header (9) and netcode's
   * (25) a datagram stays within 1200 bytes).
   */
  packetBudgetBytes?: number;
  /**
   * The client index handed to custom channels' `create` (the server's slot; 0 on a client).
   * Without it custom channels stay inert: a connection built only to check the configuration.
   */
  clientIndex?: number;
  /** Streams shared with connections used one at a time (a server's); default: its own. */
  scratch?: MessageScratch;
  /**
   * `channels` as another connection with the same options resolved them (its channels'
   * `config`), shared instead of resolved again: a server's clients hold one copy.
   */
  resolved?: readonly ResolvedChannelConfig[];
}

/** The record of a packet with no reliable content: shared, as acking it frees nothing. */
const NOTHING_TO_FREE = Object.freeze([]) as unknown as PacketRecord;
const NO_BYTES = new Uint8Array(0);
/**
 * The record being built by writePacket, shared by every connection: it is filled and copied out
 * within one call (nothing re-enters writePacket), and one per connection would keep the largest
 * record's array (~1.8 KB at W4) for each.
 */
const recordScratch = new ScratchList<number>();

/**
 * What a connection that ended had accepted and not delivered: per channel (by index), the ids
 * `send` / `sendBlock` returned for reliable messages and blocks not yet acked, oldest first
 * (empty for unreliable channels, which promise nothing). A game resends or resynchronizes them.
 */
export interface UndeliveredReport {
  /** Reliable messages and blocks discarded, over all channels. */
  readonly messages: number;
  readonly blocks: number;
  readonly channels: readonly {
    readonly messageIds: readonly number[];
    readonly blockIds: readonly number[];
  }[];
}

/** Counters of a connection's message traffic. */
export interface MessageCounters {
  messagesSent: number;
  messagesReceived: number;
  packetsWritten: number;
  packetsRead: number;
  /** Packets refused whole (bad channel data): nothing in them was applied or acked. */
  packetsRejected: number;
  /** Unreliable messages dropped on arrival: over a full receive queue, or sequenced and stale. */
  messagesDropped: number;
  /** Reliable messages and block fragments written again: resends and their copies. */
  messagesResent: number;
}

/** Message counters all at zero (a new connection's, or stats() when there is none). */
export function zeroMessageCounters(): MessageCounters {
  return {
    messagesSent: 0,
    messagesReceived: 0,
    packetsWritten: 0,
    packetsRead: 0,
    packetsRejected: 0,
    messagesDropped: 0,
    messagesResent: 0,
  };
}

/**
 * The channels of one connection: serializes each message once when it is sent, packs one packet
 * per tick within the budget (channels by priority), and applies a received packet only if all of
 * it is valid. Sits on a packet layer that reports acks with the record each packet was sent with.
 *
 * Packet layout: for each channel with messages, a 1 bit, its index, its entry; then a 0 bit.
 */
export class MessageConnection<M extends AnyMessageType = AnyMessageType> {
  readonly factory: MessageFactory<M>;
  readonly channels: readonly Channel[];
  readonly packetBudgetBytes: number;
  private readonly counters: MessageCounters = zeroMessageCounters();
  private readonly order: number[];
  /** Custom channels that take the link's figures before each packet. */
  private readonly linkObservers: CustomChannelAdapter[];
  private readonly channelBits: number;
  private readonly packet: WriteStream;
  private readonly encoder: WriteStream;
  private readonly reader: ReadStream;
  private readonly staged: ScratchList<unknown>[];
  private lastWrite = NO_TIME_YET;
  private readonly seen: Uint8Array;

  private rejection: string | null = null;
  private readonly written: { data: Uint8Array; record: PacketRecord } = {
    data: NO_BYTES,
    record: NOTHING_TO_FREE,
  };

  constructor(options: MessageConnectionOptions<M>) {
    this.factory = options.factory;
    this.packetBudgetBytes = options.packetBudgetBytes ?? 1150;
    if (
      !Number.isInteger(this.packetBudgetBytes) ||
      this.packetBudgetBytes < 32 ||
      this.packetBudgetBytes > 65536
    ) {
      throw new RangeError(
        `MessageConnection: packetBudgetBytes must be an integer in [32, 65536], got ${this.packetBudgetBytes}`,
      );
    }
    if (options.channels.length < 1 || options.channels.length > 64)
      throw new RangeError('MessageConnection needs 1 to 64 channels');
    const shared = options.resolved;
    if (shared !== undefined && shared.length !== options.channels.length)
      throw new RangeError('MessageConnection: resolved must hold one config per channel');
    this.channels = options.channels.map((config, i) => {
      const resolved = shared?.[i] ?? resolveChannel(config, i, this.packetBudgetBytes);
      if (resolved.kind === 'custom') {
        const index = options.clientIndex;
        return new CustomChannelAdapter(resolved, index === undefined ? null : resolved.create!(index));
      }
      return resolved.kind === 'reliable-ordered'
        ? new ReliableOrderedChannel(resolved)
        : new UnreliableChannel(resolved, resolved.kind === 'unreliable-sequenced');
    });
    this.order = this.channels
      .map((_, i) => i)
      .sort((a, b) => this.channels[b].config.priority - this.channels[a].config.priority || a - b);
    this.channelBits = bitsRequired(0, this.channels.length - 1);
    this.linkObservers = this.channels.filter(
      (c): c is CustomChannelAdapter => c instanceof CustomChannelAdapter && c.observesLink,
    );
    const scratch = options.scratch ?? new MessageScratch(this.packetBudgetBytes);
    if (!(scratch instanceof MessageScratch) || scratch.packetBudgetBytes !== this.packetBudgetBytes)
      throw new RangeError(`MessageConnection: scratch must be a MessageScratch(${this.packetBudgetBytes})`);
    this.packet = scratch.packet;
    this.encoder = scratch.encoder;
    this.reader = scratch.reader;
    this.seen = scratch.seen;
    this.staged = scratch.stagedLists(this.channels.length);
  }

  /** What the connection has counted (live: read it, copy it to keep a snapshot). */
  stats(): Readonly<MessageCounters> {
    return this.counters;
  }

  private channel(where: string, index: number): Channel {
    return this.channels[checkIndex(where, 'channel', index, this.channels.length)];
  }

  /** A channel that carries messages: a custom one has none, so using it that way throws. */
  private messageChannel(where: string, index: number): Channel {
    const channel = this.channel(where, index);
    if (channel.config.kind === 'custom')
      throw new RangeError(
        `${where}: channel ${index} is custom and carries no messages; use the layer that owns it`,
      );
    return channel;
  }

  /**
   * Queues a message on a channel and returns its id in that channel (16-bit, wrapping; the ids an
   * UndeliveredReport lists). It is serialized now, once; a message over the channel's
   * maxMessageBytes, a full send queue, or a type the factory does not know throws here.
   */
  send<K extends M>(channelIndex: number, type: K, value: MessageValue<K>): number {
    const channel = this.messageChannel('send', channelIndex);
    return this.queue(channel, this.serialize(channel, channelIndex, type, value));
  }

  /**
   * Serializes a message for a channel without queueing it (what `send` does first); the result
   * can be queued on any connection with the same factory and channels by `sendEncoded`, which is
   * how a server broadcasts one serialization to every client.
   */
  encode<K extends M>(channelIndex: number, type: K, value: MessageValue<K>): EncodedMessage {
    return this.serialize(this.messageChannel('encode', channelIndex), channelIndex, type, value);
  }

  private serialize<K extends M>(
    channel: Channel,
    channelIndex: number,
    type: K,
    value: MessageValue<K>,
  ): EncodedMessage {
    const id = this.factory.idOf(type);
    const e = this.encoder;
    e.reset();
    if (this.factory.typeBits > 0) e.writer.writeBits(id, this.factory.typeBits);
    try {
      type.write(e, value);
    } catch (error) {
      if (error instanceof BitWriterOverflowError) {
        // Measured only on this error path: the send path serializes once and keeps the bytes.
        const bytes = Math.ceil((this.factory.typeBits + type.measure(value)) / 8);
        throw new RangeError(
          `a ${type.name} message of about ${bytes} bytes does not fit in a packet (${this.packetBudgetBytes} bytes); send large data as a block or raise packetBudgetBytes`,
        );
      }
      throw error;
    }
    const bytes = e.finish();
    if (bytes.length > channel.config.maxMessageBytes) {
      throw new RangeError(
        `a ${type.name} message of ${bytes.length} bytes exceeds channel ${channelIndex}'s maxMessageBytes (${channel.config.maxMessageBytes}); raise it or send the data as a block`,
      );
    }
    return { bytes: bytes.slice() };
  }

  /** Queues a message `encode` made (its bytes are shared, never copied); returns its id. */
  sendEncoded(channelIndex: number, message: EncodedMessage): number {
    return this.queue(this.messageChannel('sendEncoded', channelIndex), message);
  }

  private queue(channel: Channel, message: EncodedMessage): number {
    const id = channel.send(message);
    this.counters.messagesSent++;
    return id;
  }

  /** True when a channel's send queue has room for one more message or block. */
  hasRoom(channelIndex: number): boolean {
    const channel = this.messageChannel('hasRoom', channelIndex);
    return channel.sendQueueDepth < channel.config.sendQueueSize;
  }

  /**
   * Queues a block (large data, up to the channel's maxBlockBytes) on a reliable-ordered channel:
   * sent as fragments, each acked and resent on its own, delivered in order as a `Block` message.
   * Returns its id in the channel's id stream (shared with its messages).
   */
  sendBlock(channelIndex: number, data: Uint8Array): number {
    const channel = this.messageChannel('sendBlock', channelIndex);
    if (!(data instanceof Uint8Array))
      throw new TypeError(
        `sendBlock: data must be a Uint8Array, got ${data === null ? 'null' : typeof data}`,
      );
    if (channel.sendBlock === undefined)
      throw new RangeError(
        `channel ${channelIndex} is ${channel.config.kind}: blocks need a reliable-ordered channel`,
      );
    const id = channel.sendBlock(data);
    this.counters.messagesSent++;
    return id;
  }

  /** Progress of the block being sent and the one being received on a reliable-ordered channel. */
  blockProgress(channelIndex: number): BlockProgress {
    return (
      this.channel('blockProgress', channelIndex).blockProgress?.() ?? { sending: null, receiving: null }
    );
  }

  /**
   * The next message received on a channel, in the channel's order, or null. Typed as the union
   * over the factory's types and `Block`: `m.is(Chat)` or `switch (m.name)` narrows `m.value`.
   */
  receive(channelIndex: number): ReceivedMessageOf<M | typeof Block> | null {
    const message = this.messageChannel('receive', channelIndex).receive();
    if (message !== null) this.counters.messagesReceived++;
    return message as ReceivedMessageOf<M | typeof Block> | null;
  }

  /** What this connection accepted and has not had acked: the report a disconnect hands over. */
  undelivered(): UndeliveredReport {
    let messages = 0;
    let blocks = 0;
    const channels = this.channels.map((channel) => {
      const messageIds: number[] = [];
      const blockIds: number[] = [];
      channel.unacked?.(messageIds, blockIds);
      messages += messageIds.length;
      blocks += blockIds.length;
      return { messageIds, blockIds };
    });
    return { messages, blocks, channels };
  }

  /**
   * Packs the next packet (call once per tick; it is written even when empty, so acks keep
   * flowing): returns its bytes (a view, valid until the next call) and the record to hand back
   * to `acked` when the packet layer reports it delivered. The returned object is reused by the
   * next call: take both out of it at once.
   */
  writePacket(now: number): { data: Uint8Array; record: PacketRecord } {
    this.lastWrite = checkTime('MessageConnection.writePacket', now, this.lastWrite);
    const ws = this.packet;
    ws.reset();
    const record = recordScratch;
    record.clear();
    const budget = this.packetBudgetBytes * 8;
    for (const index of this.order) {
      const channel = this.channels[index];
      const header = 1 + this.channelBits;
      const room = budget - ws.bitsProcessed - header - 1 - 7; // header, terminator, final byte rounding
      const channelBudget = Math.min(channel.config.budgetBytes * 8, room);
      if (channelBudget <= 0 || channel.select(now, channelBudget) === 0) continue;
      ws.bool(true);
      if (this.channelBits > 0) ws.int(index, 0, this.channels.length - 1);
      record.push(index);
      record.push(0);
      const countAt = record.length - 1;
      channel.writeSelected(ws, now, record);
      // Only channels with something to free on the ack keep their part of the record.
      if (record.length === countAt + 1) record.length -= 2;
      else record.items[countAt] = record.length - countAt - 1;
    }
    ws.bool(false);
    let resent = 0;
    for (let i = 0; i < this.channels.length; i++) resent += this.channels[i].resent;
    this.counters.messagesResent = resent;
    this.counters.packetsWritten++;
    // The record lives until the packet's ack: its own array only when it holds something to free.
    const out = this.written;
    out.data = ws.finish();
    out.record = record.length === 0 ? NOTHING_TO_FREE : record.toArray();
    return out;
  }

  /** Why the last packet `readPacket` refused was refused (null before any was). */
  get lastRejection(): string | null {
    return this.rejection;
  }

  /** Applies a received packet's channel data; false (nothing applied) when any of it is bad. */
  readPacket(data: Uint8Array, offset: number, length: number): boolean {
    const rs = this.reader;
    rs.reset(data, offset, length);
    this.seen.fill(0, 0, this.channels.length);
    for (let i = 0; i < this.channels.length; i++) this.staged[i].clear();
    let entries = 0;
    while (rs.ok && entries <= this.channels.length && rs.bool(false)) {
      const index = this.channelBits > 0 ? rs.int(0, 0, this.channels.length - 1) : 0;
      if (!rs.ok || this.seen[index] !== 0) {
        rs.fail('channel entry repeated');
        break;
      }
      this.seen[index] = 1;
      if (!this.channels[index].read(rs, this.factory, this.staged[index])) rs.fail('bad channel entry');
      entries++;
    }
    if (!rs.ok || entries > this.channels.length || !rs.end()) {
      this.counters.packetsRejected++;
      this.rejection = rs.error ?? 'more channel entries than channels';
      return false;
    }
    let dropped = 0;
    for (let i = 0; i < this.channels.length; i++) {
      if (this.staged[i].length > 0) this.channels[i].apply(this.staged[i]);
      dropped += this.channels[i].dropped;
    }
    this.counters.messagesDropped = dropped;
    this.counters.packetsRead++;
    return true;
  }

  /** The packet sent with `record` was acked: frees the reliable messages it carried. */
  acked(record: PacketRecord): void {
    for (let k = 0; k < record.length; ) {
      const index = record[k];
      const count = record[k + 1];
      this.channels[index]?.acked(record, k + 2, k + 2 + count);
      k += 2 + count;
    }
  }

  /** Whether a custom channel wants the link's figures before each packet (see observeLink). */
  get observesLink(): boolean {
    return this.linkObservers.length > 0;
  }

  /** Hands the link's newest round-trip sample (ms) and packet loss (percent) to the custom channels that want them. */
  observeLink(rtt: number, packetLoss: number, now: number): void {
    for (const channel of this.linkObservers) channel.link(rtt, packetLoss, now);
  }

  /** The connection ended: custom channels hear of it (the ghost section drops the client's state). */
  close(): void {
    for (const channel of this.channels) channel.close?.();
  }

  /** Messages waiting to be sent or acked, and received but not yet taken, per channel. */
  queueDepths(): { send: number; receive: number }[] {
    return this.channels.map((c) => ({ send: c.sendQueueDepth, receive: c.receiveQueueDepth }));
  }
}
