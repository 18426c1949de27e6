/**
 * The matchmaking routes: POST /matchmake queues a ticket, GET /matchmake/:ticketId polls it (and
 * once matched, reserves this player's seat in the match's room), DELETE cancels it. The queue
 * itself is the game's matchmaker, behind the small interface below.
 */
import { createHmac } from 'node:crypto';
import type { Hono, MiddlewareHandler } from 'hono';
import { Refusal } from './backend-refusal.js';
import type { BackendEnv } from './backend-routes.js';
import { matchmakeSchema, ticketParamSchema, transportQuerySchema, validate } from './backend-schemas.js';
import type { JoinAnswer, SeatIssuer } from './backend-seats.js';
import type { RoomMetadata, TicketStatus } from './directory.js';

/** What the routes need of a matchmaker (the Matchmaker class, or a stand-in). */
export interface MatchmakingQueue {
  enqueue(request: {
    userIds: string[];
    pool: string;
    skill: number;
    properties: RoomMetadata;
  }): Promise<{ ticketId: string }>;
  /** False when the ticket is no longer queued. */
  cancel(ticketId: string): Promise<boolean>;
  status(ticketId: string): Promise<TicketStatus>;
}

/** What GET /matchmake/:ticketId answers. */
export type MatchPoll =
  | { state: 'queued'; waitedMs: number }
  | { state: 'matched'; matchId: string; join: JoinAnswer }
  | { state: 'cancelled' }
  | { state: 'unknown' };

export interface MatchmakeRouteContext {
  matchmaker: MatchmakingQueue;
  seats: SeatIssuer;
  session: MiddlewareHandler<BackendEnv>;
  /** The backend's session secret: seat ids of matches are derived from it. */
  secret: Uint8Array;
  now: () => number;
}

export function addMatchmakeRoutes(app: Hono<BackendEnv>, ctx: MatchmakeRouteContext): void {
  app.post('/matchmake', ctx.session, validate('json', matchmakeSchema), async (c) => {
    const { pool, skill, properties, party } = c.req.valid('json');
    const userId = c.get('session').userId;
    const userIds = [...new Set([userId, ...(party ?? [])])];
    const { ticketId } = await ctx.matchmaker.enqueue({
      userIds,
      pool,
      skill: skill ?? 0,
      properties: properties ?? {},
    });
    return c.json({ ticketId });
  });

  app.get(
    '/matchmake/:ticketId',
    ctx.session,
    validate('param', ticketParamSchema),
    validate('query', transportQuerySchema),
    async (c) => {
      const { ticketId } = c.req.valid('param');
      const { transport } = c.req.valid('query');
      const userId = c.get('session').userId;
      const status = await ctx.matchmaker.status(ticketId);
      switch (status.state) {
        case 'queued':
          // Another player's ticket reads as unknown: ticket ids are not shared.
          if (!status.ticket.userIds.includes(userId))
            return c.json({ state: 'unknown' } satisfies MatchPoll);
          return c.json({ state: 'queued', waitedMs: Math.max(0, ctx.now() - status.ticket.createdAt) });
        case 'matched': {
          // The same seat on every poll (its id derives from ticket and player), so polling again
          // after a lost answer gets a fresh token for it rather than a second seat.
          const seatId = matchSeatId(ctx.secret, ticketId, userId);
          const join = await ctx.seats.join(userId, status.roomId, transport, seatId);
          return c.json({ state: 'matched', matchId: status.matchId, join } satisfies MatchPoll);
        }
        default:
          return c.json({ state: status.state } satisfies MatchPoll);
      }
    },
  );

  app.delete('/matchmake/:ticketId', ctx.session, validate('param', ticketParamSchema), async (c) => {
    const { ticketId } = c.req.valid('param');
    const status = await ctx.matchmaker.status(ticketId);
    if (status.state !== 'queued' || !status.ticket.userIds.includes(c.get('session').userId))
      throw new Refusal(
        409,
        `ticket is not queued (${status.state === 'queued' ? 'unknown' : status.state})`,
      );
    if (!(await ctx.matchmaker.cancel(ticketId)))
      throw new Refusal(409, 'ticket is not queued (matched meanwhile)');
    return c.json({ state: 'cancelled' });
  });
}

/** The seat a matched player gets: 22 base64url characters of HMAC(secret, ticket, player). */
export function matchSeatId(secret: Uint8Array, ticketId: string, userId: string): string {
  return createHmac('sha256', secret)
    .update(`match-seat\n${ticketId}\n${userId}`)
    .digest()
    .subarray(0, 16)
    .toString('base64url');
}
