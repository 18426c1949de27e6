import type { ReadStream } from '../serialize/read-stream.js';
import type { WriteStream } from '../serialize/write-stream.js';
import type { ResolvedChannelConfig } from './config.js';
import { type MessageFactory, type ReceivedMessage, receivedMessage } from './message.js';
import type { ScratchList } from './scratch-list.js';

/** A message serialized once at send time (type id, then body), resent by copying its bytes. */
export interface EncodedMessage {
  readonly bytes: Uint8Array;
  readonly received?: undefined;
}

/** Bits the relative encoding of `to` after `from` (16-bit, wrap-aware) takes (yojimbo's sequence_relative). */
export function relativeBits(from: number, to: number): number {
  const d = (to - from) & 0xffff;
  if (d === 1) return 1;
  if (d <= 6) return 2 + 3;
  if (d <= 23) return 3 + 5;
  if (d <= 280) return 4 + 9;
  if (d <= 4377) return 5 + 13;
  return 6 + 17; // a 16-bit difference always fits the [4378, 69914] tier
}

/** Bits one message costs in a packet after its id: align (at most 7) and its bytes. */
export const messageBits = (m: EncodedMessage): number => 7 + m.bytes.length * 8;

/** Reads one message (align, type, body, align); null when the input is bad. */
export function readMessage(rs: ReadStream, factory: MessageFactory): ReceivedMessage | null {
  rs.align();
  const typeId = rs.int(0, 0, factory.types.length - 1);
  if (!rs.ok) return null;
  const type = factory.types[typeId];
  const value = type.read(rs);
  rs.align();
  return rs.ok && value !== null ? receivedMessage(type, value) : null;
}

/** Writes one message's stored bytes at the next byte boundary. */
export function writeMessage(ws: WriteStream, m: EncodedMessage): void {
  ws.align();
  ws.writer.writeBytes(m.bytes);
}

/** How far a block has got: bytes acked of the one being sent, bytes received of the one arriving. */
export interface BlockProgress {
  sending: { ackedBytes: number; totalBytes: number } | null;
  receiving: { receivedBytes: number; totalBytes: number } | null;
}

/** What a channel records about a packet, handed back when the packet is acked. */
export type PacketRecord = number[];

export interface Channel {
  readonly config: ResolvedChannelConfig;
  /**
   * Queues a message (the same EncodedMessage may be queued on several connections: its bytes are
   * only read); returns its 16-bit id in this channel (wraps). Throws when the send queue is full.
   */
  send(message: EncodedMessage): number;
  /** Chooses what this channel would send now within `budgetBits` (its whole entry); returns the message count, writing nothing. */
  select(now: number, budgetBits: number): number;
  /** Writes the entry `select` chose (after the caller's channel header) and records its message ids. */
  writeSelected(ws: WriteStream, now: number, record: ScratchList<number>): void;
  /** Parses this channel's entry into `staged` without applying it; false when the input is bad. */
  read(rs: ReadStream, factory: MessageFactory, staged: ScratchList<unknown>): boolean;
  /** Applies what `read` staged (the whole packet was valid). */
  apply(staged: ScratchList<unknown>): void;
  /** The packet carrying `ids` (from this channel's part of a record) was acked. */
  acked(record: PacketRecord, start: number, end: number): void;
  receive(): ReceivedMessage | null;
  /** Reliable-ordered channels only: queue a block (returns its id), and see how far blocks have got. */
  sendBlock?(data: Uint8Array): number;
  blockProgress?(): BlockProgress;
  /** The connection ended (custom channels pass it on). */
  close?(): void;
  /** Reliable channels: appends the ids of messages and blocks accepted and not yet acked, oldest first. */
  unacked?(messages: number[], blocks: number[]): void;
  /** Messages waiting to be sent / awaiting acks, and received but not yet taken. */
  readonly sendQueueDepth: number;
  readonly receiveQueueDepth: number;
  /** Received messages dropped: unreliable ones over a full receive queue, or stale sequenced ones. */
  readonly dropped: number;
  /** Reliable: messages and block fragments written again (resends and their copies). */
  readonly resent: number;
}

/**
 * The entry a custom channel (config kind 'custom') writes in each packet: chosen within the
 * channel's budget, read whole before anything is applied, and told which packets were acked
 * through the numbers it pushed into their record.
 */
export interface CustomChannel {
  /** Chooses what to write now within `budgetBits` (the whole entry); 0 writes no entry. */
  select(now: number, budgetBits: number): number;
  /** Writes what `select` chose, at most `budgetBits` of it; pushes what its ack must know into `record`. */
  writeSelected(ws: WriteStream, now: number, record: ScratchList<number>): void;
  /** Parses an entry into `staged` without applying it; false (with `rs.fail(reason)`) when it is bad. */
  read(rs: ReadStream, staged: ScratchList<unknown>): boolean;
  /** Applies what `read` staged: every entry of the packet was valid. */
  apply(staged: ScratchList<unknown>): void;
  /** The packet whose record holds `record[start..end)` (what writeSelected pushed) was acked. */
  acked(record: PacketRecord, start: number, end: number): void;
  /** The connection ended (optional): free what was kept for it. */
  close?(): void;
  /**
   * The link as the packet layer measures it, before each packet a server writes (optional): the
   * newest round-trip sample in ms and the smoothed packet loss in percent (the replication
   * layer's flow modes).
   */
  link?(rttMs: number, packetLoss: number, now: number): void;
}
