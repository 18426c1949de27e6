/**
 * The matchmaking routes: POST /matchmake queues a ticket, GET /matchmake/:ticketId polls it (and
 * once matched, reserves this player's seat in the match's room), DELETE cancels it. The queue
 * itself is the game's Matchmaker (matchmaker.ts), or anything of the same shape.
 *
 * A ticket queued over HTTP seats its caller alone: a player cannot name others into a ticket
 * (they never consented). A game with parties forms them on its own server and queues the party's
 * ticket with Matchmaker.enqueue({ userIds }); each member then polls that ticket id here with its
 * own session and gets its own seat.
 *
 * A match of a peer pool (peer-sessions.ts) answers { peer } instead of { join }: the caller's
 * slot in the session and a fresh peer token for it, from the backend's rendezvous option. Such a
 * poll needs no ?transport; a match into a room does.
 */
import { createHmac } from 'node:crypto';
import type { Context, Hono, MiddlewareHandler } from 'hono';
import type { PeerSessionAnswer } from '../join/peer-session-answer.js';
import { Refusal } from './backend-refusal.js';
import type { BackendEnv } from './backend-routes.js';
import { matchmakeSchema, pollQuerySchema, ticketParamSchema, validate } from './backend-schemas.js';
import { type JoinAnswer, type SeatIssuer, seatHolder } from './backend-seat-issuer.js';
import type { TicketStatus } from './directory.js';
import type { EnqueueRequest } from './matchmaker.js';
import { type PeerTokenMinter, peerSessionIdOf } from './peer-sessions.js';

/** What the routes need of a matchmaker: the Matchmaker class, or a stand-in of its shape. */
export interface MatchmakingQueue {
  /** The new ticket's id; throws RangeError for a request it refuses (answered 400 with it). */
  enqueue(request: EnqueueRequest): Promise<string>;
  /** False when the ticket is no longer queued. */
  cancel(ticketId: string): Promise<boolean>;
  status(ticketId: string): Promise<TicketStatus>;
}

/** What GET /matchmake/:ticketId answers. */
export type MatchPoll =
  | { state: 'queued'; waitedMs: number }
  | { state: 'matched'; matchId: string; join: JoinAnswer }
  | { state: 'matched'; matchId: string; peer: PeerSessionAnswer }
  | { state: 'cancelled' }
  | { state: 'unknown' };

export interface MatchmakeRouteContext {
  matchmaker: MatchmakingQueue;
  seats: SeatIssuer;
  session: MiddlewareHandler<BackendEnv>;
  /** The backend's session secret: seat ids of matches are derived from it. */
  secret: Uint8Array;
  /** Mints peer tokens for peer pools' matches; null when the backend has no rendezvous. */
  peers: PeerTokenMinter | null;
  now: () => number;
}

export function addMatchmakeRoutes(app: Hono<BackendEnv>, ctx: MatchmakeRouteContext): void {
  app.post('/matchmake', ctx.session, validate('json', matchmakeSchema), async (c) => {
    const { pool, skill, properties } = c.req.valid('json');
    const userIds = [c.get('session').userId];
    let ticketId: string;
    try {
      ticketId = await ctx.matchmaker.enqueue({
        userIds,
        pool,
        skill: skill ?? 0,
        properties: properties ?? {},
      });
    } catch (error) {
      // The matchmaker's refusals (a pool without rules, the per-user ticket limit) are the
      // caller's to fix; anything else is ours (500).
      if (error instanceof RangeError) throw new Refusal(400, error.message.slice(0, 200));
      throw error;
    }
    return c.json({ ticketId });
  });

  app.get(
    '/matchmake/:ticketId',
    ctx.session,
    validate('param', ticketParamSchema),
    validate('query', pollQuerySchema),
    async (c) => {
      const { ticketId } = c.req.valid('param');
      const { transport } = c.req.valid('query');
      const session = c.get('session');
      const userId = session.userId;
      const status = await ctx.matchmaker.status(ticketId);
      switch (status.state) {
        case 'queued':
          // Another player's ticket reads as unknown: ticket ids are not shared.
          if (!status.ticket.userIds.includes(userId)) return unknown(c);
          return c.json({ state: 'queued', waitedMs: Math.max(0, ctx.now() - status.ticket.createdAt) });
        case 'matched': {
          // Only the match's players get a seat: a leaked ticket id must not seat a stranger.
          if (!status.userIds.includes(userId)) return unknown(c);
          const sessionId = peerSessionIdOf(status.roomId);
          if (sessionId !== null) {
            if (ctx.peers === null)
              throw new Refusal(503, 'peer-to-peer match, but this backend has no rendezvous option');
            const peer = ctx.peers.answer(sessionId, status.userIds.indexOf(userId), status.userIds);
            return c.json({ state: 'matched', matchId: status.matchId, peer } satisfies MatchPoll);
          }
          if (transport === undefined)
            throw new Refusal(
              400,
              'transport: needed (?transport=udp|websocket|webrtc) for a match into a room',
            );
          // The same seat on every poll (its id derives from ticket and player), so polling again
          // after a lost answer gets a fresh token for it rather than a second seat.
          const seatId = matchSeatId(ctx.secret, ticketId, userId);
          const join = await ctx.seats.join(seatHolder(session), status.roomId, transport, seatId);
          return c.json({ state: 'matched', matchId: status.matchId, join } satisfies MatchPoll);
        }
        case 'cancelled':
          if (!status.userIds.includes(userId)) return unknown(c);
          return c.json({ state: 'cancelled' } satisfies MatchPoll);
        default:
          return unknown(c);
      }
    },
  );

  app.delete('/matchmake/:ticketId', ctx.session, validate('param', ticketParamSchema), async (c) => {
    const { ticketId } = c.req.valid('param');
    const status = await ctx.matchmaker.status(ticketId);
    const userId = c.get('session').userId;
    const users =
      status.state === 'queued' ? status.ticket.userIds : status.state === 'unknown' ? [] : status.userIds;
    // What became of another player's ticket is not told, as for GET.
    const state = users.includes(userId) ? status.state : 'unknown';
    if (state !== 'queued') throw new Refusal(409, `ticket is not queued (${state})`);
    if (!(await ctx.matchmaker.cancel(ticketId)))
      throw new Refusal(409, 'ticket is not queued (matched meanwhile)');
    return c.json({ state: 'cancelled' });
  });
}

const unknown = (c: Context<BackendEnv>) => c.json({ state: 'unknown' } satisfies MatchPoll);

/** The seat a matched player gets: 22 base64url characters of HMAC(secret, ticket, player). */
export function matchSeatId(secret: Uint8Array, ticketId: string, userId: string): string {
  return createHmac('sha256', secret)
    .update(`match-seat\n${ticketId}\n${userId}`)
    .digest()
    .subarray(0, 16)
    .toString('base64url');
}
