/**
 * Achievements: each unlocked once a player (the primary key; ON CONFLICT DO NOTHING RETURNING
 * tells the one call that unlocked it), by a stat crossing its threshold in the stat's own
 * transaction, or explicitly by a server. The unlock event goes to the player after commit.
 */
import type { Kysely, Transaction } from 'kysely';
import type { UnlockedAchievement } from '../../../join/gamer/achievements-client.js';
import type { GamerContext } from '../gamer-context.js';
import type { GamerTables } from '../gamer-tables.js';
import { checkAccountId, rethrowMissingAccount } from './leaderboards.js';
import type { ProgressDefinitions } from './progress-definitions.js';

/** The achievements' server-side API (gamer.achievements). */
export interface GamerAchievements {
  /** Unlocks `id` for the player; true when this call unlocked it (false: it already was). */
  unlock(accountId: string, id: string): Promise<boolean>;
  /** The player's unlocked achievements, oldest first. */
  list(accountId: string): Promise<UnlockedAchievement[]>;
}

/** Inserts the unlock inside `trx`; true when it is new. */
export async function unlockIn(
  trx: Kysely<GamerTables> | Transaction<GamerTables>,
  accountId: string,
  id: string,
  atMs: number,
): Promise<boolean> {
  const row = await trx
    .insertInto('achievements')
    .values({ account_id: accountId, id, unlocked_at: atMs })
    .onConflict((oc) => oc.columns(['account_id', 'id']).doNothing())
    .returning('id')
    .executeTakeFirst();
  return row !== undefined;
}

export class PlayerAchievements implements GamerAchievements {
  constructor(
    private readonly context: GamerContext,
    private readonly definitions: ProgressDefinitions,
  ) {}

  async unlock(accountId: string, id: string): Promise<boolean> {
    checkAccountId(accountId, 'achievements.unlock');
    if (typeof id !== 'string' || !this.definitions.achievements.has(id))
      throw new TypeError(`achievements.unlock: no achievement ${String(id).slice(0, 64)}`);
    const atMs = this.context.nowMs();
    const unlocked = await unlockIn(this.context.db, accountId, id, atMs).catch(
      rethrowMissingAccount(accountId),
    );
    if (unlocked) await this.announce(accountId, [id], atMs);
    return unlocked;
  }

  async list(accountId: string): Promise<UnlockedAchievement[]> {
    checkAccountId(accountId, 'achievements.list');
    const rows = await this.context.db
      .selectFrom('achievements')
      .select(['id', 'unlocked_at'])
      .where('account_id', '=', accountId)
      .orderBy('unlocked_at')
      .orderBy('id')
      .execute();
    // An achievement the game no longer declares stays stored but is not shown.
    return rows
      .filter((r) => this.definitions.achievements.has(r.id))
      .map((r) => ({ id: r.id, at: r.unlocked_at }));
  }

  /** Tells the player, after commit; a player with no stream open misses nothing it cannot list. */
  async announce(accountId: string, ids: readonly string[], atMs: number): Promise<void> {
    for (const id of ids) {
      try {
        await this.context.events.publish(accountId, { kind: 'achievement', id, at: atMs });
      } catch {
        // the unlock is stored: GET /achievements shows it whatever the event bus did
      }
    }
  }
}
