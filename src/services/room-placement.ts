/**
 * Where a new room goes: the least loaded ready process that serves the client's transport, asked
 * over the directory's publish/subscribe to create the room (room-requests.ts), its reply awaited
 * with a timeout. Used by the backend's create routes and by matchmaking (createMatchRoom).
 */
import type { TransportKind } from '../join/join-answer.js';
import { isAddress } from '../transport/address.js';
import { importOptional } from '../transport/optional-dependency.js';
import { Refusal } from './backend-refusal.js';
import type { Directory, ProcessRecord } from './directory.js';
import {
  type CreateRoomReply,
  type CreateRoomRequest,
  processChannel,
  replyChannel,
} from './room-requests.js';
import { randomId } from './seat-token.js';

// zod is an optional package, which only ghostwire/services needs.
const { z } = await importOptional('zod', 'ghostwire/services', () => import('zod'));

export { TRANSPORT_KINDS, type TransportKind } from '../join/join-answer.js';

/** How long a create-room request waits for its process's reply by default. */
export const DEFAULT_CREATE_TIMEOUT_MS = 5000;

/** The address a process serves `transport` on, when it is a canonical address a token can list. */
export function serverAddressOf(process: ProcessRecord, transport: TransportKind): string | null {
  const address = process.addresses[transport];
  if (address === undefined || !isAddress(address)) return null;
  if (transport === 'webrtc' && process.addresses.signalingUrl === undefined) return null;
  return address;
}

const replySchema = z.union([
  z.object({
    requestId: z.string(),
    ok: z.literal(true),
    roomId: z.string().min(1).max(64),
    maxClients: z.number(),
    metadata: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])),
  }),
  z.object({ requestId: z.string(), ok: z.literal(false), reason: z.string().max(500) }),
]);

/**
 * Chooses processes for new rooms. Heartbeats report a process's room count only every so often,
 * so the rooms this placer asked for since a process's last heartbeat are counted too: a burst of
 * creations spreads over the fleet instead of piling onto the process that looked emptiest.
 */
export class RoomPlacer {
  private readonly placedSince = new Map<string, { heartbeatAt: number; rooms: number }>();

  constructor(
    private readonly directory: Directory,
    private readonly timeoutMs = DEFAULT_CREATE_TIMEOUT_MS,
  ) {
    // NaN or Infinity would reach setTimeout, which fires them at once (a 503 for every create).
    if (!Number.isFinite(timeoutMs) || timeoutMs <= 0)
      throw new RangeError(`createTimeoutMs must be a finite number > 0, got ${timeoutMs}`);
  }

  /** The least loaded ready process with room to spare that serves `transport` (any when undefined). */
  async pickProcess(transport: TransportKind | undefined): Promise<ProcessRecord | null> {
    let best: ProcessRecord | null = null;
    let bestFill = 0;
    for (const process of await this.directory.listProcesses()) {
      if (process.state !== 'ready' || process.maxRooms <= 0) continue;
      if (transport !== undefined && serverAddressOf(process, transport) === null) continue;
      const fill = this.roomsOf(process) / process.maxRooms;
      if (fill >= 1) continue;
      if (best === null || fill < bestFill || (fill === bestFill && process.load.tickMs < best.load.tickMs)) {
        best = process;
        bestFill = fill;
      }
    }
    return best;
  }

  /** Creates a room on the least loaded process; its roomId. Throws Refusal (503 or 400). */
  async createRoom(request: {
    name: string;
    options: Record<string, unknown>;
    private?: boolean;
    transport?: TransportKind;
  }): Promise<string> {
    const process = await this.pickProcess(request.transport);
    if (process === null)
      throw new Refusal(
        503,
        request.transport === undefined
          ? 'no server process can take a room now'
          : `no server process serving ${request.transport} can take a room now`,
      );
    this.countPlaced(process);
    const reply = await this.ask(process.processId, {
      kind: 'create-room',
      requestId: randomId(),
      name: request.name,
      options: request.options,
      ...(request.private === undefined ? {} : { private: request.private }),
    });
    if (reply === null) throw new Refusal(503, `server process ${process.processId} did not answer in time`);
    if (!reply.ok) throw new Refusal(400, `room not created: ${reply.reason}`);
    return reply.roomId;
  }

  private roomsOf(process: ProcessRecord): number {
    const placed = this.placedSince.get(process.processId);
    return (
      process.load.rooms +
      (placed !== undefined && placed.heartbeatAt === process.heartbeatAt ? placed.rooms : 0)
    );
  }

  private countPlaced(process: ProcessRecord): void {
    const placed = this.placedSince.get(process.processId);
    if (placed !== undefined && placed.heartbeatAt === process.heartbeatAt) placed.rooms++;
    else this.placedSince.set(process.processId, { heartbeatAt: process.heartbeatAt, rooms: 1 });
    // One entry per process this backend placed rooms on; forget the ones that left the fleet.
    if (this.placedSince.size > 10_000) this.placedSince.clear();
  }

  /** Publishes a request on the process's channel; its reply, or null after the timeout. */
  private async ask(processId: string, request: CreateRoomRequest): Promise<CreateRoomReply | null> {
    let settle: (reply: CreateRoomReply | null) => void = () => {};
    const answered = new Promise<CreateRoomReply | null>((resolve) => {
      settle = resolve;
    });
    const unsubscribe = await this.directory.subscribe(replyChannel(request.requestId), (message) => {
      let parsed: unknown;
      try {
        parsed = JSON.parse(message);
      } catch {
        return;
      }
      const reply = replySchema.safeParse(parsed);
      if (reply.success && reply.data.requestId === request.requestId) settle(reply.data);
    });
    const timer = setTimeout(() => settle(null), this.timeoutMs);
    try {
      await this.directory.publish(processChannel(processId), JSON.stringify(request));
      return await answered;
    } finally {
      clearTimeout(timer);
      await unsubscribe();
    }
  }
}

export interface CreateMatchRoomOptions {
  directory: Directory;
  /** The registered room type. */
  name: string;
  /** The room's creation options. */
  options?: Record<string, unknown>;
  /** Only processes serving this transport (default: any). */
  transport?: TransportKind;
  /** How long to wait for the process's reply (default 5000 ms). */
  timeoutMs?: number;
}

/**
 * A private room for a match, for the matchmaker's onMatch:
 *   onMatch: () => createMatchRoom({ directory, name: 'duel' })
 * Rejects (a Refusal with the reason) when no process takes it.
 */
export async function createMatchRoom(options: CreateMatchRoomOptions): Promise<{ roomId: string }> {
  const placer = new RoomPlacer(options.directory, options.timeoutMs ?? DEFAULT_CREATE_TIMEOUT_MS);
  const roomId = await placer.createRoom({
    name: options.name,
    options: options.options ?? {},
    private: true,
    ...(options.transport === undefined ? {} : { transport: options.transport }),
  });
  return { roomId };
}
