/**
 * The game's side of the HTTP backend, for browsers and Node bots alike: fetch only, no Node
 * modules (exported from the browser bundle and from `ghostwire/services`).
 *
 *   const backend = new BackendClient({ url: 'https://game.example.com/api' });
 *   await backend.auth({ name: 'ada' });
 *   const seat = await backend.joinOrCreate('arena', { transport: 'websocket' });
 *   // seat.connectToken: the 2048 bytes for the netcode client; seat.serverAddress, seat.signalingUrl
 *   const peer = await backend.matchmakePeers({ pool: 'duel-p2p' });
 *   // peer.peerToken: for new SecurePeerLinks({ transport, token: peer.peerToken })
 */
import type { JoinAnswer, TransportKind } from './join-answer.js';
import type { PeerSessionAnswer } from './peer-session-answer.js';

/** A join answer with its connect token decoded to bytes. */
export type Seated = Omit<JoinAnswer, 'connectToken'> & { connectToken: Uint8Array };

/** A peer session answer with its id as a bigint and its token decoded to bytes. */
export type PeerSeat = Omit<PeerSessionAnswer, 'sessionId' | 'peerToken'> & {
  sessionId: bigint;
  /** The PEER_TOKEN_BYTES for SecurePeerLinks. */
  peerToken: Uint8Array;
};

/** A peer seat from matchmaking: the match it came from too. */
export type MatchedPeerSeat = PeerSeat & { matchId: string };

/** A refusal from the backend (or an unreadable answer): the status and its reason. */
export class BackendError extends Error {
  constructor(
    readonly status: number,
    readonly reason: string,
    /** Seconds to wait, from Retry-After (429). */
    readonly retryAfter?: number,
    /** The answer's other fields beside `error`: a conflict's current `version`, a ban's `until`. */
    readonly details: Readonly<Record<string, unknown>> = {},
  ) {
    super(`backend answered ${status}: ${reason}`);
    this.name = 'BackendError';
  }

  /** No answer came within the client's timeoutMs (status 0: nothing was answered). */
  get timedOut(): boolean {
    return this.status === 0;
  }

  /** The seat's room is gone for good (its server process stopped or crashed): join another. */
  get roomGone(): boolean {
    return this.status === 410 && this.reason.startsWith('room gone');
  }
}

export type FetchLike = (url: string, init: RequestInit) => Promise<Response>;

export interface BackendClientOptions {
  /** The backend's base URL, without a trailing slash: "https://game.example.com/api". */
  url: string;
  /** Default: globalThis.fetch. */
  fetch?: FetchLike;
  /** A session from an earlier auth() (kept in localStorage, say). */
  session?: string;
  /**
   * How long one request may wait for its whole answer, ms (default 10000); then it rejects with
   * a BackendError whose timedOut is true. A backend that accepts and never answers would
   * otherwise hold the player's join forever.
   */
  timeoutMs?: number;
}

/** What each request takes besides its own fields. */
export interface RequestOptions {
  /** Aborting rejects the request with the signal's reason. */
  signal?: AbortSignal;
}

export type SeatOptions = { transport: TransportKind; options?: object } & RequestOptions;

export interface MatchmakeOptions {
  /** The pool to queue in (ignored with `ticketId`). */
  pool: string;
  transport: TransportKind;
  skill?: number;
  properties?: Record<string, string | number | boolean>;
  /**
   * A ticket the game's server queued for this player's party (HTTP queues only the caller
   * alone): polled instead of queuing a new one.
   */
  ticketId?: string;
  /** Polling period, ms (default 1000). */
  pollMs?: number;
  /** Aborting cancels the ticket (best effort) and rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Told the ticket id as soon as it is queued. */
  onTicket?: (ticketId: string) => void;
}

/** Matchmaking in a peer pool: as MatchmakeOptions, without a transport (peers bring their own). */
export type PeerMatchmakeOptions = Omit<MatchmakeOptions, 'transport'>;

type MatchedPoll = { state: 'matched'; matchId: string; join?: JoinAnswer; peer?: PeerSessionAnswer };

export class BackendClient {
  private readonly url: string;
  private readonly fetch: FetchLike;
  private readonly timeoutMs: number;
  /** The session token auth() answered (sent as Authorization: Bearer). */
  session: string | null;
  /** The last seat this client was given, for reconnect(). */
  private last: Seated | null = null;

  constructor(options: BackendClientOptions) {
    if (typeof options.url !== 'string') throw new TypeError('BackendClient: url must be a string');
    this.url = options.url.replace(/\/+$/, '');
    const f = options.fetch ?? globalThis.fetch;
    if (typeof f !== 'function') throw new TypeError('BackendClient: no fetch available; pass one');
    this.fetch = (url, init) => f(url, init);
    this.session = options.session ?? null;
    this.timeoutMs = options.timeoutMs ?? 10_000;
    if (!Number.isFinite(this.timeoutMs) || this.timeoutMs <= 0)
      throw new RangeError(`BackendClient: timeoutMs must be a finite number > 0, got ${this.timeoutMs}`);
  }

  /** Authenticates (the body the backend's auth schema expects; a guest's { name } by default). */
  async auth(
    body: unknown,
    request: RequestOptions = {},
  ): Promise<{ userId: string; session: string; expiresAt: number }> {
    const answer = (await this.call('POST', '/auth', body, false, request.signal)) as {
      userId: string;
      session: string;
      expiresAt: number;
    };
    this.session = answer.session;
    return answer;
  }

  joinOrCreate(name: string, options: SeatOptions): Promise<Seated> {
    const { signal, ...body } = options;
    return this.seat('/rooms/join-or-create', { name, ...body }, signal);
  }

  create(name: string, options: SeatOptions): Promise<Seated> {
    const { signal, ...body } = options;
    return this.seat('/rooms/create', { name, ...body }, signal);
  }

  join(roomId: string, options: SeatOptions): Promise<Seated> {
    const { signal, ...body } = options;
    return this.seat(`/rooms/${encodeURIComponent(roomId)}/join`, body, signal);
  }

  /**
   * A spectator's token (no seat: the room's own spectator seats): for the room `roomId`, or for
   * the running room of `pool` with the most players. Not remembered for reconnect().
   */
  async spectate(
    options: { roomId?: string; pool?: string; transport: TransportKind } & RequestOptions,
  ): Promise<Seated> {
    const { signal, ...body } = options;
    const answer = (await this.call('POST', '/spectate', body, true, signal)) as JoinAnswer;
    return { ...answer, connectToken: fromBase64(answer.connectToken) };
  }

  /** A fresh token for a seat held after a drop (default: the last seat this client was given). */
  reconnect(
    seatId?: string,
    options: { transport?: TransportKind; roomId?: string } & RequestOptions = {},
  ): Promise<Seated> {
    const last = this.last;
    const id = seatId ?? last?.seatId;
    if (id === undefined) throw new RangeError('reconnect: no seat given and none joined before');
    const same = last !== null && last.seatId === id;
    const transport = options.transport ?? (same ? last.transport : undefined);
    if (transport === undefined) throw new RangeError('reconnect: which transport?');
    const roomId = options.roomId ?? (same ? last.roomId : undefined);
    const body = { seatId: id, transport, ...(roomId === undefined ? {} : { roomId }) };
    return this.seat('/reconnect', body, options.signal);
  }

  /** Queues a ticket and polls until matched; the seat in the match's room. */
  async matchmake(options: MatchmakeOptions): Promise<Seated> {
    const poll = await this.matchTicket(options, `?transport=${options.transport}`);
    if (poll.join === undefined)
      throw new BackendError(409, 'matched into a peer-to-peer session: use matchmakePeers');
    return this.remember(poll.join);
  }

  /**
   * Queues a ticket in a peer pool and polls until matched: this player's slot in the peer
   * session and its token for the rendezvous. Polling again (same ticketId) mints a fresh token
   * for the same slot while the match result is kept.
   */
  async matchmakePeers(options: PeerMatchmakeOptions): Promise<MatchedPeerSeat> {
    const poll = await this.matchTicket(options, '');
    const peer = poll.peer;
    if (peer === undefined) throw new BackendError(409, 'matched into a room: use matchmake');
    return { ...peerSeat(peer), matchId: poll.matchId };
  }

  /** Makes a peer session of `peers` slots (2..64) that others join by its id; the caller is slot 0. */
  async createPeerSession(peers: number, request: RequestOptions = {}): Promise<PeerSeat> {
    return peerSeat(
      (await this.call('POST', '/peers', { peers }, true, request.signal)) as PeerSessionAnswer,
    );
  }

  /**
   * Takes the lowest free slot of a peer session (or the one this player holds, with a fresh
   * token: how a dropped peer gets back in). 404 when there is no such session, 409 when full.
   */
  async joinPeerSession(sessionId: bigint | string, request: RequestOptions = {}): Promise<PeerSeat> {
    const path = `/peers/${encodeURIComponent(String(sessionId))}/join`;
    return peerSeat((await this.call('POST', path, undefined, true, request.signal)) as PeerSessionAnswer);
  }

  /** Frees this player's slot of a peer session, so another can take it. */
  async leavePeerSession(sessionId: bigint | string, request: RequestOptions = {}): Promise<void> {
    await this.call(
      'DELETE',
      `/peers/${encodeURIComponent(String(sessionId))}`,
      undefined,
      true,
      request.signal,
    );
  }

  private async matchTicket(options: PeerMatchmakeOptions, query: string): Promise<MatchedPoll> {
    const { pool, skill, properties, signal, onTicket } = options;
    const pollMs = options.pollMs ?? 1000;
    signal?.throwIfAborted();
    const ticketId =
      options.ticketId ??
      (
        (await this.call('POST', '/matchmake', { pool, skill, properties }, true, signal)) as {
          ticketId: string;
        }
      ).ticketId;
    onTicket?.(ticketId);
    const path = `/matchmake/${encodeURIComponent(ticketId)}`;
    try {
      for (;;) {
        let poll: { state: string };
        try {
          poll = (await this.call('GET', `${path}${query}`, undefined, true, signal)) as typeof poll;
        } catch (error) {
          if (!(error instanceof BackendError) || error.status !== 429) throw error;
          await sleep((error.retryAfter ?? 1) * 1000, signal);
          continue;
        }
        if (poll.state === 'matched') return poll as MatchedPoll;
        if (poll.state !== 'queued') throw new BackendError(410, `ticket ${poll.state}`);
        await sleep(pollMs, signal);
      }
    } catch (error) {
      if (signal?.aborted) await this.call('DELETE', path, undefined, true).catch(() => {});
      throw error;
    }
  }

  /**
   * One request to any route of the backend (the gamer services', or a game's own), sent with the
   * session when there is one; the answer's JSON, or a BackendError with the status and reason.
   */
  request<T = unknown>(
    method: string,
    path: string,
    body?: unknown,
    request: RequestOptions = {},
  ): Promise<T> {
    if (typeof path !== 'string' || !path.startsWith('/'))
      throw new TypeError(`BackendClient.request: path must start with "/", got ${String(path)}`);
    return this.call(method, path, body, this.session !== null, request.signal) as Promise<T>;
  }

  private async seat(path: string, body: object, signal?: AbortSignal): Promise<Seated> {
    return this.remember((await this.call('POST', path, body, true, signal)) as JoinAnswer);
  }

  private remember(answer: JoinAnswer): Seated {
    const seated: Seated = { ...answer, connectToken: fromBase64(answer.connectToken) };
    this.last = seated;
    return seated;
  }

  private async call(
    method: string,
    path: string,
    body: unknown,
    authorized: boolean,
    signal?: AbortSignal,
  ): Promise<unknown> {
    const headers: Record<string, string> = {};
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    if (authorized) {
      if (this.session === null) throw new BackendError(401, 'not authenticated: call auth() first');
      headers.Authorization = `Bearer ${this.session}`;
    }
    signal?.throwIfAborted();
    const deadline = requestDeadline(this.timeoutMs, signal);
    const init: RequestInit = { method, headers, signal: deadline.signal };
    if (body !== undefined) init.body = JSON.stringify(body);
    const timedOut = () =>
      new BackendError(
        0,
        `timeout: no answer to ${method} ${path.split('?')[0]} within ${this.timeoutMs} ms`,
      );
    let response: Response;
    let answer: unknown = null;
    try {
      try {
        response = await this.fetch(`${this.url}${path}`, init);
      } catch (error) {
        if (signal?.aborted) throw signal.reason;
        throw deadline.expired() ? timedOut() : error;
      }
      try {
        answer = await response.json();
      } catch {
        // an unreadable answer is reported by its status below, unless the wait was cut short
        if (signal?.aborted) throw signal.reason;
        if (deadline.expired()) throw timedOut();
      }
    } finally {
      deadline.dispose();
    }
    if (!response.ok) {
      const { error: reason, ...details } =
        answer !== null && typeof answer === 'object' && !Array.isArray(answer)
          ? (answer as { error?: unknown })
          : { error: undefined };
      const retry = Number(response.headers.get('Retry-After'));
      throw new BackendError(
        response.status,
        typeof reason === 'string' ? reason : response.statusText,
        Number.isFinite(retry) && retry > 0 ? retry : undefined,
        details,
      );
    }
    if (answer === null) throw new BackendError(response.status, 'answer is not JSON');
    return answer;
  }
}

/**
 * The signal of one request: the caller's, and a timer. AbortSignal.any and AbortSignal.timeout
 * are used where present (Node 20.3+, current browsers), a controller and a timer otherwise.
 */
function requestDeadline(
  timeoutMs: number,
  signal: AbortSignal | undefined,
): { signal: AbortSignal; expired(): boolean; dispose(): void } {
  const controller = new AbortController();
  let expired = false;
  const timer = setTimeout(() => {
    expired = true;
    controller.abort(new Error(`timeout after ${timeoutMs} ms`));
  }, timeoutMs);
  if (signal === undefined)
    return { signal: controller.signal, expired: () => expired, dispose: () => clearTimeout(timer) };
  const any = (AbortSignal as { any?: (signals: AbortSignal[]) => AbortSignal }).any;
  if (typeof any === 'function')
    return {
      signal: any.call(AbortSignal, [signal, controller.signal]),
      expired: () => expired,
      dispose: () => clearTimeout(timer),
    };
  const onAbort = () => controller.abort(signal.reason);
  signal.addEventListener('abort', onAbort, { once: true });
  return {
    signal: controller.signal,
    expired: () => expired,
    dispose: () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
    },
  };
}

function peerSeat(answer: PeerSessionAnswer): PeerSeat {
  return { ...answer, sessionId: BigInt(answer.sessionId), peerToken: fromBase64(answer.peerToken) };
}

function fromBase64(text: string): Uint8Array {
  const binary = atob(text);
  const out = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
  return out;
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
