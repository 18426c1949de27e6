/**
 * How the game's own code failing reaches the GameServer's `onError`: a hook's throw at once;
 * failures that can recur every tick (a step a remote peer's inputs break, a hitbox) at most once
 * per REPORT_SECONDS of game time each, the counts saying how often. Nothing is passed on.
 */

/** Seconds of game time between two reports of a failure that can recur every tick. */
const REPORT_SECONDS = 1;

export class RuleErrors {
  /** Hooks that threw (and hitboxes). */
  hookErrors = 0;
  /** Steps that threw or returned a state outside its schema. */
  stepErrors = 0;
  /** The tick each recurring kind ('step', 'hitbox') was last reported at. */
  private readonly reportedAt = new Map<string, number>();

  constructor(
    private readonly onError: (error: unknown, where: string) => void,
    private readonly tickRate: number,
  ) {}

  /** Runs a hook; a throw is counted and reported, never passed on. Returns whether it returned. */
  call(where: string, hook: () => void): boolean {
    try {
      hook();
      return true;
    } catch (error) {
      this.hookFailed(error, where);
      return false;
    }
  }

  hookFailed(error: unknown, where: string): void {
    this.hookErrors++;
    this.tell(error, where);
  }

  stepFailed(error: unknown, tick: number): void {
    this.stepErrors++;
    this.tellSometimes(error, 'step', tick);
  }

  hitboxFailed(error: unknown, tick: number): void {
    this.hookErrors++;
    this.tellSometimes(error, 'hitbox', tick);
  }

  private tellSometimes(error: unknown, where: string, tick: number): void {
    const last = this.reportedAt.get(where) ?? Number.NEGATIVE_INFINITY;
    if (tick - last < REPORT_SECONDS * this.tickRate) return;
    this.reportedAt.set(where, tick);
    this.tell(error, where);
  }

  private tell(error: unknown, where: string): void {
    try {
      this.onError(error, where);
    } catch {
      // the reporter's own failure must not stop the game either
    }
  }
}
