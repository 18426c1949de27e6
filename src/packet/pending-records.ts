const NONE = -1;
const FIRST_CAPACITY = 8;

/**
 * The caller's records of sent packets awaiting their outcome, by 16-bit sequence: a small ring
 * indexed by sequence modulo its power-of-two capacity, doubled only when two records that are
 * still pending would share a slot: only packets sent with a record keep one, usually a few.
 */
export class PendingRecords<R> {
  private sequences = new Int32Array(FIRST_CAPACITY).fill(NONE);
  private records: (R | undefined)[] = new Array<R | undefined>(FIRST_CAPACITY).fill(undefined);
  private mask = FIRST_CAPACITY - 1;

  /** Slots held (for tests and memory accounting). */
  get capacity(): number {
    return this.mask + 1;
  }

  /**
   * Holds `record` for `sequence`, replacing any earlier one of the same sequence. `pending(s)`
   * says whether the record held for `s` still awaits its packet's outcome; one that does not is
   * stale (its packet left the sent buffer unreported) and its slot is taken over.
   */
  put(sequence: number, record: R, pending: (sequence: number) => boolean): void {
    for (;;) {
      const index = sequence & this.mask;
      const held = this.sequences[index];
      if (held === NONE || held === sequence || !pending(held)) {
        this.sequences[index] = sequence;
        this.records[index] = record;
        return;
      }
      this.grow(pending);
    }
  }

  /** Hands back and forgets the record of `sequence` (undefined when none is held). */
  take(sequence: number): R | undefined {
    const index = sequence & this.mask;
    if (this.sequences[index] !== sequence) return undefined;
    const record = this.records[index];
    this.sequences[index] = NONE;
    this.records[index] = undefined;
    return record;
  }

  clear(): void {
    this.sequences.fill(NONE);
    this.records.fill(undefined);
  }

  /** Doubles until every pending record has a slot of its own (16-bit sequences: at most 65536). */
  private grow(pending: (sequence: number) => boolean): void {
    const oldSequences = this.sequences;
    const oldRecords = this.records;
    let capacity = this.mask + 1;
    for (;;) {
      capacity *= 2;
      const sequences = new Int32Array(capacity).fill(NONE);
      const records = new Array<R | undefined>(capacity).fill(undefined);
      let fits = true;
      for (let i = 0; i < oldSequences.length && fits; i++) {
        const s = oldSequences[i];
        if (s === NONE || !pending(s)) continue;
        const index = s & (capacity - 1);
        if (sequences[index] !== NONE) fits = false;
        sequences[index] = s;
        records[index] = oldRecords[i];
      }
      if (fits || capacity >= 65536) {
        this.sequences = sequences;
        this.records = records;
        this.mask = capacity - 1;
        return;
      }
    }
  }
}
