/**
 * A room server's two timers: the frame, kept to a fixed schedule, and the handshake poll, which
 * runs between frames only while joins are under way. The room server says what a frame and a
 * poll do; this file says when they run.
 */

/** How long after the last accepted connection request the handshake poll keeps running (ms). */
const JOINING_QUIET_MS = 1000;

export interface FrameTimerHooks {
  /** One frame: must not throw (a throw from a timer callback ends the process). */
  frame(): void;
  /** Answers the handshakes that arrived since the last look: must not throw. */
  receiveHandshakes(): void;
  /** The connection server's accepted connection requests so far (joins are under way while it grows). */
  requestsAccepted(): number;
  /** The clock, in milliseconds. */
  nowMs(): number;
}

export class RoomFrameTimers {
  private frameTimer: ReturnType<typeof setTimeout> | null = null;
  private frameMs = 0;
  /** When the next frame is due (performance.now() ms): frames keep to a fixed schedule, not setInterval's drift. */
  private frameDueMs = 0;
  private handshakeTimer: ReturnType<typeof setInterval> | null = null;
  /** requestsAccepted at the last look, and when it last grew (lastHandshakeMs). */
  private requestsSeen = 0;
  private lastHandshakeMs = Number.NEGATIVE_INFINITY;
  private stopped = false;

  /** `pollMs`: the handshake poll's period while joining (0: no poll). */
  constructor(
    private readonly hooks: FrameTimerHooks,
    private readonly pollMs: number,
  ) {}

  /** Runs frames every `frameMs` from now; a no-op when that is already the period. */
  retime(frameMs: number): void {
    if (this.stopped) return;
    if (this.frameTimer !== null && frameMs === this.frameMs) return;
    if (this.frameTimer !== null) clearTimeout(this.frameTimer);
    this.frameMs = frameMs;
    this.frameDueMs = performance.now() + frameMs;
    this.frameTimer = setTimeout(this.onFrameTimer, frameMs);
  }

  stop(): void {
    this.stopped = true;
    if (this.frameTimer !== null) clearTimeout(this.frameTimer);
    if (this.handshakeTimer !== null) clearInterval(this.handshakeTimer);
    this.frameTimer = this.handshakeTimer = null;
  }

  /**
   * Each frame aims at its place in a fixed schedule: setInterval restarts from each late firing,
   * and its drift (about a millisecond a frame here, more under load) sent 19.2 packets a second
   * per client at 20 Hz. A stall of more than a frame starts the schedule again from now.
   */
  private readonly onFrameTimer = (): void => {
    const timer = this.frameTimer;
    this.hooks.frame();
    this.pollWhileJoining();
    if (this.frameTimer !== timer || this.stopped) return; // retimed or stopped meanwhile
    const now = performance.now();
    this.frameDueMs += this.frameMs;
    if (now - this.frameDueMs > this.frameMs) this.frameDueMs = now + this.frameMs;
    this.frameTimer = setTimeout(this.onFrameTimer, Math.max(0, this.frameDueMs - now));
  };

  private readonly onHandshakeTimer = (): void => {
    this.hooks.receiveHandshakes();
    this.pollWhileJoining();
  };

  /**
   * The poll runs while joins are under way: from a frame that saw a connection request until a
   * second without one. Polling at the default period costs ~1.5% of a core (measured on a loaded
   * machine), so an idle server does not pay it; the first request after a quiet second waits
   * for a frame, the rest of its handshake and everyone else's in the ramp do not.
   */
  private pollWhileJoining(): void {
    if (this.pollMs === 0 || this.stopped) return;
    const now = this.hooks.nowMs();
    const accepted = this.hooks.requestsAccepted();
    if (accepted !== this.requestsSeen) {
      this.requestsSeen = accepted;
      this.lastHandshakeMs = now;
    }
    const joining = now - this.lastHandshakeMs < JOINING_QUIET_MS;
    if (joining && this.handshakeTimer === null)
      this.handshakeTimer = setInterval(this.onHandshakeTimer, this.pollMs);
    else if (!joining && this.handshakeTimer !== null) {
      clearInterval(this.handshakeTimer);
      this.handshakeTimer = null;
    }
  }
}
