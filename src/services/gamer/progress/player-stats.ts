/**
 * Stats: one row a (player, stat), folded by its kind in one statement (INSERT ... ON CONFLICT DO
 * UPDATE with value + x, greatest, least or the new value), every stat of one call in one
 * transaction with the achievements it crosses and the boards it feeds. Only servers update.
 */
import type { Transaction } from 'kysely';
import type { GamerContext } from '../gamer-context.js';
import type { GamerTables } from '../gamer-tables.js';
import { checkAccountId, type Leaderboards, type RankOffer, rethrowMissingAccount } from './leaderboards.js';
import { type PlayerAchievements, unlockIn } from './player-achievements.js';
import type { ProgressDefinitions, StatKind } from './progress-definitions.js';

/** What a stats update answers. */
export interface StatUpdate {
  /** Each updated stat's value after the update. */
  values: Record<string, number>;
  /** The achievements this update unlocked. */
  unlocked: string[];
}

/** The stats' server-side API (gamer.stats): updates from game servers only. */
export interface GamerStats {
  /** Folds `changes` into the player's stats by their kinds, atomically (from game servers only). */
  update(accountId: string, changes: Readonly<Record<string, number>>): Promise<StatUpdate>;
  /** The player's stats (the declared ones it has). */
  get(accountId: string): Promise<Record<string, number>>;
}

export class PlayerStats implements GamerStats {
  constructor(
    private readonly context: GamerContext,
    private readonly definitions: ProgressDefinitions,
    private readonly achievements: PlayerAchievements,
    private readonly leaderboards: Leaderboards,
  ) {}

  async update(accountId: string, changes: Readonly<Record<string, number>>): Promise<StatUpdate> {
    checkAccountId(accountId, 'stats.update');
    if (changes === null || typeof changes !== 'object' || Array.isArray(changes))
      throw new TypeError('stats.update: changes must be an object of numbers by stat name');
    const names = Object.keys(changes).sort(); // one lock order for every call: no deadlocks
    if (names.length === 0) throw new TypeError('stats.update: changes names no stat');
    for (const name of names) {
      if (!this.definitions.stats.has(name))
        throw new TypeError(
          `stats.update: no stat ${name.slice(0, 64)} (declare it in openGamerServices({ stats }))`,
        );
      const value = changes[name];
      if (typeof value !== 'number' || !Number.isFinite(value))
        throw new TypeError(`stats.update: ${name} must be a finite number, got ${String(value)}`);
    }
    const atMs = this.context.nowMs();
    const result = await this.context.db
      .transaction()
      .execute(async (trx) => {
        const values: Record<string, number> = {};
        const unlocked: string[] = [];
        const offers: RankOffer[] = [];
        for (const name of names) {
          const kind = this.definitions.stats.get(name) as StatKind;
          const value = await foldStat(trx, accountId, name, kind, changes[name], atMs);
          values[name] = value;
          for (const achievement of this.definitions.achievementsByStat.get(name) ?? [])
            if (value >= achievement.atLeast && (await unlockIn(trx, accountId, achievement.id, atMs)))
              unlocked.push(achievement.id);
          for (const board of this.definitions.boardsByStat.get(name) ?? []) {
            const { offer } = await this.leaderboards.submitIn(trx, board, accountId, value, atMs);
            if (offer !== null) offers.push(offer);
          }
        }
        return { values, unlocked, offers };
      })
      .catch(rethrowMissingAccount(accountId));
    await this.leaderboards.apply(result.offers);
    await this.achievements.announce(accountId, result.unlocked, atMs);
    return { values: result.values, unlocked: result.unlocked };
  }

  async get(accountId: string): Promise<Record<string, number>> {
    checkAccountId(accountId, 'stats.get');
    const rows = await this.context.db
      .selectFrom('player_stats')
      .select(['name', 'value'])
      .where('account_id', '=', accountId)
      .orderBy('name')
      .execute();
    const stats: Record<string, number> = {};
    for (const row of rows) if (this.definitions.stats.has(row.name)) stats[row.name] = row.value;
    return stats;
  }
}

async function foldStat(
  trx: Transaction<GamerTables>,
  accountId: string,
  name: string,
  kind: StatKind,
  change: number,
  atMs: number,
): Promise<number> {
  const row = await trx
    .insertInto('player_stats')
    .values({ account_id: accountId, name, value: change, updated_at: atMs })
    .onConflict((oc) =>
      oc.columns(['account_id', 'name']).doUpdateSet((eb) => ({
        value:
          kind === 'sum'
            ? eb('player_stats.value', '+', eb.ref('excluded.value'))
            : kind === 'max'
              ? eb.fn<number>('greatest', ['player_stats.value', 'excluded.value'])
              : kind === 'min'
                ? eb.fn<number>('least', ['player_stats.value', 'excluded.value'])
                : eb.ref('excluded.value'),
        updated_at: eb.ref('excluded.updated_at'),
      })),
    )
    .returning('value')
    .executeTakeFirstOrThrow();
  if (!Number.isFinite(row.value))
    throw new RangeError(`stats.update: ${name} would leave the finite numbers`);
  return row.value;
}
