/**
 * The HTTP backend (netcode's model): it authenticates players, finds or creates their room,
 * reserves a seat in the directory and answers a connect token for the server process it chose.
 * It holds the private key, which the server processes share. A hono app, so it mounts in any
 * hono server or runs alone with serveBackend:
 *
 *   const backend = createBackend({ directory, privateKey, protocolId: 0x1234n });
 *   const { url } = await serveBackend(backend, { port: 8080 });
 *
 * Routes: POST /auth · POST /rooms/join-or-create · POST /rooms/create · POST /rooms/:roomId/join ·
 * POST /reconnect · POST /matchmake · GET|DELETE /matchmake/:ticketId (when given a matchmaker) ·
 * POST /peers · POST /peers/:sessionId/join · DELETE /peers/:sessionId (when given a rendezvous).
 */
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { Context, Hono } from 'hono';
import type { z } from 'zod';
import { importOptional } from '../transport/optional-dependency.js';
import { addMatchmakeRoutes, type MatchmakingQueue } from './backend-matchmake-routes.js';
import { addPeerRoutes } from './backend-peer-routes.js';
import { RateLimiter, type RateLimitOptions } from './backend-rate-limiter.js';
import { Refusal, ROOM_FAILED, ROOM_GONE } from './backend-refusal.js';
import {
  addRoomRoutes,
  type BackendEnv,
  type RequestInfo,
  requireSession,
  type VerifyResult,
} from './backend-routes.js';
import { guestAuthSchema } from './backend-schemas.js';
import { DEFAULT_SEAT_LIMITS, SeatIssuer } from './backend-seat-issuer.js';
import { type Session, SessionSigner } from './backend-session-signer.js';
import { addSpectateRoutes } from './backend-spectate-routes.js';
import { SpectatorIssuer } from './backend-spectator-issuer.js';
import { type Directory, PROCESS_GONE, type SeatLimits, type Unsubscribe } from './directory.js';
import { checkSeatLimits } from './directory-checks.js';
import { type GamerServices, gamerBanCheck, gamerSignIn, mountGamerRoutes } from './gamer/gamer-services.js';
import { unavailableRefusal } from './gamer/gamer-unavailable.js';
import { GoneRooms } from './gone-rooms.js';
import { PeerTokenMinter, type RendezvousOptions } from './peer-sessions.js';
import { DEFAULT_CREATE_TIMEOUT_MS, RoomPlacer } from './room-placer.js';
import { randomId } from './seat-token.js';

// hono and @hono/node-server are optional packages, which only ghostwire/services needs.
const { createAdaptorServer } = await importOptional(
  '@hono/node-server',
  'ghostwire/services',
  () => import('@hono/node-server'),
);
const { getConnInfo } = await importOptional(
  '@hono/node-server',
  'ghostwire/services',
  () => import('@hono/node-server/conninfo'),
);
const { Hono: HonoApp } = await importOptional('hono', 'ghostwire/services', () => import('hono'));
const { bodyLimit } = await importOptional('hono', 'ghostwire/services', () => import('hono/body-limit'));
const { HTTPException } = await importOptional(
  'hono',
  'ghostwire/services',
  () => import('hono/http-exception'),
);

export interface BackendOptions<S extends z.ZodType = typeof guestAuthSchema> {
  directory: Directory;
  /** The 32-byte key the server processes share: connect tokens are sealed with it. */
  privateKey: Uint8Array;
  /** The game's netcode protocol id. */
  protocolId: bigint;
  /** The schema of POST /auth's body (default: a guest's { name }). */
  authSchema?: S;
  /**
   * Who the player is (a password check, an OAuth token lookup…). Default: every guest is let in
   * as a fresh `guest-<random>` with data { name }; with `gamer`, a sign-in through its accounts
   * ({ device } or { provider, token }: docs/gamer-services.md).
   */
  verify?: (body: z.output<S>, request: RequestInfo) => Promise<VerifyResult>;
  /** Signs session tokens; backends sharing it accept each other's sessions (default: random). */
  sessionSecret?: Uint8Array;
  /** Session lifetime, seconds (default 3600). */
  sessionSeconds?: number;
  /** Seat reservation and connect-token lifetime, seconds (default 15). */
  tokenSeconds?: number;
  /**
   * The most live seats (reserved, taken or held) one user may hold: `perRoom` in one room (default
   * 1), `perUser` across all rooms (default 3). Enforced by the directory, atomically (409 past it).
   */
  seatLimits?: Partial<SeatLimits>;
  /** The netcode connection timeout written in tokens, seconds (default 5). */
  timeoutSeconds?: number;
  /** How long a create-room request waits for its process (default 5000 ms; then 503). */
  createTimeoutMs?: number;
  /** Enables the /matchmake routes. */
  matchmaker?: MatchmakingQueue;
  /** Enables the gamer services' routes (accounts, stats, leaderboards, friends, storage): openGamerServices(). */
  gamer?: GamerServices;
  /**
   * The rendezvous peer-to-peer players are sent to, and the key it shares: a peer pool's matched
   * player's poll answers its peer token (peer-sessions.ts; without it, 503), and the /peers
   * routes make sessions joined by id.
   */
  rendezvous?: RendezvousOptions;
  /**
   * The room type a pool's matches are hosted in (a map of pool to room type, or a function; null:
   * not a pool of rooms), for POST /spectate { pool }: a spectator is sent to that type's running
   * room with the most players. Default none: pools are not watched (a room by id still is).
   */
  spectatePools?: Readonly<Record<string, string>> | ((pool: string) => string | null);
  /** Per-address token bucket (default 30 at once, 10 a second, 10000 addresses), or false. */
  rateLimit?: RateLimitOptions | false;
  /** Largest request body, bytes (default 16384; larger: 413). */
  maxBodyBytes?: number;
  /** The client's address (default: the socket's). Behind a proxy, read its header here. */
  remoteIp?: (c: Context) => string;
  /** When given, only these room types are created (others: 400 without asking a process). */
  roomTypes?: readonly string[];
  /**
   * How often the backend sweeps lapsed processes out of the directory (each sweep publishes
   * PROCESS_GONE for them), ms; 0 leaves that to another part of the fleet. Default 2000.
   */
  sweepIntervalMs?: number;
  /** The clock, unix milliseconds (default Date.now). */
  nowMs?: () => number;
  /** Told of unexpected errors (answered 500); default console.error. */
  onError?: (error: unknown) => void;
}

export interface Backend {
  app: Hono<BackendEnv>;
  /**
   * The session a token carries (what POST /auth answered), or null when it is forged, expired or
   * malformed: for a game server outside the fleet (a GameServer's `auth`) to know who joins.
   */
  verifySession(token: string): Session | null;
  /** Stops the sweep and the PROCESS_GONE subscription (the directory stays open). */
  close(): Promise<void>;
}

/** Backoff of the PROCESS_GONE subscription while the directory refuses it, ms. */
const GONE_RETRY_FIRST_MS = 100;
const GONE_RETRY_MAX_MS = 5000;

function socketIp(c: Context): string {
  try {
    return getConnInfo(c).remote.address ?? 'unknown';
  } catch {
    return 'unknown'; // not served by @hono/node-server
  }
}

const guestVerify = async (body: unknown): Promise<VerifyResult> => {
  const name = (body as { name?: unknown }).name;
  return { userId: `guest-${randomId()}`, data: { name: typeof name === 'string' ? name : 'guest' } };
};

export function createBackend<S extends z.ZodType = typeof guestAuthSchema>(
  options: BackendOptions<S>,
): Backend {
  const { directory } = options;
  const now = options.nowMs ?? Date.now;
  const sessionSeconds = positive('sessionSeconds', options.sessionSeconds ?? 3600);
  const tokenSeconds = positive('tokenSeconds', options.tokenSeconds ?? 15);
  const maxBodyBytes = positive('maxBodyBytes', options.maxBodyBytes ?? 16384);
  const sweepIntervalMs = options.sweepIntervalMs ?? 2000;
  if (!(sweepIntervalMs >= 0) || !Number.isFinite(sweepIntervalMs))
    throw new RangeError(
      `sweepIntervalMs must be a finite number >= 0 (0: no sweep), got ${sweepIntervalMs}`,
    );
  if (Math.round(sessionSeconds * 1000) < 1)
    throw new RangeError(`sessionSeconds must be at least a millisecond, got ${sessionSeconds}`);
  const remoteIp = options.remoteIp ?? socketIp;
  const onError = options.onError ?? ((error: unknown) => console.error('backend:', error));
  const secret = options.sessionSecret ?? new Uint8Array(randomBytes(32));
  const timeoutSeconds = options.timeoutSeconds ?? 5;
  if (!Number.isInteger(tokenSeconds))
    throw new RangeError(`tokenSeconds must be an integer, got ${tokenSeconds}`);
  if (!Number.isInteger(timeoutSeconds))
    throw new RangeError(`timeoutSeconds must be an integer (negative: no timeout), got ${timeoutSeconds}`);
  if (typeof options.protocolId !== 'bigint') throw new RangeError('protocolId must be a bigint');
  if (!(options.privateKey instanceof Uint8Array) || options.privateKey.length !== 32)
    throw new RangeError('privateKey must be a Uint8Array of 32 bytes');

  const peers =
    options.rendezvous === undefined
      ? null
      : new PeerTokenMinter(options.rendezvous, options.protocolId, now);
  const seatLimits = { ...DEFAULT_SEAT_LIMITS, ...options.seatLimits };
  checkSeatLimits(seatLimits);
  const gone = new GoneRooms();
  const placer = new RoomPlacer(directory, options.createTimeoutMs ?? DEFAULT_CREATE_TIMEOUT_MS);
  const seats = new SeatIssuer({
    directory,
    placer,
    gone,
    privateKey: options.privateKey,
    protocolId: options.protocolId,
    tokenSeconds,
    timeoutSeconds,
    now,
    limits: seatLimits,
  });

  const app = new HonoApp<BackendEnv>();
  const limiter = options.rateLimit === false ? null : new RateLimiter(options.rateLimit);
  if (limiter !== null) {
    app.use('*', async (c, next) => {
      const wait = limiter.take(remoteIp(c), now());
      if (wait > 0) {
        c.header('Retry-After', String(wait));
        return c.json({ error: `too many requests from this address; retry in ${wait} s` }, 429);
      }
      await next();
    });
  }
  app.use(
    '*',
    bodyLimit({
      maxSize: maxBodyBytes,
      onError: (c) => c.json({ error: `body over ${maxBodyBytes} bytes` }, 413),
    }),
  );
  // With gamer services and no verify of its own, POST /auth signs in through the accounts.
  const signIn =
    options.gamer !== undefined && options.verify === undefined ? gamerSignIn(options.gamer) : null;
  if (signIn !== null && options.authSchema !== undefined)
    throw new TypeError('createBackend: an authSchema needs its verify (with gamer, /auth takes accounts)');
  const ctx = {
    sessions: new SessionSigner(secret),
    seats,
    now,
    sessionSeconds,
    authSchema: options.authSchema ?? signIn?.schema ?? guestAuthSchema,
    verify: (options.verify ?? signIn?.verify ?? guestVerify) as (
      body: unknown,
      request: RequestInfo,
    ) => Promise<VerifyResult>,
    remoteIp,
    roomTypes: options.roomTypes === undefined ? null : new Set(options.roomTypes),
  };
  // With gamer services, a banned account is refused on every route that takes a session.
  const signedIn = requireSession(ctx);
  const session = options.gamer === undefined ? signedIn : gamerBanCheck(options.gamer, signedIn);
  addRoomRoutes(app, { ...ctx, session });
  const pools = options.spectatePools;
  if (pools !== undefined && typeof pools !== 'function' && (typeof pools !== 'object' || pools === null))
    throw new TypeError('createBackend: spectatePools must be { pool: roomType } or a function');
  addSpectateRoutes(
    app,
    new SpectatorIssuer({
      directory,
      gone,
      privateKey: options.privateKey,
      protocolId: options.protocolId,
      tokenSeconds,
      timeoutSeconds,
      now,
      poolRoomType:
        pools === undefined
          ? null
          : typeof pools === 'function'
            ? pools
            : (pool) => (Object.hasOwn(pools, pool) ? pools[pool] : null),
    }),
    session,
  );
  if (options.matchmaker !== undefined)
    addMatchmakeRoutes(app, {
      matchmaker: options.matchmaker,
      seats,
      session,
      secret,
      peers,
      now,
    });
  if (peers !== null) addPeerRoutes(app, { directory, peers, session });
  // The gamer routes add the ban check themselves.
  if (options.gamer !== undefined) mountGamerRoutes(options.gamer, app, signedIn);
  methodNotAllowed(app);

  app.notFound((c) => c.json({ error: `no route ${c.req.method} ${c.req.path.slice(0, 100)}` }, 404));
  app.onError((error, c) => {
    if (error instanceof Refusal) return c.json({ ...error.details, error: error.reason }, error.status);
    if (error instanceof HTTPException)
      return c.json({ error: error.message || 'bad request' }, error.status);
    const unavailable = unavailableRefusal(error);
    if (unavailable !== null) return c.json({ error: unavailable.reason }, unavailable.status);
    onError(error);
    return c.json({ error: 'internal error' }, 500);
  });

  // Rooms of a stopped process, and rooms that failed, answer 410 with why for a while. The subscription is made at once and
  // retried with capped backoff while the directory refuses it (Redis not ready yet): without
  // it the backend would hand out seats in dead rooms until their seats lapse.
  let closed = false;
  const onGone = (message: string) => {
    try {
      const { roomIds, reason } = JSON.parse(message) as { roomIds?: unknown; reason?: unknown };
      if (Array.isArray(roomIds))
        gone.add(
          roomIds.filter((id) => typeof id === 'string'),
          now(),
          reason === 'room failed' ? ROOM_FAILED : ROOM_GONE,
        );
    } catch {
      // not ours to fix: a malformed announcement is skipped
    }
  };
  let unsubscribe: Unsubscribe | null = null;
  let retry: ReturnType<typeof setTimeout> | null = null;
  let attempt: Promise<void> = Promise.resolve();
  const subscribeGone = (delayMs: number): void => {
    retry = null;
    attempt = directory.subscribe(PROCESS_GONE, onGone).then(
      (u) => {
        if (closed) return u().catch(() => {});
        unsubscribe = u;
      },
      (error: unknown) => {
        if (closed) return;
        onError(error);
        retry = setTimeout(() => subscribeGone(Math.min(delayMs * 2, GONE_RETRY_MAX_MS)), delayMs);
        retry.unref?.();
      },
    );
  };
  subscribeGone(GONE_RETRY_FIRST_MS);
  const sweeper =
    sweepIntervalMs > 0
      ? setInterval(() => {
          if (!closed) directory.sweep().catch(onError);
        }, sweepIntervalMs)
      : null;
  sweeper?.unref();

  return {
    app,
    verifySession(token: string): Session | null {
      if (typeof token !== 'string') return null;
      const session = ctx.sessions.verify(token, now());
      return typeof session === 'string' ? null : session;
    },
    async close() {
      if (closed) return;
      closed = true;
      if (sweeper !== null) clearInterval(sweeper);
      if (retry !== null) clearTimeout(retry);
      await attempt;
      await (unsubscribe as Unsubscribe | null)?.().catch(() => {});
    },
  };
}

/** 405 with Allow for a known path asked with another method (hono alone would answer 404). */
function methodNotAllowed(app: Hono<BackendEnv>): void {
  const allowed = new Map<string, Set<string>>();
  for (const route of app.routes) {
    if (route.method === 'ALL') continue;
    const methods = allowed.get(route.path) ?? new Set<string>();
    methods.add(route.method);
    allowed.set(route.path, methods);
  }
  for (const [path, methods] of allowed) {
    const allow = [...methods].join(', ');
    app.all(path, (c) => {
      c.header('Allow', allow);
      return c.json({ error: `${c.req.method} not allowed here (${allow})` }, 405);
    });
  }
}

function positive(name: string, value: number): number {
  if (!Number.isFinite(value) || value <= 0) throw new RangeError(`${name} must be > 0, got ${value}`);
  return value;
}

export interface ServedBackend {
  /** "http://host:port" */
  url: string;
  port: number;
  /** Stops listening and closes the backend. */
  close(): Promise<void>;
}

/**
 * Listens on `port` (0: any free one) at `hostname` (default 127.0.0.1). `backlog` (default 2048)
 * is the queue of connections not yet accepted: a burst of players connecting at once overflows
 * Node's default of 511, and each dropped connection attempt retries only after a second or more.
 */
export async function serveBackend(
  backend: Backend,
  options: { port?: number; hostname?: string; backlog?: number } = {},
): Promise<ServedBackend> {
  const hostname = options.hostname ?? '127.0.0.1';
  const server = createAdaptorServer({ fetch: backend.app.fetch });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ port: options.port ?? 0, host: hostname, backlog: options.backlog ?? 2048 }, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const host = hostname.includes(':') ? `[${hostname}]` : hostname;
  return {
    url: `http://${host}:${port}`,
    port,
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        // keep-alive sockets would hold close() open
        (server as { closeAllConnections?: () => void }).closeAllConnections?.();
      });
      await backend.close();
    },
  };
}
