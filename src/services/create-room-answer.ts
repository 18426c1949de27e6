/**
 * A server process's side of room-requests.ts: reads a CreateRoomRequest off the pub/sub bus (JSON
 * from anyone on it, so checked field by field) and publishes the CreateRoomReply.
 */
import type { Directory } from './directory.js';
import { type CreateRoomReply, type CreateRoomRequest, replyChannel } from './room-requests.js';
import type { CreateRoomResult } from './room-server-options.js';

/** The longest request id answered (a reply channel is named by it). */
const MAX_REQUEST_ID = 128;
/** The longest reason a reply carries (a room's onCreate may throw any message). */
const MAX_REASON = 200;

/** The request in `message`, or a reason it is not one (with its id when it had a usable one). */
export function parseCreateRoomRequest(
  message: string,
): { ok: true; request: CreateRoomRequest } | { ok: false; reason: string; requestId: string | null } {
  let value: unknown;
  try {
    value = JSON.parse(message);
  } catch {
    return { ok: false, reason: 'not JSON', requestId: null };
  }
  if (typeof value !== 'object' || value === null)
    return { ok: false, reason: 'not an object', requestId: null };
  const v = value as Record<string, unknown>;
  const requestId =
    typeof v.requestId === 'string' && v.requestId.length > 0 && v.requestId.length <= MAX_REQUEST_ID
      ? v.requestId
      : null;
  const refuse = (reason: string) => ({ ok: false as const, reason, requestId });
  if (requestId === null) return refuse('bad requestId');
  if (v.kind !== 'create-room') return refuse('kind is not create-room');
  if (typeof v.name !== 'string' || v.name.length === 0) return refuse('bad room name');
  if (
    v.options !== undefined &&
    (typeof v.options !== 'object' || v.options === null || Array.isArray(v.options))
  )
    return refuse('options must be an object');
  if (v.private !== undefined && typeof v.private !== 'boolean') return refuse('private must be a boolean');
  return {
    ok: true,
    request: {
      kind: 'create-room',
      requestId,
      name: v.name,
      options: (v.options ?? {}) as Record<string, unknown>,
      ...(v.private === undefined ? {} : { private: v.private }),
    },
  };
}

/**
 * Answers one message off the process's request channel: `create` makes the room (null: no such
 * room type). Resolves whether the message was a request; never rejects.
 */
export async function answerCreateRoom(
  message: string,
  directory: Directory,
  create: (
    name: string,
    options: Record<string, unknown>,
    isPrivate: boolean,
  ) => Promise<CreateRoomResult> | null,
  onError: (error: unknown, where: string) => void,
): Promise<boolean> {
  const parsed = parseCreateRoomRequest(message);
  if (!parsed.ok) {
    if (parsed.requestId !== null)
      await publishReply(
        directory,
        { requestId: parsed.requestId, ok: false, reason: parsed.reason },
        onError,
      );
    return false;
  }
  const { requestId, name, options } = parsed.request;
  let result: CreateRoomResult;
  try {
    result = (await create(name, options, parsed.request.private ?? false)) ?? {
      ok: false,
      reason: `no room type ${name}`,
    };
  } catch (error) {
    onError(error, 'create-room request');
    result = { ok: false, reason: 'server error' };
  }
  const { room } = result.ok ? result : { room: null };
  await publishReply(
    directory,
    room !== null
      ? {
          requestId,
          ok: true,
          roomId: room.roomId,
          maxClients: room.maxClients,
          metadata: { ...room.metadata },
        }
      : { requestId, ok: false, reason: (result as { reason: string }).reason.slice(0, MAX_REASON) },
    onError,
  );
  return true;
}

/** Publishes a reply; a failing directory is reported, never thrown. */
async function publishReply(
  directory: Directory,
  reply: CreateRoomReply,
  onError: (error: unknown, where: string) => void,
): Promise<void> {
  try {
    await directory.publish(replyChannel(reply.requestId), JSON.stringify(reply));
  } catch (error) {
    onError(error, 'create-room reply');
  }
}
