/**
 * One bit per sequence: reported lost, and no late ack counted for it yet. Set when a packet is
 * reported lost, cleared when the sequence is sent again or its late ack is counted: so a late ack
 * counts once per packet, also after the packet left the sent buffer, and an ack repeated for a
 * packet that was acked in time never counts. Made at the first loss. A bit is only ever asked
 * about while its packet is less than half the sequence space back (or within a sent buffer larger
 * than that), so with buffers up to 32768 the bits of s and s + 32768 share a place (4 KB, else
 * 8 KB): sending a sequence clears the bit of the one 32768 before it, which no ack can match any more.
 */
export class LostUncounted {
  private bits: Uint32Array | null = null;
  private readonly mask: number;
  /** Bits set: while none is, no ack can be late, and the endpoint skips acks of resolved packets. */
  count = 0;

  constructor(sentPacketsBufferSize: number) {
    this.mask = sentPacketsBufferSize > 32768 ? 0xffff : 0x7fff;
  }

  /** Bytes held (0 until the first loss). */
  get bytes(): number {
    return this.bits === null ? 0 : this.bits.byteLength;
  }

  lost(sequence: number): void {
    this.bits ??= new Uint32Array((this.mask + 1) / 32);
    const bit = sequence & this.mask;
    const word = bit >>> 5;
    const flag = 1 << (bit & 31);
    if ((this.bits[word] & flag) === 0) this.count++;
    this.bits[word] |= flag;
  }

  sent(sequence: number): void {
    if (this.count === 0) return;
    const bits = this.bits!;
    const bit = sequence & this.mask;
    const word = bit >>> 5;
    const flag = 1 << (bit & 31);
    if ((bits[word] & flag) === 0) return;
    bits[word] &= ~flag;
    this.count--;
  }

  /** True (and clears it) when `sequence` was reported lost and no late ack was counted for it yet. */
  take(sequence: number): boolean {
    const bits = this.bits;
    if (bits === null) return false;
    const bit = sequence & this.mask;
    const word = bit >>> 5;
    const flag = 1 << (bit & 31);
    if ((bits[word] & flag) === 0) return false;
    bits[word] &= ~flag;
    this.count--;
    return true;
  }

  reset(): void {
    this.bits = null;
    this.count = 0;
  }
}
