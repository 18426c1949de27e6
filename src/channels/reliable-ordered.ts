import { bitsRequired } from '../bits/bits-required.js';
import { sequenceGreaterThan, sequenceLessThan } from '../packet/sequence.js';
import { SequenceBuffer } from '../packet/sequence-buffer.js';
import type { ReadStream } from '../serialize/read-stream.js';
import type { WriteStream } from '../serialize/write-stream.js';
import {
  type BlockProgress,
  type Channel,
  type EncodedMessage,
  messageBits,
  type PacketRecord,
  readMessage,
  relativeBits,
  writeMessage,
} from './channel.js';
import type { ResolvedChannelConfig } from './config.js';
import { ScratchList } from './scratch-list.js';

/**
 * Slack in resend timing: ticks add up floating-point time, so six ticks of 1/60 s can fall a hair
 * short of a 0.1 s interval, and the resend would wait a whole extra tick.
 */
const TIME_EPSILON = 1e-6;

import { Block, type MessageFactory, type ReceivedMessage, receivedMessage } from './message.js';

/** A queued message, or a block with its per-fragment state. */
class Outgoing {
  message: EncodedMessage | null = null;
  lastSent = Number.NEGATIVE_INFINITY;
  /** Times sent, and copies of the first resend still owed to the next packets. */
  sends = 0;
  copiesDue = 0;
  block: Uint8Array | null = null;
  fragmentAcked = new Uint8Array(0);
  fragmentSent = new Float64Array(0);
  fragmentsAcked = 0;
}

class Incoming {
  message: ReceivedMessage | null = null;
}

/** Record markers: what follows in this channel's part of a packet record. */
const RECORD_MESSAGES = 0;
const RECORD_BLOCK = 1;
/** Most fragments of one block in one packet. */
const MAX_FRAGMENTS_PER_PACKET = 64;

/**
 * Fiedler's reliable-ordered messages: each message gets a 16-bit id and waits in a send queue;
 * every packet carries the oldest unacked messages not sent within the resend interval that fit,
 * never an id at or past oldest-unacked + the receive window. A packet's ack frees the messages
 * it carried (the packet layer hands back this channel's record of them); the receiver buffers
 * arrivals inside its window and delivers strictly in order, exactly once. No packet is resent as
 * such: a message simply rides again in a later packet until one carrying it is acked. The first
 * resend of a message rides in `resendCopies` packets in a row (default 2), so losing that one
 * too costs a tick, not another interval.
 *
 * Blocks (large data) take an id in the same ordered stream. When a block is the oldest unacked
 * item, the channel sends its fragments, each acked on its own and sent again after
 * max(100 ms, 1.25 × RTT); later messages may travel ahead and wait in the receiver's window.
 *
 * Entry wire: isBlock bit; messages: count, then per message its id (first 16 bits, then
 * relative), align, its bytes; block: id (16 bits), total bytes, count, then per fragment its
 * index, align, its bytes (fragmentBytes each, the remainder in the last).
 */
export class ReliableOrderedChannel implements Channel {
  private readonly sendQueue: SequenceBuffer<Outgoing>;
  private readonly receiveQueue: SequenceBuffer<Incoming>;
  private nextSendId = 0;
  private oldestUnacked = 0;
  private nextReceiveId = 0;
  private readonly countBits: number;
  private readonly blockTotalBits: number;
  private readonly fragmentCountBits: number;
  private readonly candidates = new ScratchList<number>();
  private selectedBlock = -1;
  /** The block being received: one at a time per channel, at most maxBlockBytes. */
  private incomingBlock: {
    id: number;
    data: Uint8Array;
    got: Uint8Array;
    count: number;
    bytes: number;
  } | null = null;

  constructor(readonly config: ResolvedChannelConfig) {
    this.sendQueue = new SequenceBuffer(config.sendQueueSize, () => new Outgoing());
    this.receiveQueue = new SequenceBuffer(config.receiveQueueSize, () => new Incoming());
    this.countBits = bitsRequired(1, config.maxMessagesPerPacket);
    this.blockTotalBits = bitsRequired(1, config.maxBlockBytes);
    this.fragmentCountBits = bitsRequired(1, MAX_FRAGMENTS_PER_PACKET);
  }

  get sendQueueDepth(): number {
    return (this.nextSendId - this.oldestUnacked) & 0xffff;
  }

  /** Never drops: what does not fit is refused unacked, and resent. */
  readonly dropped = 0;

  resent = 0;

  get receiveQueueDepth(): number {
    let n = 0;
    for (let id = this.nextReceiveId, i = 0; i < this.config.receiveQueueSize; i++, id = (id + 1) & 0xffff) {
      if (this.receiveQueue.exists(id)) n++;
    }
    return n;
  }

  private enqueue(): Outgoing {
    if (this.sendQueueDepth >= this.config.sendQueueSize) {
      throw new RangeError(
        `reliable channel send queue is full (${this.config.sendQueueSize} messages awaiting acks); raise sendQueueSize or send less`,
      );
    }
    const entry = this.sendQueue.insert(this.nextSendId)!;
    entry.message = null;
    entry.block = null;
    entry.lastSent = Number.NEGATIVE_INFINITY;
    entry.sends = 0;
    entry.copiesDue = 0;
    this.nextSendId = (this.nextSendId + 1) & 0xffff;
    return entry;
  }

  send(message: EncodedMessage): number {
    const id = this.nextSendId;
    this.enqueue().message = message;
    return id;
  }

  sendBlock(data: Uint8Array): number {
    const c = this.config;
    if (!(data instanceof Uint8Array) || data.length < 1 || data.length > c.maxBlockBytes) {
      throw new RangeError(
        `a block must be 1 to ${c.maxBlockBytes} bytes (maxBlockBytes), got ${data?.length}; raise maxBlockBytes for larger blocks`,
      );
    }
    const id = this.nextSendId;
    const entry = this.enqueue();
    const fragments = Math.ceil(data.length / c.blockFragmentBytes);
    entry.block = data.slice();
    entry.fragmentAcked = new Uint8Array(fragments);
    entry.fragmentSent = new Float64Array(fragments).fill(Number.NEGATIVE_INFINITY);
    entry.fragmentsAcked = 0;
    return id;
  }

  unacked(messages: number[], blocks: number[]): void {
    for (let i = 0; i < this.sendQueueDepth; i++) {
      const id = (this.oldestUnacked + i) & 0xffff;
      const entry = this.sendQueue.find(id);
      if (entry?.block) blocks.push(id);
      else if (entry?.message) messages.push(id);
    }
  }

  blockProgress(): BlockProgress {
    const head = this.sendQueue.find(this.oldestUnacked);
    let sending: BlockProgress['sending'] = null;
    for (let i = 0; i < this.sendQueueDepth; i++) {
      const entry = this.sendQueue.find((this.oldestUnacked + i) & 0xffff);
      if (entry?.block) {
        const acked = entry === head ? this.ackedBytes(entry) : 0;
        sending = { ackedBytes: acked, totalBytes: entry.block.length };
        break;
      }
    }
    const b = this.incomingBlock;
    return { sending, receiving: b === null ? null : { receivedBytes: b.bytes, totalBytes: b.data.length } };
  }

  private ackedBytes(entry: Outgoing): number {
    const c = this.config;
    let bytes = 0;
    for (let f = 0; f < entry.fragmentAcked.length; f++) {
      if (entry.fragmentAcked[f])
        bytes += Math.min(c.blockFragmentBytes, entry.block!.length - f * c.blockFragmentBytes);
    }
    return bytes;
  }

  select(now: number, budgetBits: number, rttMs = 0): number {
    const c = this.config;
    const chosen = this.candidates;
    chosen.clear();
    this.selectedBlock = -1;
    const head = this.sendQueue.find(this.oldestUnacked);
    if (head?.block) {
      // The oldest item is a block: send fragments not acked and not sent within the resend delay.
      const delay = Math.max(0.1, (1.25 * rttMs) / 1000);
      let used = 1 + 16 + this.blockTotalBits + this.fragmentCountBits;
      const fragmentIdBits = bitsRequired(0, head.fragmentAcked.length - 1);
      for (let f = 0; f < head.fragmentAcked.length && chosen.length < MAX_FRAGMENTS_PER_PACKET; f++) {
        if (head.fragmentAcked[f] || head.fragmentSent[f] + delay > now + TIME_EPSILON) continue;
        const bytes = Math.min(c.blockFragmentBytes, head.block.length - f * c.blockFragmentBytes);
        const cost = fragmentIdBits + 7 + bytes * 8;
        if (used + cost > budgetBits) break;
        used += cost;
        chosen.push(f);
      }
      if (chosen.length > 0) this.selectedBlock = this.oldestUnacked;
      return chosen.length;
    }
    let used = 1 + this.countBits;
    let previous = -1;
    // Only ids the receiver can hold: oldest unacked + its window.
    const window = Math.min(this.sendQueueDepth, c.receiveQueueSize);
    // Smaller messages further on may still fit a nearly full packet, but only a few are tried:
    // scanning a deep queue to its end for every packet would cost more than the space is worth.
    let misfits = 0;
    for (let i = 0; i < window && chosen.length < c.maxMessagesPerPacket && misfits < 16; i++) {
      const id = (this.oldestUnacked + i) & 0xffff;
      const entry = this.sendQueue.find(id);
      // A block travels as fragments once it is the oldest; messages behind it may go ahead.
      if (
        entry === undefined ||
        entry.message === null ||
        (entry.copiesDue === 0 && entry.lastSent + c.resendInterval > now + TIME_EPSILON)
      )
        continue;
      const cost = (previous < 0 ? 16 : relativeBits(previous, id)) + messageBits(entry.message);
      if (used + cost > budgetBits) {
        misfits++;
        continue;
      }
      used += cost;
      chosen.push(id);
      previous = id;
    }
    return chosen.length;
  }

  writeSelected(ws: WriteStream, now: number, record: ScratchList<number>): void {
    const chosen = this.candidates.items;
    const count = this.candidates.length;
    if (this.selectedBlock >= 0) {
      const id = this.selectedBlock;
      const entry = this.sendQueue.find(id)!;
      const block = entry.block!;
      const size = this.config.blockFragmentBytes;
      ws.bool(true);
      ws.bits(id, 16);
      ws.int(block.length, 1, this.config.maxBlockBytes);
      ws.int(count, 1, MAX_FRAGMENTS_PER_PACKET);
      record.push(RECORD_BLOCK);
      record.push(id);
      for (let k = 0; k < count; k++) {
        const f = chosen[k];
        ws.int(f, 0, entry.fragmentAcked.length - 1);
        ws.align();
        ws.writer.writeBytes(block, f * size, Math.min(size, block.length - f * size));
        if (entry.fragmentSent[f] !== Number.NEGATIVE_INFINITY) this.resent++;
        entry.fragmentSent[f] = now;
        record.push(f);
      }
      return;
    }
    ws.bool(false);
    ws.int(count, 1, this.config.maxMessagesPerPacket);
    record.push(RECORD_MESSAGES);
    for (let k = 0; k < count; k++) {
      const id = chosen[k];
      if (k === 0) ws.bits(id, 16);
      else ws.sequenceRelative(chosen[k - 1], id);
      const entry = this.sendQueue.find(id)!;
      writeMessage(ws, entry.message!);
      if (entry.copiesDue > 0 && entry.lastSent + this.config.resendInterval > now + TIME_EPSILON) {
        // A copy of the first resend: the interval still counts from the resend itself.
        entry.copiesDue--;
      } else {
        entry.copiesDue = entry.sends === 1 ? this.config.resendCopies - 1 : 0;
        entry.lastSent = now;
      }
      if (entry.sends++ > 0) this.resent++;
      record.push(id);
    }
  }

  read(rs: ReadStream, factory: MessageFactory, staged: ScratchList<unknown>): boolean {
    if (rs.bool(false)) {
      const c = this.config;
      const id = rs.bits(0, 16);
      if (rs.ok && this.beyondWindow(id)) return this.refuseBeyondWindow(rs);
      const total = rs.int(0, 1, c.maxBlockBytes);
      const fragments = Math.ceil(total / c.blockFragmentBytes);
      const count = rs.int(0, 1, MAX_FRAGMENTS_PER_PACKET);
      staged.push(RECORD_BLOCK);
      staged.push(id);
      staged.push(total);
      for (let k = 0; k < count && rs.ok; k++) {
        const f = rs.int(0, 0, fragments - 1);
        const length = Math.min(c.blockFragmentBytes, total - f * c.blockFragmentBytes);
        const bytes = rs.bytes(new Uint8Array(0), length);
        staged.push(f);
        staged.push(bytes);
      }
      return rs.ok;
    }
    const count = rs.int(0, 1, this.config.maxMessagesPerPacket);
    staged.push(RECORD_MESSAGES);
    let previous = 0;
    for (let k = 0; k < count && rs.ok; k++) {
      const id = k === 0 ? rs.bits(0, 16) : rs.sequenceRelative(previous, 0);
      if (rs.ok && this.beyondWindow(id)) return this.refuseBeyondWindow(rs);
      const message = readMessage(rs, factory);
      if (message === null) return false;
      staged.push(id);
      staged.push(message);
      previous = id;
    }
    return rs.ok;
  }

  /**
   * True when `id` is past the receive window: the application has not taken enough of what was
   * delivered. The packet is then refused, so not acked, and the sender resends it until there is
   * room: a full receive queue holds the sender back and loses nothing.
   */
  private beyondWindow(id: number): boolean {
    return sequenceGreaterThan(id, (this.nextReceiveId + this.config.receiveQueueSize - 1) & 0xffff);
  }

  private refuseBeyondWindow(rs: ReadStream): false {
    rs.fail('reliable message beyond the receive window (receive queue full: take messages with receive())');
    return false;
  }

  /** True when `id` is one this receiver still waits for, inside its window. */
  private wanted(id: number): boolean {
    return (
      !sequenceLessThan(id, this.nextReceiveId) &&
      ((id - this.nextReceiveId) & 0xffff) < this.config.receiveQueueSize &&
      !this.receiveQueue.exists(id)
    );
  }

  apply(list: ScratchList<unknown>): void {
    const staged = list.items;
    if (staged[0] === RECORD_BLOCK) {
      const id = staged[1] as number;
      const total = staged[2] as number;
      if (!this.wanted(id)) return; // already complete (a resend), or a stray
      let b = this.incomingBlock;
      if (b === null || b.id !== id || b.data.length !== total) {
        const fragments = Math.ceil(total / this.config.blockFragmentBytes);
        b = { id, data: new Uint8Array(total), got: new Uint8Array(fragments), count: 0, bytes: 0 };
        this.incomingBlock = b;
      }
      for (let k = 3; k < list.length; k += 2) {
        const f = staged[k] as number;
        if (b.got[f]) continue;
        const bytes = staged[k + 1] as Uint8Array;
        b.data.set(bytes, f * this.config.blockFragmentBytes);
        b.got[f] = 1;
        b.count++;
        b.bytes += bytes.length;
      }
      if (b.count === b.got.length) {
        this.receiveQueue.insert(id)!.message = receivedMessage(Block, b.data);
        this.incomingBlock = null;
      }
      return;
    }
    for (let k = 1; k < list.length; k += 2) {
      const id = staged[k] as number;
      // Already delivered, outside the window, or already here: a resend or a stray.
      if (!this.wanted(id)) continue;
      this.receiveQueue.insert(id)!.message = staged[k + 1] as ReceivedMessage;
    }
  }

  acked(record: PacketRecord, start: number, end: number): void {
    if (record[start] === RECORD_BLOCK) {
      const id = record[start + 1];
      const entry = this.sendQueue.find(id);
      if (entry?.block) {
        for (let k = start + 2; k < end; k++) {
          const f = record[k];
          if (entry.fragmentAcked[f]) continue;
          entry.fragmentAcked[f] = 1;
          entry.fragmentsAcked++;
        }
        if (entry.fragmentsAcked === entry.fragmentAcked.length) {
          entry.block = null;
          this.sendQueue.remove(id);
        }
      }
    } else {
      for (let k = start + 1; k < end; k++) {
        const entry = this.sendQueue.find(record[k]);
        if (entry !== undefined && entry.message !== null) {
          entry.message = null;
          this.sendQueue.remove(record[k]);
        }
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
