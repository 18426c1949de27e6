/**
 * Seat releases the directory did not confirm (a Redis blip, an IPC timeout), kept and tried again
 * (each heartbeat), so that a seat whose client is gone cannot stay taken forever: a taken seat
 * never lapses, counts against its room's maxClients and keeps the room from being disposed.
 */
export class SeatReleases {
  /** Seat ids whose last release failed. */
  private readonly failed = new Set<string>();

  /** `release` resolves true once the directory released the seat, anything else when it failed (never rejects). */
  constructor(private readonly release: (seatId: string) => Promise<boolean | undefined>) {}

  /** Releases a seat now; if that fails, it is kept for retry(). */
  add(seatId: string): void {
    this.failed.delete(seatId);
    void this.release(seatId).then((ok) => {
      if (ok !== true) this.failed.add(seatId);
    });
  }

  /** Tries every failed release again, but for seats `inUse` says were taken again since. */
  retry(inUse: (seatId: string) => boolean): void {
    for (const seatId of [...this.failed]) {
      this.failed.delete(seatId);
      if (!inUse(seatId)) this.add(seatId);
    }
  }
}
