/**
 * The rooms whose server process stopped (PROCESS_GONE), remembered a while so a join or
 * reconnect for one answers "gone" (410) rather than "no such room". Bounded: the oldest are
 * forgotten first.
 */
export class GoneRooms {
  private readonly rooms = new Map<string, number>();

  constructor(
    private readonly keepMs = 10 * 60_000,
    private readonly max = 10_000,
  ) {}

  add(roomIds: readonly string[], now: number): void {
    for (const roomId of roomIds) {
      this.rooms.delete(roomId);
      this.rooms.set(roomId, now + this.keepMs);
      if (this.rooms.size > this.max) this.rooms.delete(this.rooms.keys().next().value as string);
    }
  }

  has(roomId: string, now: number): boolean {
    const until = this.rooms.get(roomId);
    if (until === undefined) return false;
    if (until > now) return true;
    this.rooms.delete(roomId);
    return false;
  }
}
