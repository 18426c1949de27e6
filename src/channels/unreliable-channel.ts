import { bitsRequired } from '../bits/bits-required.js';
import { sequenceGreaterThan } from '../packet/sequence.js';
import type { ReadStream } from '../serialize/read-stream.js';
import type { WriteStream } from '../serialize/write-stream.js';
import { type Channel, type EncodedMessage, messageBits, readMessage, writeMessage } from './channel.js';
import type { ResolvedChannelConfig } from './config.js';
import type { MessageFactory, ReceivedMessage } from './message.js';
import { RingQueue } from './ring-queue.js';
import type { ScratchList } from './scratch-list.js';

/**
 * Unreliable messages, sent once in the next packet with room and lost with it. Sequenced: each
 * message carries a 16-bit sequence and only messages newer than the newest delivered are
 * delivered, so a late arrival never overwrites newer state (the "most recent state" class).
 */
export class UnreliableChannel implements Channel {
  /** Queued messages; the k-th from the front has sequence nextSequence - length + k. */
  private readonly outgoing: RingQueue<EncodedMessage>;
  private readonly incoming: RingQueue<ReceivedMessage>;
  private nextSequence = 0;
  private newestDelivered = -1;
  private readonly countBits: number;
  /** Messages dropped because the receive queue was full, or arrived older than one delivered. */
  dropped = 0;
  /** Sent once, never again. */
  readonly resent = 0;

  constructor(
    readonly config: ResolvedChannelConfig,
    private readonly sequenced: boolean,
  ) {
    this.countBits = bitsRequired(1, config.maxMessagesPerPacket);
    this.outgoing = new RingQueue(config.sendQueueSize);
    this.incoming = new RingQueue(config.receiveQueueSize);
  }

  get sendQueueDepth(): number {
    return this.outgoing.length;
  }

  get receiveQueueDepth(): number {
    return this.incoming.length;
  }

  send(message: EncodedMessage): number {
    if (this.outgoing.length >= this.config.sendQueueSize) {
      throw new RangeError(
        `unreliable channel send queue is full (${this.config.sendQueueSize} messages); raise sendQueueSize or send less`,
      );
    }
    this.outgoing.push(message);
    const sequence = this.nextSequence;
    this.nextSequence = (sequence + 1) & 0xffff;
    return sequence;
  }

  private selected = 0;

  select(_now: number, budgetBits: number): number {
    const c = this.config;
    let used = this.countBits;
    let count = 0;
    // In order: stop at the first message that does not fit, so order is kept across packets.
    while (count < this.outgoing.length && count < c.maxMessagesPerPacket) {
      const cost = (this.sequenced ? 16 : 0) + messageBits(this.outgoing.at(count));
      if (used + cost > budgetBits) break;
      used += cost;
      count++;
    }
    this.selected = count;
    return count;
  }

  writeSelected(ws: WriteStream, _now: number, _record: ScratchList<number>): void {
    const count = this.selected;
    ws.int(count, 1, this.config.maxMessagesPerPacket);
    for (let k = 0; k < count; k++) {
      if (this.sequenced) ws.bits((this.nextSequence - this.outgoing.length) & 0xffff, 16);
      writeMessage(ws, this.outgoing.shift()!);
    }
    this.selected = 0;
  }

  read(rs: ReadStream, factory: MessageFactory, staged: ScratchList<unknown>): boolean {
    const count = rs.int(0, 1, this.config.maxMessagesPerPacket);
    for (let k = 0; k < count && rs.ok; k++) {
      const sequence = this.sequenced ? rs.bits(0, 16) : 0;
      const message = readMessage(rs, factory);
      if (message === null) return false;
      staged.push(sequence);
      staged.push(message);
    }
    return rs.ok;
  }

  apply(list: ScratchList<unknown>): void {
    const staged = list.items;
    for (let k = 0; k < list.length; k += 2) {
      if (this.sequenced) {
        const sequence = staged[k] as number;
        if (this.newestDelivered >= 0 && !sequenceGreaterThan(sequence, this.newestDelivered)) {
          this.dropped++;
          continue;
        }
        this.newestDelivered = sequence;
      }
      if (this.incoming.length >= this.config.receiveQueueSize) {
        this.dropped++;
        continue;
      }
      this.incoming.push(staged[k + 1] as ReceivedMessage);
    }
  }

  acked(): void {}

  receive(): ReceivedMessage | null {
    return this.incoming.shift() ?? null;
  }
}
