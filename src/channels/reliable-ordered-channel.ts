import { bitsRequired } from '../bits/bits-required.js';
import { GrowingSequenceBuffer } from '../packet/growing-sequence-buffer.js';
import { sequenceGreaterThan, sequenceLessThan } from '../packet/sequence.js';
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
import { IncomingBlock } from './incoming-block.js';
import { Block, type MessageFactory, type ReceivedMessage, receivedMessage } from './message.js';
import { MAX_FRAGMENTS_PER_PACKET, OutgoingBlock, TIME_EPSILON } from './outgoing-block.js';
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

/** The queues' entry factories, one for every channel (a closure per queue costs memory per connection). */
const newOutgoing = () => new Outgoing();
const newIncoming = () => new Incoming();

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
 * messages (outgoing-block.ts); the room a packet has left after them carries the messages behind
 * the block, which wait in the receiver's window. The block leaves the queue the moment its last
 * fragment is acked. The receiver keeps one reused block buffer (incoming-block.ts).
 *
 * Entry wire: isBlock bit; block part: id (16 bits), total bytes, count, then per fragment its
 * index, align, its bytes (fragmentBytes each, the remainder in the last), then a bit saying
 * whether a messages part follows; messages part: count, then per message its id (first 16 bits,
 * then relative), align, its bytes.
 */
export class ReliableOrderedChannel implements Channel {
  /** Both grow with the messages in flight / waiting, up to sendQueueSize / receiveQueueSize. */
  private readonly sendQueue: GrowingSequenceBuffer<Outgoing>;
  private readonly receiveQueue: GrowingSequenceBuffer<Incoming>;
  private nextSendId = 0;
  private oldestUnacked = 0;
  private nextReceiveId = 0;
  private readonly countBits: number;
  private readonly blockTotalBits: number;
  private readonly fragmentCountBits: number;
  /** What `select` chose for the next packet: message ids, and the head block's fragments. */
  private readonly candidates = new ScratchList<number>();
  private readonly fragmentsChosen = new ScratchList<number>();
  private selectedBlock = -1;
  /** The block being received: one at a time per channel, at most maxBlockBytes. */
  private readonly incomingBlock: IncomingBlock;

  constructor(readonly config: ResolvedChannelConfig) {
    this.sendQueue = new GrowingSequenceBuffer(config.sendQueueSize, newOutgoing);
    this.receiveQueue = new GrowingSequenceBuffer(config.receiveQueueSize, newIncoming);
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
    this.enqueue().block = new OutgoingBlock(data.slice(), c.blockFragmentBytes);
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
    const fragments = this.fragmentsChosen;
    fragments.clear();
    this.selectedBlock = -1;
    let used = 1; // the entry's kind bit
    const head = this.sendQueue.find(this.oldestUnacked);
    if (head?.block) {
      // The oldest item is a block: its fragments due now, by the channel's resend policy. The room
      // left carries the messages behind it, which wait in the receiver's window.
      const header = 1 + 16 + this.blockTotalBits + this.fragmentCountBits + 1; // + messages-follow bit
      const blockUsed = head.block.select(now, this.config.resendInterval, header, budgetBits, fragments);
      if (fragments.length > 0) {
        this.selectedBlock = this.oldestUnacked;
        used = blockUsed;
      }
    }
    return fragments.length + this.selectMessages(now, used + this.countBits, budgetBits);
  }

  /** Chooses the messages due now that fit after `used` bits, oldest first, into `candidates`. */
  private selectMessages(now: number, used: number, budgetBits: number): number {
    const c = this.config;
    const chosen = this.candidates;
    chosen.clear();
    let previous = -1;
    // Only ids the receiver can hold: oldest unacked + its window.
    const window = Math.min(this.sendQueueDepth, c.receiveQueueSize);
    // Smaller messages further on may still fit a nearly full packet, but only a few are tried:
    // scanning a deep queue to its end for every packet would cost more than the space is worth.
    let misfits = 0;
    for (let i = 0; i < window && chosen.length < c.maxMessagesPerPacket && misfits < 16; i++) {
      const id = (this.oldestUnacked + i) & 0xffff;
      const entry = this.sendQueue.find(id);
      // Blocks travel as fragments, and only at the head.
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
    const c = this.config;
    const chosen = this.candidates.items;
    const count = this.candidates.length;
    if (this.selectedBlock >= 0) {
      const id = this.selectedBlock;
      ws.bool(true);
      record.push(RECORD_BLOCK);
      record.push(id);
      this.resent += this.sendQueue.find(id)!.block!.write(ws, id, now, c, this.fragmentsChosen, record);
      ws.bool(count > 0); // messages follow
      if (count === 0) return;
    } else {
      ws.bool(false);
      record.push(RECORD_MESSAGES);
    }
    ws.int(count, 1, c.maxMessagesPerPacket);
    for (let k = 0; k < count; k++) {
      const id = chosen[k];
      if (k === 0) ws.bits(id, 16);
      else ws.sequenceRelative(chosen[k - 1], id);
      const entry = this.sendQueue.find(id)!;
      writeMessage(ws, entry.message!);
      if (entry.copiesDue > 0 && entry.lastSent + c.resendInterval > now + TIME_EPSILON) {
        // A copy of the first resend: the interval still counts from the resend itself.
        entry.copiesDue--;
      } else {
        entry.copiesDue = entry.sends === 1 ? c.resendCopies - 1 : 0;
        entry.lastSent = now;
      }
      if (entry.sends++ > 0) this.resent++;
      record.push(id);
    }
  }

  read(rs: ReadStream, factory: MessageFactory, staged: ScratchList<unknown>): boolean {
    if (rs.bool(false)) {
      const id = rs.bits(0, 16);
      if (rs.ok && this.beyondWindow(id)) return this.refuseBeyondWindow(rs);
      const total = rs.int(0, 1, this.config.maxBlockBytes);
      if (!rs.ok) return false;
      const block = this.incomingBlock;
      // A block begun under an id no longer wanted can never complete: it must not block the next.
      if (block.id >= 0 && !this.wanted(block.id)) block.abandon();
      // Only a block still wanted can conflict: resends of a completed one are ignored as usual.
      const conflict = this.wanted(id) ? block.conflict(id, total) : null;
      if (conflict !== null) {
        rs.fail(conflict);
        return false;
      }
      staged.push(RECORD_BLOCK);
      staged.push(id);
      staged.push(total);
      if (!block.readFragments(rs, total, staged)) return false;
      if (!rs.bool(false)) return rs.ok; // no messages follow
    } else staged.push(RECORD_MESSAGES);
    const count = rs.int(0, 1, this.config.maxMessagesPerPacket);
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
    let k = 1;
    if (staged[0] === RECORD_BLOCK) {
      // [block, id, total, source, count, (fragment, offset) × count, then (id, message)*]
      const id = staged[1] as number;
      k = 5 + 2 * (staged[4] as number);
      const b = this.incomingBlock;
      if (this.wanted(id)) {
        if (b.id < 0) b.start(id, staged[2] as number); // `read` refused any conflict with a block begun
        for (let f = 5; f < k; f += 2) {
          const complete = b.add(staged[f] as number, staged[3] as Uint8Array, staged[f + 1] as number);
          if (complete !== null) {
            this.receiveQueue.insert(id)!.message = receivedMessage(Block, complete);
            break;
          }
        }
      } // else already complete (a resend), or a stray
    }
    for (; k < list.length; k += 2) {
      const id = staged[k] as number;
      // Already delivered, outside the window, or already here: a resend or a stray.
      if (!this.wanted(id)) continue;
      this.receiveQueue.insert(id)!.message = staged[k + 1] as ReceivedMessage;
    }
  }

  acked(record: PacketRecord, start: number, end: number): void {
    let k = start + 1;
    if (record[start] === RECORD_BLOCK) {
      // [block, id, count, fragments × count, then message ids]
      const id = record[start + 1];
      k = start + 3 + record[start + 2];
      const block = this.sendQueue.find(id)?.block;
      // The block leaves the moment its last fragment is acked: the next item goes in the next packet.
      for (let f = start + 3; block && f < k; f++) {
        if (block.ack(record[f])) {
          this.sendQueue.find(id)!.block = null;
          this.sendQueue.remove(id);
          break;
        }
      }
    }
    for (; k < end; k++) {
      const entry = this.sendQueue.find(record[k]);
      if (entry !== undefined && entry.message !== null) {
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
