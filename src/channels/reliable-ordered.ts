import { bitsRequired } from '../bits/bits-required.js';
import { sequenceLessThan } from '../packet/sequence.js';
import { SequenceBuffer } from '../packet/sequence-buffer.js';
import type { ReadStream } from '../serialize/read-stream.js';
import type { WriteStream } from '../serialize/write-stream.js';
import {
  type Channel,
  type EncodedMessage,
  messageBits,
  type PacketRecord,
  readMessage,
  relativeBits,
  writeMessage,
} from './channel.js';
import type { ResolvedChannelConfig } from './config.js';
import type { MessageFactory, ReceivedMessage } from './message.js';

class Outgoing {
  message: EncodedMessage | null = null;
  lastSent = Number.NEGATIVE_INFINITY;
}

class Incoming {
  message: ReceivedMessage | null = null;
}

/**
 * Fiedler's reliable-ordered messages: each message gets a 16-bit id and waits in a send queue;
 * every packet carries the oldest unacked messages not sent within the resend interval that fit,
 * never an id at or past oldest-unacked + the receive window. A packet's ack frees the messages it
 * carried (the packet layer hands back this channel's record of them); the receiver buffers
 * arrivals inside its window and delivers strictly in order, exactly once. No packet is resent as
 * such: a message simply rides again in a later packet until one carrying it is acked.
 */
export class ReliableOrderedChannel implements Channel {
  private readonly sendQueue: SequenceBuffer<Outgoing>;
  private readonly receiveQueue: SequenceBuffer<Incoming>;
  private nextSendId = 0;
  private oldestUnacked = 0;
  private nextReceiveId = 0;
  private readonly countBits: number;
  private readonly candidates: number[] = [];

  constructor(readonly config: ResolvedChannelConfig) {
    this.sendQueue = new SequenceBuffer(config.sendQueueSize, () => new Outgoing());
    this.receiveQueue = new SequenceBuffer(config.receiveQueueSize, () => new Incoming());
    this.countBits = bitsRequired(1, config.maxMessagesPerPacket);
  }

  get sendQueueDepth(): number {
    return (this.nextSendId - this.oldestUnacked) & 0xffff;
  }

  get receiveQueueDepth(): number {
    let n = 0;
    for (let id = this.nextReceiveId, i = 0; i < this.config.receiveQueueSize; i++, id = (id + 1) & 0xffff) {
      if (this.receiveQueue.exists(id)) n++;
    }
    return n;
  }

  send(message: EncodedMessage): void {
    if (this.sendQueueDepth >= this.config.sendQueueSize) {
      throw new RangeError(
        `reliable channel send queue is full (${this.config.sendQueueSize} messages awaiting acks); raise sendQueueSize or send less`,
      );
    }
    const entry = this.sendQueue.insert(this.nextSendId)!;
    entry.message = message;
    entry.lastSent = Number.NEGATIVE_INFINITY;
    this.nextSendId = (this.nextSendId + 1) & 0xffff;
  }

  select(now: number, budgetBits: number): number {
    const c = this.config;
    const chosen = this.candidates;
    chosen.length = 0;
    let used = this.countBits;
    let previous = -1;
    // Only ids the receiver can hold: oldest unacked + its window.
    const window = Math.min(this.sendQueueDepth, c.receiveQueueSize);
    for (let i = 0; i < window && chosen.length < c.maxMessagesPerPacket; i++) {
      const id = (this.oldestUnacked + i) & 0xffff;
      const entry = this.sendQueue.find(id);
      if (entry === undefined || entry.message === null || entry.lastSent + c.resendInterval > now) continue;
      const cost = (previous < 0 ? 16 : relativeBits(previous, id)) + messageBits(entry.message);
      if (used + cost > budgetBits) continue;
      used += cost;
      chosen.push(id);
      previous = id;
    }
    return chosen.length;
  }

  writeSelected(ws: WriteStream, now: number, record: PacketRecord): void {
    const chosen = this.candidates;
    ws.int(chosen.length, 1, this.config.maxMessagesPerPacket);
    for (let k = 0; k < chosen.length; k++) {
      const id = chosen[k];
      if (k === 0) ws.bits(id, 16);
      else ws.sequenceRelative(chosen[k - 1], id);
      const entry = this.sendQueue.find(id)!;
      writeMessage(ws, entry.message!);
      entry.lastSent = now;
      record.push(id);
    }
  }

  read(rs: ReadStream, factory: MessageFactory, staged: unknown[]): boolean {
    const count = rs.int(0, 1, this.config.maxMessagesPerPacket);
    let previous = 0;
    for (let k = 0; k < count && rs.ok; k++) {
      const id = k === 0 ? rs.bits(0, 16) : rs.sequenceRelative(previous, 0);
      const message = readMessage(rs, factory);
      if (message === null) return false;
      staged.push(id, message);
      previous = id;
    }
    return rs.ok;
  }

  apply(staged: unknown[]): void {
    for (let k = 0; k < staged.length; k += 2) {
      const id = staged[k] as number;
      // Already delivered, outside the window, or already here: a resend or a stray.
      if (sequenceLessThan(id, this.nextReceiveId)) continue;
      if (((id - this.nextReceiveId) & 0xffff) >= this.config.receiveQueueSize) continue;
      if (this.receiveQueue.exists(id)) continue;
      this.receiveQueue.insert(id)!.message = staged[k + 1] as ReceivedMessage;
    }
  }

  acked(record: PacketRecord, start: number, end: number): void {
    for (let k = start; k < end; k++) {
      const entry = this.sendQueue.find(record[k]);
      if (entry !== undefined) {
        entry.message = null;
        this.sendQueue.remove(record[k]);
      }
    }
    while (this.oldestUnacked !== this.nextSendId && !this.sendQueue.exists(this.oldestUnacked)) {
      this.oldestUnacked = (this.oldestUnacked + 1) & 0xffff;
    }
  }

  receive(): ReceivedMessage | null {
    const entry = this.receiveQueue.find(this.nextReceiveId);
    if (entry === undefined || entry.message === null) return null;
    const message = entry.message;
    entry.message = null;
    this.receiveQueue.remove(this.nextReceiveId);
    this.nextReceiveId = (this.nextReceiveId + 1) & 0xffff;
    return message;
  }
}
