/**
 * The embedded directory's seats by user, for the per-user seat limits (SeatLimits): a user's
 * seats are counted without a walk over every seat. It mirrors the directory's seat map (added
 * and removed with it), so it holds no more than that map does.
 */
import type { Seat } from './directory.js';

export class UserSeats {
  private readonly byUser = new Map<string, Set<string>>();

  add(userId: string, seatId: string): void {
    let seats = this.byUser.get(userId);
    if (seats === undefined) {
      seats = new Set();
      this.byUser.set(userId, seats);
    }
    seats.add(seatId);
  }

  remove(userId: string, seatId: string): void {
    const seats = this.byUser.get(userId);
    if (seats === undefined) return;
    seats.delete(seatId);
    if (seats.size === 0) this.byUser.delete(userId);
  }

  /**
   * userId's live seats (`seatOf` knows them): in roomId, and in all. A lapsed one does not count
   * and is handed to `drop` (which removes it here too), so a user's set stays its live seats.
   */
  count(
    userId: string,
    roomId: string,
    seatOf: (seatId: string) => Seat | undefined,
    drop: (seatId: string) => void,
    now: number,
  ) {
    let inRoom = 0;
    let total = 0;
    for (const seatId of this.byUser.get(userId) ?? []) {
      const seat = seatOf(seatId);
      if (seat === undefined || seat.expiresAt <= now) {
        drop(seatId);
        continue;
      }
      total++;
      if (seat.roomId === roomId) inRoom++;
    }
    return { inRoom, total };
  }
}
