/**
 * Peer sessions joined by id, as rooms are: POST /peers makes one (the caller in slot 0, the
 * host), POST /peers/:sessionId/join gives the caller the lowest free slot (or the one it holds,
 * with a fresh token: how a dropped peer gets back in), DELETE /peers/:sessionId frees it. Every
 * answer with a slot carries that slot's peer token. The slots live in the directory
 * (createPeerSession / takePeerSlot), so backends sharing it never hand one slot to two players.
 */
import type { Hono, MiddlewareHandler } from 'hono';
import { MAX_SESSION_PEERS } from '../lockstep/peer-token.js';
import { importOptional } from '../transport/optional-dependency.js';
import { Refusal } from './backend-refusal.js';
import type { BackendEnv } from './backend-routes.js';
import { validate } from './backend-schemas.js';
import type { Directory } from './directory.js';
import { newPeerSessionId, type PeerTokenMinter } from './peer-sessions.js';

// zod is an optional package, which only ghostwire/services needs.
const { z } = await importOptional('zod', 'ghostwire/services', () => import('zod'));

export interface PeerRouteContext {
  directory: Directory;
  peers: PeerTokenMinter;
  session: MiddlewareHandler<BackendEnv>;
}

const createSchema = z.strictObject({ peers: z.number().int().min(2).max(MAX_SESSION_PEERS) });
/** A session id: a uint64 in decimal. */
const sessionParamSchema = z.object({
  sessionId: z
    .string()
    .refine(
      (id) => /^[0-9]{1,20}$/.test(id) && BigInt(id) < 1n << 64n,
      'must be a session id (decimal, below 2^64)',
    ),
});

export function addPeerRoutes(app: Hono<BackendEnv>, ctx: PeerRouteContext): void {
  app.post('/peers', ctx.session, validate('json', createSchema), async (c) => {
    const { peers } = c.req.valid('json');
    const userId = c.get('session').userId;
    const sessionId = newPeerSessionId();
    const created = await ctx.directory.createPeerSession(
      `${sessionId}`,
      peers,
      userId,
      ctx.peers.sessionTtlMs,
      ctx.peers.maxSessionsPerUser,
    );
    if (created === 'limit')
      throw new Refusal(
        429,
        `too many peer sessions: a user has at most ${ctx.peers.maxSessionsPerUser} it made live at once; one ends when it lapses (soon after its last player left)`,
      );
    // 64 random bits: a taken id is a fault worth a 503, not a retry loop.
    if (created !== 'created') throw new Refusal(503, 'could not make a peer session; retry');
    const players: (string | null)[] = new Array(peers).fill(null);
    players[0] = userId;
    return c.json(ctx.peers.answer(sessionId, 0, players, 1));
  });

  app.post('/peers/:sessionId/join', ctx.session, validate('param', sessionParamSchema), async (c) => {
    const { sessionId } = c.req.valid('param');
    const taken = await ctx.directory.takePeerSlot(
      sessionId,
      c.get('session').userId,
      ctx.peers.sessionTtlMs,
    );
    if (!taken.ok)
      throw taken.reason === 'full'
        ? new Refusal(409, 'peer session full')
        : new Refusal(404, 'no such peer session (or it lapsed)');
    // The slot's generation goes into its token: the rendezvous then refuses every token issued
    // for the slot before, the previous holder's spare ones and this holder's earlier ones alike.
    return c.json(ctx.peers.answer(BigInt(sessionId), taken.slot, taken.players, taken.generation));
  });

  app.delete('/peers/:sessionId', ctx.session, validate('param', sessionParamSchema), async (c) => {
    const { sessionId } = c.req.valid('param');
    const userId = c.get('session').userId;
    if (!(await ctx.directory.leavePeerSession(sessionId, userId, ctx.peers.emptySessionTtlMs)))
      throw new Refusal(404, 'not in this peer session');
    return c.json({ left: true });
  });
}
