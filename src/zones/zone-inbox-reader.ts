/**
 * A zone's inbox as its runner reads it: the entries read and waiting for their tick, the highest
 * cursor applied (what a snapshot acks) and the highest read. A 'new' read whose answer was lost
 * (the call rejected after the store ran it) left its entries pending in the store, where no 'new'
 * read returns them again: the next read takes the pending ones past the highest cursor read
 * first, so none is skipped and none comes twice. A pending entry read again after a takeover may
 * have been applied by the dead process and its entity handed on since (an entity can arrive and
 * leave between two snapshots): one whose owner the store no longer says is this zone at its
 * handoff sequence is dropped (and acked by the next snapshot), as the restore drops such
 * entities from the snapshot.
 */
import type { InboxEntry, ZoneStore } from './zone-store.js';

/** Inbox entries asked per read, and world ids per owner query (within every store's maxBatch). */
const INBOX_BATCH = 1024;
const OWNER_BATCH = 512;

export class ZoneInboxReader {
  private readonly waiting: InboxEntry[] = [];
  private applied: number;
  private read: number;
  /** A read may have made entries pending that never came here: read those before new ones. */
  private lost = true;

  /** `cursor`: what the zone's snapshot holds; the first read takes what was pending after it. */
  constructor(
    private readonly store: ZoneStore,
    private readonly zone: number,
    private readonly epoch: number,
    cursor: number,
  ) {
    this.applied = cursor;
    this.read = cursor;
  }

  /** Entries read and not entered yet. */
  get arriving(): number {
    return this.waiting.length;
  }

  /** The highest cursor read. */
  get readCursor(): number {
    return this.read;
  }

  /**
   * Reads what is pending past the last cursor read (after a takeover or a lost answer), then what
   * is new. 'stale' when the store refused the epoch; rejects when the store does.
   */
  async fetch(): Promise<'ok' | 'stale'> {
    const { store, zone, epoch } = this;
    while (this.lost) {
      const pending = await store.readInbox(zone, epoch, { from: 'pending', after: this.read }, INBOX_BATCH);
      if (pending.status === 'stale') return 'stale';
      this.take(await this.stillOurs(pending.entries));
      for (const entry of pending.entries) if (entry.cursor > this.read) this.read = entry.cursor;
      if (pending.entries.length < INBOX_BATCH) this.lost = false;
    }
    // Until its answer arrives: a 'new' read that rejects may still have made its entries pending.
    this.lost = true;
    const fresh = await store.readInbox(zone, epoch, { from: 'new' }, INBOX_BATCH);
    this.lost = false;
    if (fresh.status === 'stale') return 'stale';
    this.take(fresh.entries);
    return 'ok';
  }

  /** The entries to enter before tick `next` (their tick has come), taken out and counted applied. */
  due(next: number): InboxEntry[] {
    const entering: InboxEntry[] = [];
    let kept = 0;
    for (const entry of this.waiting) {
      // Not before its tick: until then its old zone simulated it (this zone is behind that one).
      if (entry.tick > next) this.waiting[kept++] = entry;
      else {
        entering.push(entry);
        if (entry.cursor > this.applied) this.applied = entry.cursor;
      }
    }
    this.waiting.length = kept;
    return entering;
  }

  /**
   * How far a snapshot acks the inbox: every entry applied, but none still waiting for its tick
   * (an entry applied past a waiting one is read again after a takeover, and refused as a repeat).
   */
  ackCursor(): number {
    let cursor = this.applied;
    for (const entry of this.waiting) if (entry.cursor <= cursor) cursor = entry.cursor - 1;
    return cursor;
  }

  /** The entries whose entity the store still gives this zone at their handoff; the others count applied. */
  private async stillOurs(entries: readonly InboxEntry[]): Promise<InboxEntry[]> {
    const kept: InboxEntry[] = [];
    for (let at = 0; at < entries.length; at += OWNER_BATCH) {
      const slice = entries.slice(at, at + OWNER_BATCH);
      const owners = await this.store.owners(slice.map((entry) => entry.worldId));
      slice.forEach((entry, i) => {
        if (owners[i]?.zone === this.zone && owners[i].hseq === entry.hseq) kept.push(entry);
        else if (entry.cursor > this.applied) this.applied = entry.cursor;
      });
    }
    return kept;
  }

  private take(entries: readonly InboxEntry[]): void {
    for (const entry of entries) {
      this.waiting.push(entry);
      if (entry.cursor > this.read) this.read = entry.cursor;
    }
  }
}
