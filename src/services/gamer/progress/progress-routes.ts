/**
 * The players' routes of stats, achievements and leaderboards: reads only. No route writes a
 * stat, an achievement or a score: those come from game servers through the server-side API.
 * Stats are public (any signed-in player reads anyone's); achievements are read by their owner.
 */
import type { Hono, MiddlewareHandler } from 'hono';
import { importOptional } from '../../../transport/optional-dependency.js';
import { Refusal } from '../../backend-refusal.js';
import type { BackendEnv } from '../../backend-routes.js';
import { validate } from '../../backend-schemas.js';
import { ACCOUNT_ID_MAX, type LeaderboardQuery, type Leaderboards } from './leaderboards.js';
import type { PlayerAchievements } from './player-achievements.js';
import type { PlayerStats } from './player-stats.js';
import { PROGRESS_NAME } from './progress-definitions.js';

const { z } = await importOptional('zod', 'ghostwire/services', () => import('zod'));

const accountParamSchema = z.object({ accountId: z.string().min(1).max(ACCOUNT_ID_MAX) });
const boardParamSchema = z.object({ board: z.string().regex(PROGRESS_NAME, 'must be a leaderboard name') });
const boardQuerySchema = z.strictObject({
  limit: z.coerce.number().int().min(1).max(100).optional(),
  cursor: z.string().min(1).max(400).optional(),
  period: z
    .union([z.enum(['current', 'previous']), z.coerce.number().int().min(0).max(Number.MAX_SAFE_INTEGER)])
    .optional(),
  around: z.literal('me').optional(),
  friends: z.literal('1').optional(),
});

export interface ProgressRouteModules {
  readonly playerStats: PlayerStats;
  readonly achievements: PlayerAchievements;
  readonly leaderboards: Leaderboards;
}

export function addProgressRoutes(
  app: Hono<BackendEnv>,
  session: MiddlewareHandler<BackendEnv>,
  { playerStats: stats, achievements, leaderboards }: ProgressRouteModules,
): void {
  app.get('/stats', session, async (c) => {
    const accountId = c.get('session').userId;
    return c.json({ accountId, stats: await stats.get(accountId) });
  });

  app.get('/stats/:accountId', session, validate('param', accountParamSchema), async (c) => {
    const { accountId } = c.req.valid('param');
    return c.json({ accountId, stats: await stats.get(accountId) });
  });

  app.get('/achievements', session, async (c) => {
    return c.json({ achievements: await achievements.list(c.get('session').userId) });
  });

  app.get(
    '/leaderboards/:board',
    session,
    validate('param', boardParamSchema),
    validate('query', boardQuerySchema),
    async (c) => {
      const { board } = c.req.valid('param');
      const { limit, cursor, period, around, friends } = c.req.valid('query');
      if (!leaderboards.has(board)) throw new Refusal(404, `no leaderboard ${board}`);
      if (around !== undefined && friends !== undefined)
        throw new Refusal(400, 'ask for around=me or friends=1, not both');
      if (cursor !== undefined && (around !== undefined || friends !== undefined))
        throw new Refusal(400, 'a cursor pages the top only');
      if (friends !== undefined && limit !== undefined)
        throw new Refusal(400, 'friends=1 takes no limit: it answers every friend with a record');
      if (around !== undefined && limit !== undefined && limit > 50)
        throw new Refusal(400, 'around=me takes a limit of 1..50 each side');
      const me = c.get('session').userId;
      const query: LeaderboardQuery = { period, limit, cursor };
      try {
        if (around !== undefined) return c.json(await leaderboards.around(board, me, query));
        if (friends !== undefined) return c.json(await leaderboards.friends(board, me, query));
        return c.json(await leaderboards.top(board, query));
      } catch (error) {
        if (error instanceof RangeError) throw new Refusal(400, error.message);
        throw error;
      }
    },
  );
}
