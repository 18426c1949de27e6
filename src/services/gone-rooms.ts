/**
 * The rooms announced gone on PROCESS_GONE (their server process stopped, or the room failed),
 * remembered a while with why, so a join or reconnect for one answers "gone" (410) with the
 * reason rather than "no such room". Bounded: the oldest are forgotten first.
 */
export class GoneRooms {
  private readonly rooms = new Map<string, { until: number; reason: string }>();

  constructor(
    private readonly keepMs = 10 * 60_000,
    private readonly max = 10_000,
  ) {}

  add(roomIds: readonly string[], now: number, reason: string): void {
    for (const roomId of roomIds) {
      this.rooms.delete(roomId);
      this.rooms.set(roomId, { until: now + this.keepMs, reason });
      if (this.rooms.size > this.max) this.rooms.delete(this.rooms.keys().next().value as string);
    }
  }

  /** Why the room went (what the 410 answers), or null when it is not known gone. */
  reason(roomId: string, now: number): string | null {
    const gone = this.rooms.get(roomId);
    if (gone === undefined) return null;
    if (gone.until > now) return gone.reason;
    this.rooms.delete(roomId);
    return null;
  }
}
