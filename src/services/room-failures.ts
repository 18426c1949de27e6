/**
 * Room isolation: a room whose room-level code (onTick) or a layer under it (its channels, its
 * replication) throws is reported, stops ticking and is disposed — its clients disconnected, the
 * backends told why — while the process's other rooms go on. Inside a frame the disposal waits for
 * the frame's end, so a room failing amid the MessageServer's update does not disconnect clients
 * under it. (A per-client hook that throws costs its client only: client-hooks.ts.)
 */
import { type Directory, PROCESS_GONE, type ProcessGone } from './directory.js';
import type { Room } from './room.js';
import type { HostedRoom } from './room-seating.js';
import type { RoomFailure } from './room-server-options.js';

export interface RoomFailuresOptions {
  processId: string;
  directory: Directory;
  rooms: ReadonlyMap<string, HostedRoom>;
  report: (error: unknown, where: string) => void;
  onRoomFailed?: (failure: RoomFailure) => void;
  dispose: (hosted: HostedRoom) => Promise<void>;
  directoryError: () => void;
}

export class RoomFailures {
  /** Rooms failed so far. */
  count = 0;
  /** Set by the server around its frame: disposals wait for disposeFailed(). */
  inFrame = false;
  private readonly failing: HostedRoom[] = [];

  constructor(private readonly o: RoomFailuresOptions) {}

  /** `room` threw at `where`: reported (every time), and the room failed (once). */
  fail(room: Room, where: string, error: unknown): void {
    this.o.report(error, `room ${room.name} ${where}`);
    const hosted = this.o.rooms.get(room.roomId);
    if (hosted === undefined || hosted.room !== room || hosted.failed || hosted.disposed) return;
    hosted.failed = true;
    this.count++;
    try {
      this.o.onRoomFailed?.({ roomId: room.roomId, name: room.name, where, error });
    } catch (thrown) {
      this.o.report(thrown, 'onRoomFailed');
    }
    this.failing.push(hosted);
    if (!this.inFrame) this.disposeFailed();
  }

  /**
   * Disposes of the failed rooms: their clients are disconnected (netcode's disconnect), the
   * backends told the room is gone and why (PROCESS_GONE, reason 'room failed': a join or
   * reconnect then answers 410 ROOM_FAILED), the room removed from the directory.
   */
  disposeFailed(): void {
    for (let hosted = this.failing.shift(); hosted !== undefined; hosted = this.failing.shift()) {
      const gone: ProcessGone = {
        processId: this.o.processId,
        roomIds: [hosted.room.roomId],
        reason: 'room failed',
      };
      this.o.directory.publish(PROCESS_GONE, JSON.stringify(gone)).catch((error: unknown) => {
        this.o.directoryError();
        this.o.report(error, 'publish');
      });
      this.o.dispose(hosted).catch((error: unknown) => this.o.report(error, 'dispose'));
    }
  }
}
