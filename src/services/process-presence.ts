/**
 * A server process's presence in the directory: its record, the heartbeat that keeps it alive, and
 * listing itself again (rooms and seats) when the directory lost it — a lapse, or Redis restarted
 * without its data. Also the tick-time figures each heartbeat reports.
 */
import type { Directory, ProcessLoad, ProcessRecord, ProcessState, RoomListing, Seat } from './directory.js';

/** What the process lists of itself when it registers (again). */
export interface PresenceSource {
  record(): ProcessRecord;
  load(): ProcessLoad;
  state(): ProcessState;
  /** Its rooms as listings, with the ids of the seats they hold. */
  rooms(): { listing: Omit<RoomListing, 'seats' | 'createdAt'>; seatIds: string[] }[];
  /** Whether it hosts the room still. */
  hosts(roomId: string): boolean;
  /** A seat as it knows it now (taken, or held with the ms left), or null once its client left. */
  seat(roomId: string, seatId: string): { seat: Seat; heldMs: number } | null;
}

/** Mean and worst room tick of a report period. */
export class TickTimes {
  private sum = 0;
  private count = 0;
  private max = 0;
  private lastMean = 0;
  private lastMax = 0;
  private rolled = false;

  add(ms: number): void {
    this.sum += ms;
    this.count++;
    if (ms > this.max) this.max = ms;
  }

  /** Closes the period: its figures become what `meanMs` and `worstMs` report. */
  roll(): void {
    this.lastMean = this.count === 0 ? 0 : this.sum / this.count;
    this.lastMax = this.max;
    this.sum = this.count = this.max = 0;
    this.rolled = true;
  }

  /** The last closed period's mean (the open one's until a period closed), ms. */
  get meanMs(): number {
    if (this.rolled) return this.lastMean;
    return this.count === 0 ? 0 : this.sum / this.count;
  }

  /** The last closed period's longest (the open one's until a period closed), ms. */
  get worstMs(): number {
    return this.rolled ? this.lastMax : this.max;
  }
}

export class ProcessPresence {
  /** Times the directory had lost this process and it listed itself again. */
  reregistrations = 0;
  /** Directory calls that failed (a Redis outage): retried at the next heartbeat. */
  errors = 0;
  private inFlight: Promise<void> | null = null;
  private stopped = false;

  constructor(
    private readonly directory: Directory,
    private readonly source: PresenceSource,
    private readonly ttlMs: number,
    private readonly onError: (error: unknown, where: string) => void,
  ) {}

  async register(): Promise<void> {
    await this.directory.registerProcess(this.source.record(), this.ttlMs);
  }

  /** One heartbeat (at most one at a time: a call during one waits for it). Never rejects. */
  beat(): Promise<void> {
    this.inFlight ??= this.beatOnce().finally(() => {
      this.inFlight = null;
    });
    return this.inFlight;
  }

  /** No more heartbeats; resolves once the one in flight ended. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.inFlight;
  }

  private async beatOnce(): Promise<void> {
    if (this.stopped) return;
    try {
      const alive = await this.directory.heartbeat(
        this.source.record().processId,
        this.source.state(),
        this.source.load(),
        this.ttlMs,
      );
      if (!alive && !this.stopped) await this.relist();
    } catch (error) {
      this.errors++;
      this.onError(error, 'heartbeat');
    }
  }

  /**
   * Registers again, then lists every room and seat it hosts. Clients leave and rooms go while the
   * writes are awaited: each write is of what is hosted at the time, and undone if that went meanwhile.
   */
  private async relist(): Promise<void> {
    await this.register();
    this.reregistrations++;
    for (const { listing, seatIds } of this.source.rooms()) {
      if (this.stopped) return;
      if (!this.source.hosts(listing.roomId)) continue;
      await this.directory.createRoom(listing);
      if (!this.source.hosts(listing.roomId)) {
        await this.directory.removeRoom(listing.roomId);
        continue;
      }
      for (const seatId of seatIds) await this.relistSeat(listing.roomId, seatId);
    }
  }

  /**
   * Writes a seat as it is now, again while it changed during the writes (its client dropped,
   * reconnected or left), a few times at most: the seating's own calls follow later changes.
   */
  private async relistSeat(roomId: string, seatId: string): Promise<void> {
    let written = 'none';
    for (let attempt = 0; attempt < 4 && !this.stopped; attempt++) {
      const now = this.source.seat(roomId, seatId);
      const state = now === null ? 'none' : `${now.heldMs > 0 ? 'held' : 'taken'} ${now.seat.clientId}`;
      if (state === written) return;
      written = state;
      if (now === null) {
        await this.directory.releaseSeat(seatId);
        continue;
      }
      // Held seats go back as taken, then held on the directory's own clock for what is left.
      await this.directory.restoreSeat({ ...now.seat, state: 'taken', expiresAt: Number.POSITIVE_INFINITY });
      if (now.heldMs > 0) await this.directory.holdSeat(seatId, now.heldMs);
    }
  }
}
