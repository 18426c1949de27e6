/**
 * The backend's routes for authentication and rooms: POST /auth, /rooms/join-or-create,
 * /rooms/create, /rooms/:roomId/join and /reconnect. Every body and parameter passes a zod schema
 * first; every room route needs a session.
 */
import type { Context, Hono, MiddlewareHandler } from 'hono';
import type { z } from 'zod';
import { Refusal } from './backend-refusal.js';
import {
  joinOrCreateSchema,
  joinSchema,
  reconnectSchema,
  roomParamSchema,
  validate,
} from './backend-schemas.js';
import { type SeatIssuer, seatHolder } from './backend-seat-issuer.js';
import { bearerToken, type Session, type SessionSigner } from './backend-session-signer.js';

export type BackendEnv = { Variables: { session: Session } };

/** What the verifier is told about the request beside its body. */
export interface RequestInfo {
  /** The client's address (as the rate limit sees it). */
  ip: string;
  header(name: string): string | undefined;
}

/** The verifier's answer: the player, a refusal with its reason, or null (refused, no reason). */
export type VerifyResult = { userId: string; data?: unknown } | { refused: string } | null;

export interface RouteContext {
  sessions: SessionSigner;
  seats: SeatIssuer;
  now: () => number;
  sessionSeconds: number;
  authSchema: z.ZodType;
  verify: (body: unknown, request: RequestInfo) => Promise<VerifyResult>;
  remoteIp: (c: Context) => string;
  /** When set, only these room types are created (others: 400 without asking a process). */
  roomTypes: ReadonlySet<string> | null;
  /** The session check of the room routes (default requireSession: with gamer services, bans too). */
  session?: MiddlewareHandler<BackendEnv>;
}

/** Puts the caller's session on the context, or answers 401. */
export function requireSession(ctx: RouteContext): MiddlewareHandler<BackendEnv> {
  return async (c, next) => {
    const token = bearerToken(c.req.header('Authorization'));
    if (token === null)
      return c.json({ error: 'needs Authorization: Bearer <session token> (POST /auth)' }, 401);
    const session = ctx.sessions.verify(token, ctx.now());
    if (typeof session === 'string') return c.json({ error: session }, 401);
    c.set('session', session);
    await next();
  };
}

function checkRoomType(ctx: RouteContext, name: string): void {
  if (ctx.roomTypes !== null && !ctx.roomTypes.has(name)) throw new Refusal(400, `no room type ${name}`);
}

export function addRoomRoutes(app: Hono<BackendEnv>, ctx: RouteContext): void {
  app.post('/auth', validate('json', ctx.authSchema), async (c) => {
    const body = c.req.valid('json');
    const info: RequestInfo = { ip: ctx.remoteIp(c), header: (name) => c.req.header(name) };
    const verdict = await ctx.verify(body, info);
    if (verdict === null) return c.json({ error: 'credentials refused' }, 401);
    if ('refused' in verdict) return c.json({ error: String(verdict.refused).slice(0, 200) }, 401);
    const expiresAt = ctx.now() + Math.round(ctx.sessionSeconds * 1000); // whole ms: signed as an integer
    const session = ctx.sessions.sign({ userId: verdict.userId, expiresAt, data: verdict.data });
    return c.json({ session, userId: verdict.userId, expiresAt });
  });

  const session = ctx.session ?? requireSession(ctx);

  app.post('/rooms/join-or-create', session, validate('json', joinOrCreateSchema), async (c) => {
    const { name, options, transport } = c.req.valid('json');
    checkRoomType(ctx, name);
    return c.json(await ctx.seats.joinOrCreate(seatHolder(c.get('session')), name, options ?? {}, transport));
  });

  app.post('/rooms/create', session, validate('json', joinOrCreateSchema), async (c) => {
    const { name, options, transport } = c.req.valid('json');
    checkRoomType(ctx, name);
    return c.json(await ctx.seats.create(seatHolder(c.get('session')), name, options ?? {}, transport));
  });

  app.post(
    '/rooms/:roomId/join',
    session,
    validate('param', roomParamSchema),
    validate('json', joinSchema),
    async (c) => {
      const { roomId } = c.req.valid('param');
      const { transport, options } = c.req.valid('json');
      return c.json(
        await ctx.seats.join(seatHolder(c.get('session')), roomId, transport, undefined, options),
      );
    },
  );

  app.post('/reconnect', session, validate('json', reconnectSchema), async (c) => {
    const { seatId, transport, roomId } = c.req.valid('json');
    return c.json(await ctx.seats.reconnect(c.get('session').userId, seatId, transport, roomId));
  });
}
