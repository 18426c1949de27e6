/**
 * The handoffs one zone has sent to the store and not had answered yet. A commit whose call
 * rejected (the store down, a timeout) may have happened: it is in doubt, kept, and sent again as
 * it was — same hseq, same payload — until the store answers, since only the answer tells where
 * the entity is. It is never brought back on a rejection (that could double it). The answers:
 * 'ok' or 'duplicate' (an earlier try landed): it moved; 'not-owner': it moved on already;
 * 'inbox-full' or 'owners-full': nothing moved, it comes back to its zone; 'stale': nothing
 * changed, and the caller learns whether its zone is lost (kept meanwhile).
 */
import type { EntityRecord } from './zone-messages.js';
import type { OutgoingHandoff } from './zone-server.js';
import type { CommitResult, HandoffCommit, ZoneStore } from './zone-store.js';
import type { ZoneCodecs } from './zone-wire.js';

interface UnsettledCommit {
  handoff: OutgoingHandoff;
  commit: HandoffCommit;
  inDoubt: boolean;
}

/** What one round of sends found: the first rejection, if any, and whether any answer was 'stale'. */
export interface SettleOutcome {
  failure: { error: unknown } | null;
  stale: boolean;
}

/** What a zone counts of its handoff commits. */
export interface ZoneCommitStats {
  /** Handoffs committed. */
  commits: number;
  /** Commits the store answered otherwise, by its answer ('not-owner', 'inbox-full'…). */
  commitsRefused: Record<string, number>;
  /** Bytes of handoff payloads sent. */
  handoffBytes: number;
  /** Commits whose call rejected (they may have happened), in all. */
  inDoubtCommits: number;
  /** Of those, the ones the store has not answered yet (sent again until it does). */
  inDoubtUnanswered: number;
  /** Milliseconds from a commit call to its answer, last 256. */
  commitMs: number[];
}

export class ZoneCommits {
  private unsettled: UnsettledCommit[] = [];
  private commits = 0;
  private handoffBytes = 0;
  private inDoubtCommits = 0;
  private readonly refused: Record<string, number> = {};
  private readonly commitMs: number[] = [];

  constructor(
    private readonly store: ZoneStore,
    private readonly codecs: ZoneCodecs,
    private readonly zone: number,
    private readonly epoch: number,
    private readonly nowMs: () => number,
    /** An entity whose commit the store refused for room: it is this zone's again. */
    private readonly onRefused: (handoff: OutgoingHandoff) => void,
  ) {}

  get size(): number {
    return this.unsettled.length;
  }

  add(handoff: OutgoingHandoff): void {
    // A copy: the encoder's view is overwritten by its next encode, and this one may be sent again.
    const payload = this.codecs.encodeEntityRecord(handoff.record).slice();
    this.handoffBytes += payload.length;
    const commit = {
      worldId: handoff.record.worldId,
      from: this.zone,
      fromEpoch: this.epoch,
      to: handoff.to,
      hseq: handoff.record.hseq,
      tick: handoff.tick,
      payload,
    };
    this.unsettled.push({ handoff, commit, inDoubt: false });
  }

  /**
   * The entities sent and not answered, as they were before they left: a snapshot holds them, so a
   * takeover keeps each one the owner table still gives this zone (the commit did not land).
   */
  records(): EntityRecord[] {
    return this.unsettled.map(({ handoff }) => ({ ...handoff.record, hseq: handoff.record.hseq - 1 }));
  }

  /** Sends every unanswered commit at once; those still unanswered wait for the next call, in order. */
  async settle(): Promise<SettleOutcome> {
    const sent = this.unsettled;
    const answers = await Promise.all(sent.map((unsettled) => this.send(unsettled)));
    this.unsettled = sent.filter((_, i) => answers[i] !== 'done');
    let failure: { error: unknown } | null = null;
    for (const answer of answers) if (typeof answer === 'object') failure ??= answer;
    return { failure, stale: answers.includes('stale') };
  }

  stats(): ZoneCommitStats {
    return {
      commits: this.commits,
      commitsRefused: { ...this.refused },
      handoffBytes: this.handoffBytes,
      inDoubtCommits: this.inDoubtCommits,
      inDoubtUnanswered: this.unsettled.filter((u) => u.inDoubt).length,
      commitMs: [...this.commitMs],
    };
  }

  private async send(unsettled: UnsettledCommit): Promise<'done' | 'stale' | { error: unknown }> {
    const started = this.nowMs();
    let result: CommitResult;
    try {
      result = await this.store.commitHandoff(unsettled.commit);
    } catch (error) {
      if (!unsettled.inDoubt) this.inDoubtCommits++;
      unsettled.inDoubt = true;
      return { error };
    }
    if (this.commitMs.length >= 256) this.commitMs.shift();
    this.commitMs.push(this.nowMs() - started);
    if (result === 'stale') return 'stale';
    if (result === 'ok') this.commits++;
    else this.refused[result] = (this.refused[result] ?? 0) + 1;
    if (result === 'inbox-full' || result === 'owners-full') this.onRefused(unsettled.handoff);
    return 'done';
  }
}
