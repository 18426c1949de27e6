import type { ReadStream } from '../serialize/read-stream.js';
import { MAX_FRAGMENTS_PER_PACKET } from './outgoing-block.js';
import type { ScratchList } from './scratch-list.js';

/** Shared by every receiver until its first block: empty, so never written. */
const NO_DATA = new Uint8Array(0);
const NO_MARKS = new Uint32Array(0);

/**
 * The receiving side of a reliable channel's blocks: one block at a time, in one buffer per channel
 * that is reused for every block. The buffer grows (doubling, then straight to maxBlockBytes) only
 * when a block is larger than any before, so a connection allocates less than 2 × maxBlockBytes
 * (and its fragment map, 4 bytes a fragment) for blocks over its whole life, whatever its peer
 * declares.
 *
 * A block's id and size are fixed by the first fragment that arrives for it, until it completes.
 * An honest sender never contradicts that (it sends one block at a time, and only moves on once
 * every fragment was acked, that is, received), so a fragment declaring another size for the same
 * id, or another block id while one is incomplete, is refused with a reason: before this rule, a
 * peer alternating two sizes for one id made the receiver allocate a new buffer on every packet.
 */
export class IncomingBlock {
  /** The id of the block being received, or -1 when none is. */
  id = -1;
  totalBytes = 0;
  receivedBytes = 0;
  /** Bytes ever allocated for block buffers (the fuzz checks it stays bounded). */
  bytesAllocated = 0;
  private fragments = 0;
  private fragmentsReceived = 0;
  private data = NO_DATA;
  /**
   * Fragment f of the current block is in when got[f] === generation: a new block starts with the
   * next generation, so nothing is cleared (a peer that starts blocks it never finishes costs no
   * more than the packets it sends).
   */
  private got = NO_MARKS;
  private generation = 0;

  constructor(
    private readonly fragmentBytes: number,
    private readonly maxBlockBytes: number,
  ) {}

  /**
   * Why a fragment of block `id` declaring `totalBytes` must be refused while this block is
   * incomplete, or null when it may be applied.
   */
  conflict(id: number, totalBytes: number): string | null {
    if (this.id < 0) return null;
    if (id !== this.id)
      return `block ${id} while block ${this.id} is incomplete (one block at a time per channel)`;
    if (totalBytes !== this.totalBytes)
      return `block ${id} declared ${totalBytes} bytes; its first fragment said ${this.totalBytes}`;
    return null;
  }

  /**
   * Reads the fragments of a block part declaring `totalBytes` (count, then each fragment's index,
   * align and bytes) into `staged`: the reader's copy of the packet, the count, and per fragment its
   * index and byte offset there (apply copies them from it: no copy here). False when bad.
   */
  readFragments(rs: ReadStream, totalBytes: number, staged: ScratchList<unknown>): boolean {
    const size = this.fragmentBytes;
    const fragments = Math.ceil(totalBytes / size);
    const count = rs.int(0, 1, MAX_FRAGMENTS_PER_PACKET);
    staged.push(rs.reader.input);
    staged.push(count);
    for (let k = 0; k < count && rs.ok; k++) {
      const f = rs.int(0, 0, fragments - 1);
      rs.align();
      const length = Math.min(size, totalBytes - f * size);
      if (rs.ok && length * 8 > rs.bitsRemaining) rs.fail('block fragment past the end');
      if (!rs.ok) break;
      staged.push(f);
      staged.push(rs.bitsProcessed >>> 3);
      rs.reader.skipBytes(length);
    }
    return rs.ok;
  }

  /** Starts block `id` of `totalBytes` (the caller checked `conflict` and the size limit). */
  start(id: number, totalBytes: number): void {
    const fragments = Math.ceil(totalBytes / this.fragmentBytes);
    if (this.data.length < totalBytes) {
      // At least doubling, and straight to the limit past half of it: the sizes below half the
      // limit sum to less than the limit, so the allocations of a life stay under twice it.
      let capacity = Math.max(totalBytes, this.data.length * 2);
      if (capacity * 2 > this.maxBlockBytes) capacity = this.maxBlockBytes;
      this.data = new Uint8Array(capacity);
      this.bytesAllocated += capacity;
    }
    if (this.got.length < fragments) {
      const capacity = Math.ceil(this.data.length / this.fragmentBytes);
      this.got = new Uint32Array(capacity);
      this.bytesAllocated += capacity * 4;
    }
    this.generation = (this.generation + 1) >>> 0;
    if (this.generation === 0) {
      this.got.fill(0); // once in 2^32 blocks
      this.generation = 1;
    }
    this.id = id;
    this.totalBytes = totalBytes;
    this.fragments = fragments;
    this.fragmentsReceived = 0;
    this.receivedBytes = 0;
  }

  /**
   * Drops the incomplete block: its id was taken by a message, or passed (only a hostile peer does
   * that), so it could never complete and would refuse every later block.
   */
  abandon(): void {
    this.id = -1;
  }

  /**
   * Stores fragment `f` from `source[offset, offset + its length)`; returns the completed block
   * (a copy the application keeps) when this was its last missing fragment, else null.
   */
  add(f: number, source: Uint8Array, offset: number): Uint8Array | null {
    if (this.got[f] === this.generation) return null;
    const at = f * this.fragmentBytes;
    const length = Math.min(this.fragmentBytes, this.totalBytes - at);
    this.data.set(source.subarray(offset, offset + length), at);
    this.got[f] = this.generation;
    this.fragmentsReceived++;
    this.receivedBytes += length;
    if (this.fragmentsReceived < this.fragments) return null;
    this.id = -1;
    return this.data.slice(0, this.totalBytes);
  }
}
