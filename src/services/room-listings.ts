/**
 * What a room server lists of itself when the directory lost it (process-presence.ts): its rooms,
 * and each seat as it is at the time of writing it, since clients come and go during the writes.
 */
import type { RoomListing, Seat } from './directory.js';
import type { HostedRoom } from './room-seating.js';

/** Each room's listing and the ids of the seats it holds. */
export function roomListings(rooms: ReadonlyMap<string, HostedRoom>, processId: string) {
  return [...rooms.values()].map(({ room }) => ({
    listing: {
      roomId: room.roomId,
      name: room.name,
      processId,
      maxClients: room.maxClients,
      locked: room.locked,
      private: room.isPrivate,
      metadata: { ...room.metadata },
    } satisfies Omit<RoomListing, 'seats' | 'createdAt'>,
    seatIds: [...room.seats.keys()],
  }));
}

/** Whether the room is hosted still (not disposed). */
export function hostsRoom(rooms: ReadonlyMap<string, HostedRoom>, roomId: string): boolean {
  const hosted = rooms.get(roomId);
  return hosted !== undefined && !hosted.disposed;
}

/** A seat as its room knows it now (taken, or held with the ms left at `now`), or null once its client left. */
export function seatListing(
  rooms: ReadonlyMap<string, HostedRoom>,
  processId: string,
  roomId: string,
  seatId: string,
  now: number,
): { seat: Seat; heldMs: number } | null {
  const client = rooms.get(roomId)?.room.seats.get(seatId);
  if (client === undefined || client.state === 'left') return null;
  return {
    seat: {
      seatId,
      roomId,
      processId,
      userId: client.userId,
      clientId: client.clientId.toString(),
      options: { ...client.options },
      ...(Object.keys(client.auth).length === 0 ? {} : { auth: { ...client.auth } }),
      state: 'taken',
      expiresAt: Number.POSITIVE_INFINITY,
    },
    heldMs: client.state === 'dropped' ? Math.max(1, client.dropDeadlineMs - now) : 0,
  };
}
