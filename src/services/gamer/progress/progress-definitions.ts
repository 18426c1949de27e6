/**
 * A game's stats, achievements and leaderboards as declared to openGamerServices, checked once at
 * open: a misspelt stat, an achievement on a stat that does not exist or a board with an unknown
 * reset throws there, naming what is wrong.
 */

/** How a stat folds each update into its value: add, keep the highest, the lowest, or the latest. */
export type StatKind = 'sum' | 'max' | 'min' | 'last';

/** Unlocked when `stat` reaches `atLeast` (in the update that crosses it), or, without `stat`, by unlock(). */
export interface AchievementDefinition {
  /** The stat whose value unlocks it (omitted: unlocked by achievements.unlock() only). */
  stat?: string;
  /** The value of `stat` that unlocks it (needed with `stat`). */
  atLeast?: number;
}

/** When a board starts over: never, each UTC day, each week (Monday 00:00 UTC), month, or at newSeason(). */
export type LeaderboardReset = 'never' | 'daily' | 'weekly' | 'monthly' | 'season';

export interface LeaderboardDefinition {
  /** Fed by this stat: its value after each update is submitted. Without it, servers submit(). */
  stat?: string;
  /** 'desc': highest first (default; 'asc' for a 'min' stat), 'asc': lowest first. */
  order?: 'asc' | 'desc';
  /** When the board starts over (default 'never'); old periods stay readable. */
  reset?: LeaderboardReset;
}

export interface ProgressOptions {
  stats?: Readonly<Record<string, StatKind>>;
  achievements?: Readonly<Record<string, AchievementDefinition>>;
  leaderboards?: Readonly<Record<string, LeaderboardDefinition>>;
}

export interface Achievement {
  readonly id: string;
  readonly stat: string | null;
  readonly atLeast: number;
}

export interface Board {
  readonly name: string;
  readonly stat: string | null;
  readonly order: 'asc' | 'desc';
  readonly reset: LeaderboardReset;
}

export interface ProgressDefinitions {
  readonly stats: ReadonlyMap<string, StatKind>;
  readonly achievements: ReadonlyMap<string, Achievement>;
  /** The threshold achievements of each stat. */
  readonly achievementsByStat: ReadonlyMap<string, readonly Achievement[]>;
  readonly boards: ReadonlyMap<string, Board>;
  /** The boards each stat feeds. */
  readonly boardsByStat: ReadonlyMap<string, readonly Board[]>;
}

/** Names of stats, achievements and boards: they appear in URLs. */
export const PROGRESS_NAME = /^[A-Za-z0-9_-]{1,64}$/;
const STAT_KINDS: readonly StatKind[] = ['sum', 'max', 'min', 'last'];
const RESETS: readonly LeaderboardReset[] = ['never', 'daily', 'weekly', 'monthly', 'season'];

function entries<T>(what: string, record: Readonly<Record<string, T>> | undefined): [string, T][] {
  if (record === undefined) return [];
  if (record === null || typeof record !== 'object' || Array.isArray(record))
    throw new TypeError(`openGamerServices: ${what} must be an object of definitions by name`);
  const list = Object.entries(record);
  if (list.length > 1000) throw new RangeError(`openGamerServices: at most 1000 ${what}, got ${list.length}`);
  for (const [name] of list)
    if (!PROGRESS_NAME.test(name))
      throw new TypeError(
        `openGamerServices: ${what} name ${JSON.stringify(name)} must match ${PROGRESS_NAME}`,
      );
  return list;
}

export function progressDefinitions(options: ProgressOptions): ProgressDefinitions {
  const stats = new Map<string, StatKind>();
  for (const [name, kind] of entries('stats', options.stats)) {
    if (!STAT_KINDS.includes(kind))
      throw new TypeError(
        `openGamerServices: stat ${name} must be one of ${STAT_KINDS.join(', ')}, got ${String(kind)}`,
      );
    stats.set(name, kind);
  }
  const achievements = new Map<string, Achievement>();
  const achievementsByStat = new Map<string, Achievement[]>();
  for (const [id, definition] of entries('achievements', options.achievements)) {
    if (definition === null || typeof definition !== 'object')
      throw new TypeError(
        `openGamerServices: achievement ${id} must be an object ({} for one unlocked by unlock())`,
      );
    const { stat, atLeast } = definition;
    if (stat !== undefined && !stats.has(stat))
      throw new TypeError(
        `openGamerServices: achievement ${id} names stat ${String(stat)}, which is not declared in stats`,
      );
    if (stat !== undefined && (typeof atLeast !== 'number' || !Number.isFinite(atLeast)))
      throw new TypeError(`openGamerServices: achievement ${id} on stat ${stat} needs a finite atLeast`);
    if (stat === undefined && atLeast !== undefined)
      throw new TypeError(`openGamerServices: achievement ${id} has atLeast but no stat`);
    const achievement: Achievement = { id, stat: stat ?? null, atLeast: atLeast ?? 0 };
    achievements.set(id, achievement);
    if (stat !== undefined)
      achievementsByStat.set(stat, [...(achievementsByStat.get(stat) ?? []), achievement]);
  }
  const boards = new Map<string, Board>();
  const boardsByStat = new Map<string, Board[]>();
  for (const [name, definition] of entries('leaderboards', options.leaderboards)) {
    if (definition === null || typeof definition !== 'object')
      throw new TypeError(`openGamerServices: leaderboard ${name} must be an object`);
    const { stat, order, reset = 'never' } = definition;
    if (stat !== undefined && !stats.has(stat))
      throw new TypeError(
        `openGamerServices: leaderboard ${name} names stat ${String(stat)}, which is not declared in stats`,
      );
    if (order !== undefined && order !== 'asc' && order !== 'desc')
      throw new TypeError(`openGamerServices: leaderboard ${name} order must be 'asc' or 'desc'`);
    if (!RESETS.includes(reset))
      throw new TypeError(`openGamerServices: leaderboard ${name} reset must be one of ${RESETS.join(', ')}`);
    const board: Board = {
      name,
      stat: stat ?? null,
      order: order ?? (stat !== undefined && stats.get(stat) === 'min' ? 'asc' : 'desc'),
      reset,
    };
    boards.set(name, board);
    if (stat !== undefined) boardsByStat.set(stat, [...(boardsByStat.get(stat) ?? []), board]);
  }
  return { stats, achievements, achievementsByStat, boards, boardsByStat };
}
