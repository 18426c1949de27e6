/** A request the backend refuses: the HTTP status and the reason it answers as { error: reason }. */
export class Refusal extends Error {
  constructor(
    readonly status: 400 | 401 | 403 | 404 | 409 | 410 | 413 | 415 | 429 | 503,
    readonly reason: string,
    /** More fields of the answer beside `error` (a ban's `until`, a conflict's current `version`). */
    readonly details?: Readonly<Record<string, unknown>>,
  ) {
    super(reason);
    this.name = 'Refusal';
  }
}

/** What a join, create or reconnect answers when its server process has stopped. */
export const ROOM_GONE = 'room gone: its server process stopped';

/** What a join or reconnect answers when its room failed (its code threw) and was disposed. */
export const ROOM_FAILED = 'room gone: it failed on its server';
