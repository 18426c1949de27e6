/**
 * GET /events: each player's GamerEvents as Server-Sent Events (`data: <json>` a line, a comment
 * every heartbeatMs). Bounded: streams per player and per backend, and a queue per stream (a
 * reader that falls behind by maxQueuedEvents is cut, never buffered forever). A player holding a
 * stream is online; when their last stream on this backend closes they go offline after
 * offlineGraceMs (a reload is no flap). A banned player's streams end within a third of
 * presenceTtlMs (checked with the presence leases). Across backends (Redis), every stream ends when the
 * subscriber connection drops, since events sent meanwhile are lost: its client reconnects.
 */
import { Refusal } from '../../backend-refusal.js';
import type { GamerContext } from '../gamer-context.js';
import type { GamerEvent, Unsubscribe } from '../player-events.js';
import type { Presence } from './presence.js';
import { RedisPlayerEvents } from './redis-player-events.js';
import type { SocialLimits } from './social-limits.js';

interface OpenStream {
  readonly accountId: string;
  controller: ReadableStreamDefaultController<Uint8Array> | null;
  unsubscribe: Unsubscribe | null;
  /** Ends the stream when its session expires. */
  expiry: ReturnType<typeof setTimeout> | null;
  done: boolean;
}

const encoder = new TextEncoder();
const HEARTBEAT = encoder.encode(': heartbeat\n\n');

export class EventStreams {
  private readonly byPlayer = new Map<string, Set<OpenStream>>();
  private readonly grace = new Map<string, ReturnType<typeof setTimeout>>();
  private total = 0;
  private closed = false;
  private readonly heartbeat: ReturnType<typeof setInterval>;
  private readonly refresh: ReturnType<typeof setInterval>;
  private readonly stopLost: Unsubscribe;

  constructor(
    private readonly context: GamerContext,
    private readonly presence: Presence,
    private readonly limits: SocialLimits,
    private readonly onError: (error: unknown) => void = () => {},
  ) {
    this.heartbeat = setInterval(() => this.beat(), limits.heartbeatMs);
    this.heartbeat.unref?.();
    // Each held player's presence lease, renewed at a third of its life.
    this.refresh = setInterval(() => this.renew(), Math.floor(limits.presenceTtlMs / 3));
    this.refresh.unref?.();
    const events = context.events;
    this.stopLost = events instanceof RedisPlayerEvents ? events.onLost(() => this.endAll()) : () => {};
  }

  /** Streams open on this backend now. */
  get size(): number {
    return this.total;
  }

  /**
   * Opens a stream of `accountId`'s events until its session expires at `sessionExpiresAtMs`
   * (unix ms; the client signs in again): the Response to answer, or a Refusal (429, 503).
   */
  async open(accountId: string, sessionExpiresAtMs: number): Promise<Response> {
    if (this.closed) throw new Refusal(503, 'event streams are closing');
    const events = this.context.events;
    if (events instanceof RedisPlayerEvents && !events.available())
      throw new Refusal(503, 'redis unavailable: events cannot be delivered now, retry');
    let set = this.byPlayer.get(accountId);
    if (set !== undefined && set.size >= this.limits.maxStreamsPerPlayer)
      throw new Refusal(
        429,
        `at most ${this.limits.maxStreamsPerPlayer} event streams per player: close one`,
      );
    if (this.total >= this.limits.maxStreams)
      throw new Refusal(503, 'this backend holds the most event streams it may: retry later');
    // Even within the grace: the lease may be gone (a Redis restart), and renewing it is cheap.
    const first = set === undefined;
    const pending = this.grace.get(accountId);
    if (pending !== undefined) {
      clearTimeout(pending);
      this.grace.delete(accountId);
    }
    if (set === undefined) {
      set = new Set();
      this.byPlayer.set(accountId, set);
    }
    const stream: OpenStream = { accountId, controller: null, unsubscribe: null, expiry: null, done: false };
    set.add(stream);
    this.total++;
    const body = new ReadableStream<Uint8Array>(
      {
        start: (controller) => {
          stream.controller = controller;
          controller.enqueue(encoder.encode('retry: 2000\n: open\n\n'));
        },
        cancel: () => this.end(stream),
      },
      new CountQueuingStrategy({ highWaterMark: this.limits.maxQueuedEvents }),
    );
    try {
      stream.unsubscribe = events.subscribe(accountId, (event) => this.send(stream, event));
      if (events instanceof RedisPlayerEvents) await events.ready(accountId);
      if (first) await this.presence.connect(accountId);
    } catch (error) {
      this.end(stream);
      throw error;
    }
    // A timer holds at most 2^31-1 ms (24.8 days): a longer session is cut then, and reconnects.
    const leftMs = Math.min(2 ** 31 - 1, Math.max(0, sessionExpiresAtMs - this.context.nowMs()));
    stream.expiry = setTimeout(() => {
      try {
        stream.controller?.close();
      } catch {
        // already ended
      }
      this.end(stream);
    }, leftMs);
    stream.expiry.unref?.();
    return new Response(body, {
      headers: {
        'Content-Type': 'text/event-stream; charset=utf-8',
        'Cache-Control': 'no-cache, no-transform',
        'X-Accel-Buffering': 'no',
      },
    });
  }

  /** Ends every stream (their clients reconnect) and stops the timers. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.heartbeat);
    clearInterval(this.refresh);
    this.stopLost();
    this.endAll();
    for (const timer of this.grace.values()) clearTimeout(timer);
    const players = [...this.grace.keys()];
    this.grace.clear();
    await Promise.all(players.map((id) => this.presence.disconnect(id).catch(this.onError)));
  }

  private send(stream: OpenStream, event: GamerEvent): void {
    const controller = stream.controller;
    if (stream.done || controller === null) return;
    if ((controller.desiredSize ?? 1) <= 0) {
      // The reader fell maxQueuedEvents behind: cut, so its client reconnects and catches up.
      controller.error(new Error('event stream reader too slow'));
      this.end(stream);
      return;
    }
    controller.enqueue(encoder.encode(`data: ${JSON.stringify(event)}\n\n`));
  }

  private end(stream: OpenStream): void {
    if (stream.done) return;
    stream.done = true;
    stream.unsubscribe?.();
    if (stream.expiry !== null) clearTimeout(stream.expiry);
    this.total--;
    const set = this.byPlayer.get(stream.accountId);
    if (set === undefined || !set.delete(stream) || set.size > 0) return;
    this.byPlayer.delete(stream.accountId);
    const accountId = stream.accountId;
    const offline = () => {
      this.grace.delete(accountId);
      if (!this.byPlayer.has(accountId)) this.presence.disconnect(accountId).catch(this.onError);
    };
    if (this.closed) return;
    if (this.limits.offlineGraceMs === 0) {
      offline();
      return;
    }
    const timer = setTimeout(offline, this.limits.offlineGraceMs);
    timer.unref?.();
    this.grace.set(accountId, timer);
  }

  private endAll(): void {
    for (const set of [...this.byPlayer.values()])
      for (const stream of [...set]) {
        try {
          stream.controller?.close();
        } catch {
          // already closed or errored
        }
        this.end(stream);
      }
  }

  private beat(): void {
    for (const set of this.byPlayer.values())
      for (const stream of set)
        if (!stream.done && (stream.controller?.desiredSize ?? 0) > 0) stream.controller?.enqueue(HEARTBEAT);
  }

  private renew(): void {
    for (const accountId of this.byPlayer.keys()) this.presence.connect(accountId).catch(this.onError);
    this.endBanned().catch(this.onError);
  }

  /** Ends the streams of players banned since they opened them (a query per 1,000 held players). */
  private async endBanned(): Promise<void> {
    const held = [...this.byPlayer.keys()];
    const now = this.context.nowMs();
    for (let i = 0; i < held.length; i += 1000) {
      const banned = await this.context.db
        .selectFrom('accounts')
        .select('id')
        .where('id', 'in', held.slice(i, i + 1000))
        .where('banned_until', '>', now)
        .execute();
      for (const { id } of banned)
        for (const stream of [...(this.byPlayer.get(id) ?? [])]) {
          try {
            stream.controller?.close();
          } catch {
            // already ended
          }
          this.end(stream);
        }
    }
  }
}
