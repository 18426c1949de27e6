/** Stats, achievements and leaderboards built on the gamer context: what openGamerServices adds of them. */
import type { Hono, MiddlewareHandler } from 'hono';
import type { BackendEnv } from '../../backend-routes.js';
import type { GamerContext } from '../gamer-context.js';
import { Leaderboards } from './leaderboards.js';
import { MemoryRankIndex } from './memory-rank-index.js';
import { PlayerAchievements } from './player-achievements.js';
import { PlayerStats } from './player-stats.js';
import type { ProgressDefinitions } from './progress-definitions.js';
import { addProgressRoutes } from './progress-routes.js';
import { RedisRankIndex } from './redis-rank-index.js';

export interface GamerProgress {
  readonly playerStats: PlayerStats;
  readonly achievements: PlayerAchievements;
  readonly leaderboards: Leaderboards;
  install(app: Hono<BackendEnv>, session: MiddlewareHandler<BackendEnv>): void;
}

export function openGamerProgress(context: GamerContext, definitions: ProgressDefinitions): GamerProgress {
  const index = context.redis === null ? new MemoryRankIndex() : new RedisRankIndex(context.redis);
  const leaderboards = new Leaderboards(context, definitions, index);
  const achievements = new PlayerAchievements(context, definitions);
  const stats = new PlayerStats(context, definitions, achievements, leaderboards);
  // Rank indexes load from SQL at start, in the background: queries meanwhile wait for their board.
  void leaderboards.warm();
  return {
    playerStats: stats,
    achievements,
    leaderboards,
    install: (app, session) =>
      addProgressRoutes(app, session, { playerStats: stats, achievements, leaderboards }),
  };
}
