/**
 * The player's event stream (GET /events, Server-Sent Events read through fetch, since
 * EventSource cannot send the session header): achievements, friend requests, friends' presence.
 * It reconnects with backoff after any failure but a refused session; while it is open the
 * player is online to their friends. A friend's presence older than one already delivered (by
 * its seq; a reconnect or another backend may repeat one) is dropped, so presence goes forward.
 *
 *   const stop = gamer.events.subscribe((event) => {
 *     if (event.kind === 'presence') showFriend(event.accountId, event.state, event.roomId);
 *   });
 */
import { type BackendClient, BackendError } from '../backend-client.js';
import type { GamerEvent } from './social-types.js';

export interface EventSubscribeOptions {
  /** Called each time the stream opens (the first time and after each reconnection). */
  onOpen?: () => void;
  /**
   * Called on each failure with `retryInMs` before the next attempt, or null when it gives up (the
   * session was refused: 401 or 403 — sign in again and subscribe again).
   */
  onError?: (error: unknown, retryInMs: number | null) => void;
  /** The first wait after a failure, ms (default 500), doubled each time up to maxBackoffMs. */
  backoffMs?: number;
  /** The longest wait between attempts, ms (default 30000). */
  maxBackoffMs?: number;
  /**
   * A stream silent this long, ms, is taken as dead and opened again (default 45000: the server
   * sends a heartbeat every 15 s, so a half-open connection is noticed within this).
   */
  idleTimeoutMs?: number;
}

/** A line longer than this (no event is) means the stream is not ours: it is dropped and retried. */
const MAX_PENDING_CHARS = 64 * 1024;
/** Friends' last sequence numbers kept (more than any friend cap). */
const MAX_TRACKED = 10_000;

export class EventsClient {
  constructor(private readonly backend: BackendClient) {}

  /** Listens until the returned function is called. */
  subscribe(listener: (event: GamerEvent) => void, options: EventSubscribeOptions = {}): () => void {
    if (typeof listener !== 'function') throw new TypeError('events.subscribe: give a listener function');
    const first = options.backoffMs ?? 500;
    const most = options.maxBackoffMs ?? 30_000;
    const idleMs = options.idleTimeoutMs ?? 45_000;
    if (!(first > 0) || !(most >= first))
      throw new RangeError('events.subscribe: backoffMs must be > 0 and maxBackoffMs >= backoffMs');
    if (!(idleMs > 0)) throw new RangeError('events.subscribe: idleTimeoutMs must be > 0');
    const controller = new AbortController();
    const lastSeq = new Map<string, number>();
    const deliver = (event: GamerEvent) => {
      if (event.kind === 'presence') {
        const last = lastSeq.get(event.accountId);
        if (last !== undefined && event.seq <= last) return;
        if (lastSeq.size >= MAX_TRACKED) lastSeq.clear();
        lastSeq.set(event.accountId, event.seq);
      }
      try {
        listener(event);
      } catch {
        // the listener's failure is its own: the stream goes on
      }
    };
    void (async () => {
      let wait = first;
      while (!controller.signal.aborted) {
        // One attempt: ended by stop(), or by silence (no answer, no byte) for idleMs.
        const attempt = new AbortController();
        const onStop = () => attempt.abort();
        controller.signal.addEventListener('abort', onStop, { once: true });
        let idle: ReturnType<typeof setTimeout> | undefined;
        const alive = () => {
          clearTimeout(idle);
          idle = setTimeout(() => attempt.abort(new Error(`event stream silent for ${idleMs} ms`)), idleMs);
        };
        try {
          alive();
          const response = await this.backend.openStream('/events', { signal: attempt.signal });
          wait = first;
          options.onOpen?.();
          await readEvents(response, deliver, alive, attempt.signal);
          if (controller.signal.aborted) return;
          throw new Error('event stream ended');
        } catch (caught) {
          if (controller.signal.aborted) return;
          const error = attempt.signal.aborted ? attempt.signal.reason : caught;
          if (error instanceof BackendError && (error.status === 401 || error.status === 403)) {
            options.onError?.(error, null);
            return;
          }
          const retryAfter =
            error instanceof BackendError && error.retryAfter !== undefined ? error.retryAfter * 1000 : 0;
          const delay = Math.max(retryAfter, wait * (0.75 + Math.random() * 0.5));
          options.onError?.(error, Math.round(delay));
          wait = Math.min(most, wait * 2);
          clearTimeout(idle);
          await pause(delay, controller.signal);
        } finally {
          clearTimeout(idle);
          controller.signal.removeEventListener('abort', onStop);
        }
      }
    })();
    return () => controller.abort();
  }
}

/** Reads Server-Sent Events until the stream ends: each `data:` line's JSON to `deliver`. */
async function readEvents(
  response: Response,
  deliver: (event: GamerEvent) => void,
  alive: () => void,
  signal: AbortSignal,
): Promise<void> {
  if (response.body === null) return;
  const reader = response.body.getReader();
  // A fetch's body errors when its request is aborted; any other body is cancelled here.
  const cancel = () => reader.cancel(signal.reason).catch(() => {});
  signal.addEventListener('abort', cancel, { once: true });
  const decoder = new TextDecoder();
  let pending = '';
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      alive();
      pending += decoder.decode(value, { stream: true });
      let cut = pending.indexOf('\n\n');
      while (cut >= 0) {
        for (const line of pending.slice(0, cut).split('\n')) {
          if (!line.startsWith('data:')) continue; // comments (heartbeats), retry:
          try {
            const event = JSON.parse(line.slice(5)) as GamerEvent;
            if (event !== null && typeof event === 'object' && typeof event.kind === 'string') deliver(event);
          } catch {
            // not an event: skipped
          }
        }
        pending = pending.slice(cut + 2);
        cut = pending.indexOf('\n\n');
      }
      if (pending.length > MAX_PENDING_CHARS) throw new Error('event stream: a line over 64 KiB');
    }
  } finally {
    signal.removeEventListener('abort', cancel);
    reader.cancel().catch(() => {});
  }
  if (signal.aborted) throw signal.reason;
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
