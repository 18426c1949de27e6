/**
 * Runs a room's due ticks and counts how many ran on time, for the room server's stats (the load
 * tester's keep-up verdict reads them).
 */
import type { TickClock } from '../latency/tick-clock.js';

export class RoomTickPunctuality {
  ticksOnTime = 0;
  ticksLate = 0;
  /** Clocks started, half a period ahead of the frames (see advance). */
  private readonly phased = new WeakSet<TickClock>();

  /**
   * Advances `clock` to `nowMs`, running `onTick` for each due tick. The clock keeps `alpha` (under
   * a tick) of time after the newest tick, so the k-th newest ran k + alpha periods after its
   * schedule. Late: more than a period, plus half a period for the frame timer's phase against the
   * room's clock (a tick due just after a frame runs at the next one, a period later, on a server
   * keeping up); and every tick the clock dropped.
   */
  advance(clock: TickClock, nowMs: number, onTick: (tick: number) => void): void {
    if (!this.phased.has(clock)) {
      // The first advance starts the clock at a frame. Its ticks fall due half a period before the
      // frames, not on them: a frame a millisecond early or late then still runs exactly one tick
      // (due on the frames, jitter around them merged two ticks into one packet in 17% of frames).
      this.phased.add(clock);
      clock.advance(nowMs / 1000);
      clock.jump(clock.tick + 0.5);
      return;
    }
    const dropped = clock.droppedTicks;
    const ran = clock.advance(nowMs / 1000, onTick);
    const late = ran < 2 ? 0 : ran - 2 + (clock.alpha > 0.5 ? 1 : 0);
    this.ticksOnTime += ran - late;
    this.ticksLate += late + clock.droppedTicks - dropped;
  }
}
