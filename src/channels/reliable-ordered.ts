import { bitsRequired } from '../bits/bits-required.js';
import { sequenceGreaterThan, sequenceLessThan } from '../packet/sequence.js';
import { SequenceBuffer } from '../packet/sequence-buffer.js';
import type { ReadStream } from '../serialize/read-stream.js';
import type { WriteStream } from '../serialize/write-stream.js';
import { IncomingBlock } from './block-receiver.js';
import { MAX_FRAGMENTS_PER_PACKET, OutgoingBlock, TIME_EPSILON } from './block-sender.js';
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
import { Block, type MessageFactory, type ReceivedMessage } from './message.js';
import { ScratchList } from './scratch-list.js';

/** A queued message, or a block with its per-fragment state. */
class Outgoing {
  message: EncodedMessage | null = null;
  lastSent = Number.NEGATIVE_INFINITY;
  /** Times sent, and copies of the first resend still owed to the next packets. */
  sends = 0;
  copiesDue = 0;
  block: OutgoingBlock | null = null;
}

class Incoming {
  message: ReceivedMessage | null = null;
}

/** Record markers: what follows in this channel's part of a packet record. */
const RECORD_MESSAGES = 0;
const RECORD_BLOCK = 1;

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
 * item, the channel sends its fragments, each acked on its own and resent by the same policy as
 * messages (block-sender.ts); a packet with no fragment due carries the messages behind the block,
 * which wait in the receiver's window. The block leaves the queue the moment its last fragment is
 * acked. The receiver keeps one reused block buffer (block-receiver.ts).
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
  private readonly incomingBlock: IncomingBlock;

  constructor(readonly config: ResolvedChannelConfig) {
    this.sendQueue = new SequenceBuffer(config.sendQueueSize, () => new Outgoing());
    this.receiveQueue = new SequenceBuffer(config.receiveQueueSize, () => new Incoming());
    this.countBits = bitsRequired(1, config.maxMessagesPerPacket);
    this.blockTotalBits = bitsRequired(1, config.maxBlockBytes);
    this.fragmentCountBits = bitsRequired(1, MAX_FRAGMENTS_PER_PACKET);
    this.incomingBlock = new IncomingBlock(config.blockFragmentBytes, config.maxBlockBytes);
  }

  /** Bytes this channel ever allocated for receiving blocks (bounded by about 2 × maxBlockBytes). */
  get blockBytesAllocated(): number {
    return this.incomingBlock.bytesAllocated;
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

  send(message: EncodedMessage): void {
    this.enqueue().message = message;
  }

  sendBlock(data: Uint8Array): void {
    const c = this.config;
    if (!(data instanceof Uint8Array) || data.length < 1 || data.length > c.maxBlockBytes) {
      throw new RangeError(
        `a block must be 1 to ${c.maxBlockBytes} bytes (maxBlockBytes), got ${data?.length}; raise maxBlockBytes for larger blocks`,
      );
    }
    this.enqueue().block = new OutgoingBlock(data.slice(), c.blockFragmentBytes);
  }

  blockProgress(): BlockProgress {
    const head = this.sendQueue.find(this.oldestUnacked);
    let sending: BlockProgress['sending'] = null;
    for (let i = 0; i < this.sendQueueDepth; i++) {
      const entry = this.sendQueue.find((this.oldestUnacked + i) & 0xffff);
      if (entry?.block) {
        const acked = entry === head ? entry.block.ackedBytes : 0;
        sending = { ackedBytes: acked, totalBytes: entry.block.data.length };
        break;
      }
    }
    const b = this.incomingBlock;
    return {
      sending,
      receiving: b.id < 0 ? null : { receivedBytes: b.receivedBytes, totalBytes: b.totalBytes },
    };
  }

  select(now: number, budgetBits: number): number {
    const c = this.config;
    const chosen = this.candidates;
    chosen.clear();
    this.selectedBlock = -1;
    const head = this.sendQueue.find(this.oldestUnacked);
    if (head?.block) {
      // The oldest item is a block: its fragments due now, by the channel's resend policy.
      head.block.select(
        now,
        c.resendInterval,
        1 + 16 + this.blockTotalBits + this.fragmentCountBits,
        budgetBits,
        chosen,
      );
      if (chosen.length > 0) {
        this.selectedBlock = this.oldestUnacked;
        return chosen.length;
      }
      // No fragment due: the messages behind the block go ahead and wait in the receiver's window.
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
      const c = this.config;
      const block = this.sendQueue.find(id)!.block!;
      const size = c.blockFragmentBytes;
      ws.bool(true);
      ws.bits(id, 16);
      ws.int(block.data.length, 1, c.maxBlockBytes);
      ws.int(count, 1, MAX_FRAGMENTS_PER_PACKET);
      record.push(RECORD_BLOCK);
      record.push(id);
      for (let k = 0; k < count; k++) {
        const f = chosen[k];
        ws.int(f, 0, block.fragments - 1);
        ws.align();
        ws.writer.writeBytes(block.data, f * size, block.fragmentLength(f));
        if (block.sent(f, now, c.resendInterval, c.resendCopies)) this.resent++;
        record.push(f);
      }
      block.advance(this.candidates);
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
      if (!rs.ok) return false;
      // A block begun under an id no longer wanted can never complete: it must not block the next.
      if (this.incomingBlock.id >= 0 && !this.wanted(this.incomingBlock.id)) this.incomingBlock.abandon();
      // Only a block still wanted can conflict: resends of a completed one are ignored as usual.
      const conflict = this.wanted(id) ? this.incomingBlock.conflict(id, total) : null;
      if (conflict !== null) {
        rs.fail(conflict);
        return false;
      }
      const fragments = Math.ceil(total / c.blockFragmentBytes);
      const count = rs.int(0, 1, MAX_FRAGMENTS_PER_PACKET);
      staged.push(RECORD_BLOCK);
      staged.push(id);
      staged.push(total);
      // The fragments stay in the reader's copy of the packet until apply copies them: no copy here.
      staged.push(rs.reader.input);
      for (let k = 0; k < count && rs.ok; k++) {
        const f = rs.int(0, 0, fragments - 1);
        const length = Math.min(c.blockFragmentBytes, total - f * c.blockFragmentBytes);
        rs.align();
        if (!rs.ok) break;
        if (length * 8 > rs.bitsRemaining) {
          rs.fail('block fragment past the end');
          break;
        }
        staged.push(f);
        staged.push(rs.bitsProcessed >>> 3);
        rs.reader.skipBytes(length);
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
      if (!this.wanted(id)) return; // already complete (a resend), or a stray
      const b = this.incomingBlock;
      if (b.id < 0) b.start(id, staged[2] as number); // `read` refused any conflict with a block begun
      const source = staged[3] as Uint8Array;
      for (let k = 4; k < list.length; k += 2) {
        const complete = b.add(staged[k] as number, source, staged[k + 1] as number);
        if (complete !== null) {
          this.receiveQueue.insert(id)!.message = { type: Block, value: complete };
          break;
        }
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
      const block = this.sendQueue.find(id)?.block;
      // The block leaves the moment its last fragment is acked: the next item goes in the next packet.
      for (let k = start + 2; block && k < end; k++) {
        if (block.ack(record[k])) {
          this.sendQueue.find(id)!.block = null;
          this.sendQueue.remove(id);
          break;
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
