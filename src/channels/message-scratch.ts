import { ReadStream } from '../serialize/read-stream.js';
import { WriteStream } from '../serialize/write-stream.js';
import { ScratchList } from './scratch-list.js';

/**
 * The streams (and flags) a MessageConnection packs, serializes and reads packets with (about 5 KB). Each is
 * used only within one call (writePacket's bytes are handed on before the next), so connections
 * used one at a time, as a server's clients are, share one set instead of holding one each.
 */
export class MessageScratch {
  readonly packet: WriteStream;
  readonly encoder: WriteStream;
  readonly reader: ReadStream;
  /** Which channels a packet being read had an entry for (at most 64 channels). */
  readonly seen = new Uint8Array(64);
  /** A packet's messages per channel, read before any is applied (grown to the most channels asked for). */
  private readonly staged: ScratchList<unknown>[] = [];

  constructor(readonly packetBudgetBytes: number) {
    this.packet = new WriteStream(packetBudgetBytes);
    this.encoder = new WriteStream(packetBudgetBytes);
    this.reader = new ReadStream(packetBudgetBytes + 64);
  }

  /** The staging lists, at least `channels` of them (the same array for every connection). */
  stagedLists(channels: number): ScratchList<unknown>[] {
    while (this.staged.length < channels) this.staged.push(new ScratchList<unknown>());
    return this.staged;
  }
}
