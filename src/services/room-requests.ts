/**
 * How a backend asks a server process (anywhere in the fleet) to create a room: a request published
 * on the process's own channel, answered on a reply channel named by the request. Both travel over
 * the directory's publish/subscribe as JSON.
 */
import type { RoomMetadata } from './directory.js';

/** The channel a process listens on for requests. */
export function processChannel(processId: string): string {
  return `ghostwire:process:${processId}`;
}

/** The channel a request's reply comes back on. */
export function replyChannel(requestId: string): string {
  return `ghostwire:reply:${requestId}`;
}

export interface CreateRoomRequest {
  kind: 'create-room';
  requestId: string;
  /** The registered room type. */
  name: string;
  /** The room's creation options (validated by the room type's own onCreate). */
  options: Record<string, unknown>;
  /** Set by matchmaking: the room is private (found by id only) and seats exactly these tickets. */
  private?: boolean;
}

export type CreateRoomReply =
  | { requestId: string; ok: true; roomId: string; maxClients: number; metadata: RoomMetadata }
  | { requestId: string; ok: false; reason: string };
