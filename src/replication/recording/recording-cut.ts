/**
 * A clip of a recording cut in slices (Recorder.cut): the span is fixed when the cut is made (it
 * holds the chunks it needs, so the ring may move on), and each `step()` does one bounded slice of
 * the work, so a host can spread a large cut over its ticks within a time budget.
 *
 *   const cut = recorder.cut({ seconds: 5, viewOf: killer.id });
 *   while (!cut.step()) if (outOfTime()) break; // go on next tick
 *   if (cut.done) send(cut.bytes);
 */
export class RecordingCut {
  private output: Uint8Array | null = null;
  private work: Iterator<void, Uint8Array> | null;
  private stepsDone = 0;
  private cancelled = false;

  /** @internal Made by Recorder.cut: `work` yields after each slice and returns the clip. */
  constructor(
    work: Iterator<void, Uint8Array>,
    private readonly release: () => void,
  ) {
    this.work = work;
  }

  /** Whether the clip is ready (`bytes`). */
  get done(): boolean {
    return this.output !== null;
  }

  /** Slices done so far. */
  get steps(): number {
    return this.stepsDone;
  }

  /** The clip's .gwr bytes; throws until `done`. */
  get bytes(): Uint8Array {
    if (this.output === null)
      throw new Error(
        `RecordingCut.bytes: ${this.cancelled ? 'the cut was cancelled' : 'the cut is not done: step() on'}`,
      );
    return this.output;
  }

  /** Does one slice; true once the clip is ready (then it does nothing more). Throws after `cancel()`. */
  step(): boolean {
    if (this.output !== null) return true;
    const work = this.work;
    if (work === null) throw new Error('RecordingCut.step: the cut was cancelled');
    this.stepsDone++;
    const next = work.next();
    if (next.done !== true) return false;
    this.output = next.value;
    this.finish();
    return true;
  }

  /** Drops the cut and what it holds (idempotent; nothing once done). */
  cancel(): void {
    if (this.output !== null || this.work === null) return;
    this.cancelled = true;
    this.work.return?.(new Uint8Array(0));
    this.finish();
  }

  private finish(): void {
    this.work = null;
    this.release();
  }
}
