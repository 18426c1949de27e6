/**
 * Copies of the directory's records, field by field: the embedded directory hands these out and
 * stores these of what it is given, so no caller shares (and mutates) a stored entry. Written out
 * rather than structuredClone because the shapes are known and flat (arrays of strings, objects of
 * primitives): a matchmaking pass lists every queued ticket, and 10,000 clones took ~20 ms. A seat's
 * join options and auth data are free-form JSON, so those two alone are cloned whole.
 */
import type { ProcessRecord, RoomListing, RoomMetadata, Seat, Ticket, TicketStatus } from './directory.js';

export function copyMetadata(metadata: RoomMetadata): RoomMetadata {
  return { ...metadata };
}

export function copyProcess(record: ProcessRecord): ProcessRecord {
  return {
    processId: record.processId,
    machine: record.machine,
    addresses: { ...record.addresses },
    state: record.state,
    maxRooms: record.maxRooms,
    load: { ...record.load },
    heartbeatAt: record.heartbeatAt,
  };
}

export function copyListing(listing: RoomListing): RoomListing {
  return {
    roomId: listing.roomId,
    name: listing.name,
    processId: listing.processId,
    seats: listing.seats,
    maxClients: listing.maxClients,
    locked: listing.locked,
    private: listing.private,
    metadata: { ...listing.metadata },
    createdAt: listing.createdAt,
  };
}

/** A seat; `options` and `auth` only when present (a seat without them has no such keys). */
export function copySeat(seat: Seat): Seat {
  const copy: Seat = {
    seatId: seat.seatId,
    roomId: seat.roomId,
    processId: seat.processId,
    userId: seat.userId,
    clientId: seat.clientId,
    state: seat.state,
    expiresAt: seat.expiresAt,
  };
  if (seat.options !== undefined) copy.options = structuredClone(seat.options);
  if (seat.auth !== undefined) copy.auth = structuredClone(seat.auth);
  return copy;
}

export function copyTicket(ticket: Ticket): Ticket {
  return {
    ticketId: ticket.ticketId,
    userIds: ticket.userIds.slice(),
    pool: ticket.pool,
    skill: ticket.skill,
    properties: { ...ticket.properties },
    createdAt: ticket.createdAt,
  };
}

/** A ticket's final status (matched or cancelled). */
export function copyResult(
  status: Exclude<TicketStatus, { state: 'queued' } | { state: 'unknown' }>,
): TicketStatus {
  if (status.state === 'cancelled') return { state: 'cancelled', userIds: status.userIds.slice() };
  return {
    state: 'matched',
    matchId: status.matchId,
    roomId: status.roomId,
    ticketIds: status.ticketIds.slice(),
    userIds: status.userIds.slice(),
    matchedAt: status.matchedAt,
  };
}
