import { assertLittleEndianHost } from './endianness.js';

/** Up to this many bytes, reset() copies a range byte by byte rather than through a subarray view. */
const SMALL_COPY = 128;

assertLittleEndianHost();

/**
 * Reads the bit stream {@link BitWriter} produces. The input is copied once into an aligned,
 * zero-padded word buffer that the reader keeps and reuses, so every word load is one typed-array
 * read whatever the input's offset, and nothing is allocated per read.
 *
 * The reader itself never reads past the input: {@link readBits} returns 0 once fewer bits remain
 * than asked for. Streams above it check {@link bitsRemaining} first and report why.
 *
 * Generated schema code (src/schema/generate-read.ts, generate-emitter.ts) reads and writes the
 * private state fields by name to keep them in locals: rename them there too.
 */
export class BitReader {
  private words: Uint32Array;
  private bytes: Uint8Array;
  private numBits = 0;
  private bitsRead = 0;
  private scratch = 0;
  private scratchBits = 0;
  private wordIndex = 0;

  constructor(initialCapacityBytes = 1500) {
    this.words = new Uint32Array((initialCapacityBytes + 3) >>> 2);
    this.bytes = new Uint8Array(this.words.buffer);
  }

  /**
   * Starts reading `length` bytes of `data` from `offset` (default: all of it), copied: the caller
   * may reuse its buffer straight away. The range must lie inside `data`.
   */
  reset(data: Uint8Array, offset = 0, length = data.length - offset): void {
    const wordsNeeded = (length + 3) >>> 2;
    if (wordsNeeded > this.words.length) {
      this.words = new Uint32Array(Math.max(wordsNeeded, this.words.length * 2));
      this.bytes = new Uint8Array(this.words.buffer);
    }
    if (offset === 0 && length === data.length) this.bytes.set(data);
    else if (length <= SMALL_COPY) {
      // A byte loop beats making a subarray view (an allocation) for small ranges.
      const bytes = this.bytes;
      for (let i = 0; i < length; i++) bytes[i] = data[offset + i];
    } else this.bytes.set(data.subarray(offset, offset + length));
    // Zero the padding in the last word: bits past the end must read as zero.
    for (let i = length, end = wordsNeeded * 4; i < end; i++) this.bytes[i] = 0;
    this.numBits = length * 8;
    this.bitsRead = 0;
    this.scratch = 0;
    this.scratchBits = 0;
    this.wordIndex = 0;
  }

  get totalBits(): number {
    return this.numBits;
  }

  get bitsConsumed(): number {
    return this.bitsRead;
  }

  get bitsRemaining(): number {
    return this.numBits - this.bitsRead;
  }

  /** Reads `bits` bits (1..32) as an unsigned number; 0 when fewer bits remain. */
  readBits(bits: number): number {
    if (this.bitsRead + bits > this.numBits) return 0;
    this.bitsRead += bits;
    const mask = 0xffffffff >>> (32 - bits);
    const scratchBits = this.scratchBits;
    if (scratchBits >= bits) {
      const value = (this.scratch & mask) >>> 0;
      this.scratch = bits === 32 ? 0 : this.scratch >>> bits;
      this.scratchBits = scratchBits - bits;
      return value;
    }
    const word = this.words[this.wordIndex++];
    const value = ((this.scratch | (word << scratchBits)) & mask) >>> 0;
    const used = bits - scratchBits;
    this.scratch = used === 32 ? 0 : word >>> used;
    this.scratchBits = 32 - used;
    return value;
  }

  /** Bits of padding up to the next byte boundary. */
  get alignBits(): number {
    return (8 - (this.bitsRead & 7)) & 7;
  }

  /** Skips to the next byte boundary; false when the padding is not all zero. */
  readAlign(): boolean {
    const pad = this.alignBits;
    return pad === 0 || this.readBits(pad) === 0;
  }

  /** Copies `length` bytes into `target` at `offset`; the stream must be byte aligned with enough bits left. */
  readBytesInto(target: Uint8Array, offset: number, length: number): void {
    let i = offset;
    const end = offset + length;
    while (i < end && this.scratchBits !== 0) target[i++] = this.readBits(8);
    const wholeWords = (end - i) >>> 2;
    if (wholeWords > 0) {
      const start = this.wordIndex * 4;
      target.set(this.bytes.subarray(start, start + wholeWords * 4), i);
      this.wordIndex += wholeWords;
      this.bitsRead += wholeWords * 32;
      i += wholeWords * 4;
    }
    while (i < end) target[i++] = this.readBits(8);
  }

  /**
   * The reader's copy of the input (valid until the next {@link reset}), so byte-aligned regions
   * can be inspected in place before {@link skipBytes} moves past them.
   */
  get input(): Uint8Array {
    return this.bytes;
  }

  /** Moves past `count` bytes; the stream must be byte aligned with that many bytes left. */
  skipBytes(count: number): void {
    this.seek(this.bitsRead + count * 8);
  }

  /** Ends the stream here: every later read finds no bits left. */
  stop(): void {
    this.numBits = this.bitsRead;
  }

  private seek(bit: number): void {
    this.bitsRead = bit;
    this.wordIndex = bit >>> 5;
    const within = bit & 31;
    if (within === 0) {
      this.scratch = 0;
      this.scratchBits = 0;
    } else {
      this.scratch = this.words[this.wordIndex++] >>> within;
      this.scratchBits = 32 - within;
    }
  }
}
