import { assertLittleEndianHost } from './endianness.js';

assertLittleEndianHost();

/** Writing past a writer's capacity: a message too big for its buffer, always the caller's to fix. */
export class BitWriterOverflowError extends RangeError {
  constructor(
    readonly bits: number,
    readonly at: number,
    readonly capacityBytes: number,
  ) {
    super(
      `BitWriter overflow: writing ${bits} bits at bit ${at} exceeds the ${capacityBytes}-byte buffer; create the writer with a larger capacity`,
    );
    this.name = 'BitWriterOverflowError';
  }
}

/**
 * Packs unsigned integers of 1..32 bits into a buffer, in the serialize STANDARD layout: bits fill a
 * scratch word from the least significant end, full words are stored little-endian, so a value of
 * n bits written at bit index s occupies bits [s, s + n) of the stream.
 *
 * The writer is the trusted side: it masks each value to its width and throws only when the
 * buffer would overflow. Range checks on values belong to the stream layer above it.
 *
 * Generated schema code (src/schema/generate.ts) reads and writes the private state fields by
 * name to keep them in locals: rename them there too.
 */
export class BitWriter {
  private readonly words: Uint32Array;
  private readonly bytes: Uint8Array;
  private readonly capacityBits: number;
  /** The view finish() returned last: handed out again while the length repeats (no allocation). */
  private view: Uint8Array;
  private scratch = 0;
  private scratchBits = 0;
  private wordIndex = 0;

  /** @param capacityBytes the most bytes this writer may produce (it keeps one buffer for life) */
  constructor(capacityBytes: number) {
    if (!Number.isInteger(capacityBytes) || capacityBytes < 0 || capacityBytes > 0x10000000) {
      throw new RangeError(`BitWriter capacity must be an integer in [0, 256 MiB], got ${capacityBytes}`);
    }
    const buffer = new ArrayBuffer((capacityBytes + 3) & ~3);
    this.words = new Uint32Array(buffer);
    this.bytes = new Uint8Array(buffer);
    this.capacityBits = capacityBytes * 8;
    this.view = this.bytes.subarray(0, 0);
  }

  /** Starts a new stream over the same buffer. */
  reset(): void {
    this.scratch = 0;
    this.scratchBits = 0;
    this.wordIndex = 0;
  }

  get bitsWritten(): number {
    return this.wordIndex * 32 + this.scratchBits;
  }

  get bitsAvailable(): number {
    return this.capacityBits - this.bitsWritten;
  }

  /** Bytes the stream occupies so far: ceil(bits / 8). */
  get bytesWritten(): number {
    return (this.bitsWritten + 7) >>> 3;
  }

  get capacityBytes(): number {
    return this.capacityBits >>> 3;
  }

  /** Writes the low `bits` bits of `value`; `bits` in [1, 32]. */
  writeBits(value: number, bits: number): void {
    if (this.wordIndex * 32 + this.scratchBits + bits > this.capacityBits) this.overflow(bits);
    // Mask to the declared width; `>>> (32 - bits)` is a no-op shift for bits == 32.
    const v = (value & (0xffffffff >>> (32 - bits))) >>> 0;
    const scratchBits = this.scratchBits;
    this.scratch |= v << scratchBits;
    const total = scratchBits + bits;
    if (total < 32) {
      this.scratchBits = total;
    } else {
      this.words[this.wordIndex++] = this.scratch;
      const carried = total - 32;
      // The bits of v that did not fit; `v >>> 32` would be v, hence the explicit zero.
      this.scratch = carried === 0 ? 0 : v >>> (bits - carried);
      this.scratchBits = carried;
    }
  }

  /** Zero-pads to the next byte boundary (nothing when already aligned). */
  writeAlign(): void {
    const remainder = this.scratchBits & 7;
    if (remainder !== 0) this.writeBits(0, 8 - remainder);
  }

  /** Bits {@link writeAlign} would write now. */
  get alignBits(): number {
    return (8 - (this.scratchBits & 7)) & 7;
  }

  /** Copies bytes into the stream; the stream must be byte aligned (call {@link writeAlign}). */
  writeBytes(data: Uint8Array, offset = 0, length = data.length - offset): void {
    if ((this.scratchBits & 7) !== 0) throw new Error('BitWriter.writeBytes needs a byte-aligned stream');
    if (this.bitsWritten + length * 8 > this.capacityBits) this.overflow(length * 8);
    let i = offset;
    const end = offset + length;
    // Head: finish the partial scratch word a byte at a time.
    while (i < end && this.scratchBits !== 0) this.writeBits(data[i++], 8);
    // Body: whole words straight into the buffer.
    const wholeWords = (end - i) >>> 2;
    if (wholeWords > 0) {
      const start = this.wordIndex * 4;
      const n = wholeWords * 4;
      // Short runs by hand: subarray() on a small on-heap array makes V8 move its buffer off the
      // heap (about 230 ns), more than the copy itself.
      if (n <= 64) for (let k = 0; k < n; k++) this.bytes[start + k] = data[i + k];
      else this.bytes.set(data.subarray(i, i + n), start);
      this.wordIndex += wholeWords;
      i += wholeWords * 4;
    }
    // Tail: the last 0..3 bytes go through the scratch word.
    while (i < end) this.writeBits(data[i++], 8);
  }

  /**
   * Copies the stream so far into `target` from `offset` as 32-bit words, the last one holding
   * the partial bits (zeros above them), without flushing or allocating; returns the words
   * copied. Writing each word back with `writeBits(word, 32)` (the last with the bits left)
   * reproduces the stream.
   */
  copyWords(target: Uint32Array, offset: number): number {
    const whole = this.wordIndex;
    for (let i = 0; i < whole; i++) target[offset + i] = this.words[i];
    if (this.scratchBits === 0) return whole;
    target[offset + whole] = this.scratch >>> 0;
    return whole + 1;
  }

  /** Stores the partial scratch word; the stream can still be appended to afterwards. */
  flush(): void {
    if (this.scratchBits !== 0) this.words[this.wordIndex] = this.scratch;
  }

  /**
   * Flushes and returns the written bytes (exactly ceil(bits / 8)), as a view of the writer's
   * buffer: valid until the next {@link reset}. Copy it (`slice()`) to keep it.
   */
  finish(): Uint8Array {
    this.flush();
    // Zero the bytes past the end inside the last word so stale data from an earlier, longer
    // stream never leaks into a view a caller widens.
    const used = this.bytesWritten;
    const end = Math.min((used + 3) & ~3, this.bytes.length);
    for (let i = used; i < end; i++) this.bytes[i] = 0;
    // Streams of one length recur (empty packets, fixed-size messages): reuse that view.
    if (this.view.length !== used) this.view = this.bytes.subarray(0, used);
    return this.view;
  }

  private overflow(bits: number): never {
    throw new BitWriterOverflowError(bits, this.bitsWritten, this.capacityBits >>> 3);
  }
}
