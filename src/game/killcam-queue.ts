/**
 * The kill-cams a GameServer is cutting: each a RecordingCut (its span fixed at the call), cut in
 * FIFO order in slices within a per-tick time budget, and sent as a block to its viewer when done.
 * At most `maxPending` wait (the newest beyond is refused as 'busy': a burst of deaths is play,
 * not a bug, so it never throws); a viewer who leaves cancels its kill-cams. Each call's promise
 * resolves with what became of it and never rejects (an un-awaited kill-cam cannot end the process).
 */
import type { RecordingCut } from '../replication/recording/recording-cut.js';

/** What became of a kill-cam (GameServer.killcam's promise). */
export type KillcamResult =
  | {
      readonly sent: true;
      /** The block's bytes. */
      readonly bytes: number;
      /** Ticks from the call to the send (0: the tick of the call). */
      readonly ticks: number;
    }
  | {
      readonly sent: false;
      /**
       * 'busy': too many kill-cams were being cut (refused at the call, nothing done);
       * 'viewer-left': the viewer left before its clip was cut; 'too-large': the clip is over a
       * block (give fewer seconds); 'closed': the server closed first.
       */
      readonly reason: 'busy' | 'viewer-left' | 'too-large' | 'closed';
    };

/** What the queue counts (GameServer.stats). */
export interface KillcamStats {
  /** Kill-cams waiting or being cut now. */
  killcamsPending: number;
  killcamsSent: number;
  /** Refused or dropped: 'busy', 'viewer-left', 'too-large', 'closed'. */
  killcamsDropped: number;
  /** Slices of cut work done, and the ticks that did any. */
  killcamSlices: number;
  killcamTicks: number;
  /** The most cut work one tick did, milliseconds. */
  killcamWorstTickMs: number;
}

interface Job {
  readonly viewer: number;
  readonly cut: RecordingCut;
  /** Makes the block from the clip. */
  readonly block: (clip: Uint8Array) => Uint8Array;
  readonly tick: number;
  readonly resolve: (result: KillcamResult) => void;
}

export class KillcamQueue {
  private readonly jobs: Job[] = [];
  private readonly counts: KillcamStats = {
    killcamsPending: 0,
    killcamsSent: 0,
    killcamsDropped: 0,
    killcamSlices: 0,
    killcamTicks: 0,
    killcamWorstTickMs: 0,
  };
  /** The last slice's time (ms): a slice starts only if one like it still fits the budget. */
  private sliceMs = 0;
  private closed = false;

  constructor(
    private readonly options: {
      /** Cut work per tick, milliseconds (at least one slice a tick runs whatever it is). */
      readonly budgetMs: number;
      readonly maxPending: number;
      readonly maxBlockBytes: number;
      /** Milliseconds, any origin (the host's performance.now; a test's counter). */
      readonly now: () => number;
      readonly send: (viewer: number, block: Uint8Array) => void;
    },
  ) {}

  /** Queues a cut for `viewer`; resolves when it is sent or dropped. */
  add(
    viewer: number,
    cut: RecordingCut,
    block: (clip: Uint8Array) => Uint8Array,
    tick: number,
  ): Promise<KillcamResult> {
    if (this.closed) {
      cut.cancel();
      this.counts.killcamsDropped++;
      return Promise.resolve({ sent: false, reason: 'closed' });
    }
    if (this.jobs.length >= this.options.maxPending) {
      cut.cancel();
      this.counts.killcamsDropped++;
      return Promise.resolve({ sent: false, reason: 'busy' });
    }
    return new Promise((resolve) => {
      this.jobs.push({ viewer, cut, block, tick, resolve });
    });
  }

  /** Cancels the kill-cams of a viewer who left. */
  leave(viewer: number): void {
    for (let i = this.jobs.length - 1; i >= 0; i--)
      if (this.jobs[i].viewer === viewer) this.drop(i, 'viewer-left');
  }

  /** The tick's cut work: slices of the oldest kill-cams while the budget lasts; each done is sent. */
  run(tick: number): void {
    const { now, budgetMs } = this.options;
    if (this.jobs.length === 0) return;
    const start = now();
    let elapsed = 0;
    do {
      const job = this.jobs[0];
      const t0 = now();
      let done: boolean;
      try {
        done = job.cut.step();
      } catch (error) {
        // A bug, never input (the recording is the server's own): the job goes, so it cannot
        // block the queue, and the host reports the error.
        this.drop(0, 'closed');
        throw error;
      }
      const t1 = now();
      this.sliceMs = t1 - t0;
      elapsed = t1 - start;
      this.counts.killcamSlices++;
      if (done) this.finish(job, tick);
    } while (this.jobs.length > 0 && elapsed + this.sliceMs <= budgetMs);
    this.counts.killcamTicks++;
    if (elapsed > this.counts.killcamWorstTickMs) this.counts.killcamWorstTickMs = elapsed;
  }

  /** The server closes: every pending kill-cam resolves 'closed'. */
  close(): void {
    this.closed = true;
    while (this.jobs.length > 0) this.drop(0, 'closed');
  }

  stats(): KillcamStats {
    return { ...this.counts, killcamsPending: this.jobs.length };
  }

  private finish(job: Job, tick: number): void {
    this.jobs.shift();
    const block = job.block(job.cut.bytes);
    if (block.length > this.options.maxBlockBytes) {
      this.counts.killcamsDropped++;
      job.resolve({ sent: false, reason: 'too-large' });
      return;
    }
    this.options.send(job.viewer, block);
    this.counts.killcamsSent++;
    job.resolve({ sent: true, bytes: block.length, ticks: tick - job.tick });
  }

  private drop(i: number, reason: 'viewer-left' | 'closed'): void {
    const [job] = this.jobs.splice(i, 1);
    job.cut.cancel();
    this.counts.killcamsDropped++;
    job.resolve({ sent: false, reason });
  }
}
