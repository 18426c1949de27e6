/**
 * Reading RedisDirectory's stored entries back into the directory's records. Whatever is stored may
 * have been written by another version or damaged by hand: every reader checks the shape and
 * answers null for an entry it cannot read, which the directory then treats as absent.
 */
import type {
  ProcessAddresses,
  ProcessLoad,
  ProcessRecord,
  ProcessState,
  RoomListing,
  RoomMetadata,
  Seat,
  SeatState,
  Ticket,
  TicketStatus,
} from './directory.js';

/** A hash as Redis lists it (field, value, field, value…) as an object. */
export function fieldsOf(flat: unknown): Record<string, string> {
  const out: Record<string, string> = Object.create(null);
  if (!Array.isArray(flat)) return out;
  for (let i = 0; i + 1 < flat.length; i += 2) out[String(flat[i])] = String(flat[i + 1]);
  return out;
}

/** JSON.parse that answers undefined instead of throwing. */
export function parseJson(text: string | undefined): unknown {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A decimal integer field, or NaN. */
function numberField(text: string | undefined): number {
  return text === undefined || text === '' ? Number.NaN : Number(text);
}

const PROCESS_STATES: readonly string[] = ['starting', 'ready', 'draining'] satisfies ProcessState[];
const SEAT_STATES: readonly string[] = ['reserved', 'taken', 'held'] satisfies SeatState[];

function loadOf(value: unknown): ProcessLoad | null {
  if (!isObject(value)) return null;
  const { rooms, clients, tickMs, tickMaxMs } = value;
  if (typeof rooms !== 'number' || typeof clients !== 'number') return null;
  if (typeof tickMs !== 'number' || typeof tickMaxMs !== 'number') return null;
  return { rooms, clients, tickMs, tickMaxMs };
}

function addressesOf(value: unknown): ProcessAddresses | null {
  if (!isObject(value)) return null;
  const out: ProcessAddresses = {};
  for (const key of ['udp', 'websocket', 'webrtc', 'signalingUrl'] as const) {
    const field = value[key];
    if (field === undefined) continue;
    if (typeof field !== 'string') return null;
    out[key] = field;
  }
  return out;
}

function metadataOf(value: unknown): RoomMetadata | null {
  if (!isObject(value)) return null;
  for (const field of Object.values(value)) {
    const type = typeof field;
    if (type !== 'string' && type !== 'number' && type !== 'boolean') return null;
  }
  return value as RoomMetadata;
}

export function processOf(processId: string, f: Record<string, string>): ProcessRecord | null {
  const addresses = addressesOf(parseJson(f.addresses));
  const load = loadOf(parseJson(f.load));
  const maxRooms = numberField(f.maxRooms);
  const heartbeatAt = numberField(f.heartbeatAt);
  if (addresses === null || load === null || typeof f.machine !== 'string') return null;
  if (!PROCESS_STATES.includes(f.state) || Number.isNaN(maxRooms) || Number.isNaN(heartbeatAt)) return null;
  return {
    processId,
    machine: f.machine,
    addresses,
    state: f.state as ProcessState,
    maxRooms,
    load,
    heartbeatAt,
  };
}

export function roomOf(roomId: string, f: Record<string, string>, seats: unknown): RoomListing | null {
  const metadata = metadataOf(parseJson(f.metadata));
  const maxClients = numberField(f.maxClients);
  const createdAt = numberField(f.createdAt);
  if (metadata === null || typeof f.name !== 'string' || typeof f.processId !== 'string') return null;
  if (Number.isNaN(maxClients) || Number.isNaN(createdAt) || typeof seats !== 'number') return null;
  return {
    roomId,
    name: f.name,
    processId: f.processId,
    seats,
    maxClients,
    locked: f.locked === '1',
    private: f.private === '1',
    metadata,
    createdAt,
  };
}

/**
 * A seat's join options or auth data as stored: their JSON, '' for none (a copy: the caller's
 * object stays its own).
 */
export function optionsField(options: Record<string, unknown> | undefined): string {
  return options === undefined ? '' : JSON.stringify(options);
}

export function seatOf(seatId: string, f: Record<string, string>): Seat | null {
  const expiresAt = f.expiresAt === 'inf' ? Number.POSITIVE_INFINITY : numberField(f.expiresAt);
  if (typeof f.roomId !== 'string' || typeof f.processId !== 'string') return null;
  if (typeof f.userId !== 'string' || typeof f.clientId !== 'string') return null;
  if (!SEAT_STATES.includes(f.state) || Number.isNaN(expiresAt)) return null;
  const seat: Seat = {
    seatId,
    roomId: f.roomId,
    processId: f.processId,
    userId: f.userId,
    clientId: f.clientId,
    state: f.state as SeatState,
    expiresAt,
  };
  if (f.options !== undefined) {
    const options = parseJson(f.options);
    if (!isObject(options)) return null;
    seat.options = options;
  }
  if (f.auth !== undefined) {
    const auth = parseJson(f.auth);
    if (!isObject(auth)) return null;
    seat.auth = auth;
  }
  return seat;
}

export function ticketOf(json: unknown): Ticket | null {
  const value = typeof json === 'string' ? parseJson(json) : undefined;
  if (!isObject(value)) return null;
  const { ticketId, userIds, pool, skill, properties, createdAt } = value;
  if (typeof ticketId !== 'string' || typeof pool !== 'string' || typeof skill !== 'number') return null;
  if (!Array.isArray(userIds) || !userIds.every((id) => typeof id === 'string')) return null;
  const props = metadataOf(properties);
  if (props === null || typeof createdAt !== 'number') return null;
  return { ticketId, userIds, pool, skill, properties: props, createdAt };
}

/** A stored match or cancellation; null when unreadable. */
export function ticketResultOf(json: unknown): TicketStatus | null {
  const value = typeof json === 'string' ? parseJson(json) : undefined;
  if (!isObject(value)) return null;
  const { matchId, roomId, ticketIds, matchedAt } = value;
  // A result stored before userIds were recorded names no one: it reads as nobody's.
  const userIds = value.userIds ?? [];
  if (!Array.isArray(userIds) || !userIds.every((id) => typeof id === 'string')) return null;
  if (value.state === 'cancelled') return { state: 'cancelled', userIds };
  if (value.state !== 'matched' || typeof matchId !== 'string' || typeof roomId !== 'string') return null;
  if (!Array.isArray(ticketIds) || !ticketIds.every((id) => typeof id === 'string')) return null;
  if (typeof matchedAt !== 'number') return null;
  return { state: 'matched', matchId, roomId, ticketIds, userIds, matchedAt };
}
