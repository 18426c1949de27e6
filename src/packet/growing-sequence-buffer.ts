import { movedRefs, SequenceSlots } from './sequence-slots.js';

/**
 * SequenceBuffer's interface and rules over slots that grow with use (SequenceSlots): entry objects
 * are made when a slot is first used and reused after, and the slot arrays double only when more
 * entries are live at once than they hold, up to `size`. Nothing is allocated before the first
 * insert: a message queue of 1024 that was never used costs its object alone.
 */
export class GrowingSequenceBuffer<T> extends SequenceSlots {
  private entries: (T | undefined)[];

  constructor(
    size: number,
    private readonly create: () => T,
  ) {
    super(size, true);
    this.entries = [];
  }

  protected moveEntries(capacity: number, to: Int32Array): void {
    const next = movedRefs(this.entries, capacity, to, undefined);
    // Entries of emptied slots are kept for reuse where their index is free.
    for (let i = 0; i < this.entries.length; i++) {
      const entry = this.entries[i];
      if (to[i] < 0 && entry !== undefined && next[i] === undefined) next[i] = entry;
    }
    this.entries = next;
  }

  /**
   * Claims the slot for `sequence` and returns its (reused) entry, or undefined when the sequence
   * is too old. The caller overwrites the entry's fields.
   */
  insert(sequence: number): T | undefined {
    const index = this.insertIndex(sequence);
    if (index < 0) return undefined;
    let entry = this.entries[index];
    if (entry === undefined) {
      entry = this.create();
      this.entries[index] = entry;
    }
    return entry;
  }

  /** The entry object at slot `index` (< capacity), held or not; undefined when none was made there. */
  entryAt(index: number): T | undefined {
    return this.entries[index];
  }

  find(sequence: number): T | undefined {
    const index = this.indexOf(sequence);
    return index < 0 ? undefined : this.entries[index];
  }
}
