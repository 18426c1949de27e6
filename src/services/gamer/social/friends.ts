/**
 * Friends: requests, accept, remove, block. A relation is two rows, one a side, each holding that
 * side's state (0 friends, 1 request sent, 2 request received, 3 blocked), and every change writes
 * both sides in one transaction under both players' advisory locks (taken in key order, so two
 * players acting on each other at once wait rather than deadlock, and the caps count exactly).
 * A blocked player is never told: their request is answered as any request and stays pending on
 * their side only, reaching the blocker not at all.
 */
import type { Kysely, Transaction } from 'kysely';
import { Refusal } from '../../backend-refusal.js';
import type { GamerContext } from '../gamer-context.js';
import type { GamerTables } from '../gamer-tables.js';
import type { SocialLimits } from './social-limits.js';

export const FRIEND = 0;
export const SENT = 1;
export const RECEIVED = 2;
export const BLOCKED = 3;

export type FriendState = 'friends' | 'sent' | 'received' | 'blocked';
/** What a change left between the two players, as the caller sees it ('none': no relation). */
export type RelationState = FriendState | 'none';

const STATE_NAMES: readonly FriendState[] = ['friends', 'sent', 'received', 'blocked'];

export function stateCode(state: FriendState): number {
  return STATE_NAMES.indexOf(state);
}

export interface FriendRow {
  accountId: string;
  displayName: string | null;
  state: FriendState;
  /** Unix ms of the relation's last change. */
  sinceMs: number;
}

export interface FriendPage {
  items: FriendRow[];
  /** Give it back as `cursor` for the next page; null on the last. */
  cursor: string | null;
}

/** A relation change to tell the other player about, after the commit. */
type Notice = { to: string; state: RelationState } | null;

export class Friends {
  constructor(
    private readonly context: GamerContext,
    private readonly limits: SocialLimits,
  ) {}

  /** Sends a request to `otherId`, or accepts theirs: the relation as `accountId` now sees it. */
  async request(accountId: string, otherId: string): Promise<RelationState> {
    checkPair(accountId, otherId);
    const { state, notice } = await this.change(accountId, otherId, async (trx, mine, theirs) => {
      if (mine === BLOCKED) throw new Refusal(409, 'you blocked this player: unblock them first');
      if (mine === FRIEND) return { state: 'friends', notice: null };
      if (mine === SENT) return { state: 'sent', notice: null };
      if (mine === RECEIVED && theirs === SENT) {
        await this.checkCount(
          trx,
          accountId,
          FRIEND,
          this.limits.maxFriends,
          'you have the most friends allowed',
        );
        await this.checkCount(
          trx,
          otherId,
          FRIEND,
          this.limits.maxFriends,
          'that player has the most friends allowed',
        );
        await this.setBoth(trx, accountId, otherId, FRIEND, FRIEND);
        return { state: 'friends', notice: { to: otherId, state: 'friends' } };
      }
      await this.checkCount(
        trx,
        accountId,
        SENT,
        this.limits.maxSentRequests,
        'too many requests pending: wait for answers or cancel some',
      );
      await this.checkCount(
        trx,
        accountId,
        FRIEND,
        this.limits.maxFriends,
        'you have the most friends allowed',
      );
      if (theirs === BLOCKED) {
        // Answered as any request; it stays on the sender's side only.
        await this.setRow(trx, accountId, otherId, SENT);
        return { state: 'sent', notice: null };
      }
      await this.checkCount(
        trx,
        otherId,
        RECEIVED,
        this.limits.maxReceivedRequests,
        'that player has too many requests pending',
      );
      await this.setBoth(trx, accountId, otherId, SENT, RECEIVED);
      return { state: 'sent', notice: { to: otherId, state: 'received' } };
    });
    await this.tell(accountId, notice);
    return state;
  }

  /** Removes a friend, declines their request or cancels one's own (blocks stay): always 'none'. */
  async remove(accountId: string, otherId: string): Promise<RelationState> {
    checkPair(accountId, otherId);
    const { notice } = await this.change(accountId, otherId, async (trx, mine, theirs) => {
      if (mine === null || mine === BLOCKED) return { state: 'none', notice: null };
      await this.deleteRow(trx, accountId, otherId);
      if (theirs === null || theirs === BLOCKED) return { state: 'none', notice: null };
      await this.deleteRow(trx, otherId, accountId);
      return { state: 'none', notice: { to: otherId, state: 'none' } };
    });
    await this.tell(accountId, notice);
    return 'none';
  }

  /** Blocks `otherId`: any friendship or request between the two ends; they are not told they are blocked. */
  async block(accountId: string, otherId: string): Promise<RelationState> {
    checkPair(accountId, otherId);
    const { notice } = await this.change(accountId, otherId, async (trx, mine, theirs) => {
      if (mine === BLOCKED) return { state: 'blocked', notice: null };
      await this.checkCount(
        trx,
        accountId,
        BLOCKED,
        this.limits.maxBlocked,
        'you have blocked the most players allowed',
      );
      await this.setRow(trx, accountId, otherId, BLOCKED);
      if (theirs === null || theirs === BLOCKED) return { state: 'blocked', notice: null };
      await this.deleteRow(trx, otherId, accountId);
      // Told as a removal, which a block must look like from their side.
      return { state: 'blocked', notice: { to: otherId, state: 'none' } };
    });
    await this.tell(accountId, notice);
    return 'blocked';
  }

  /** Unblocks `otherId` (nothing else between them comes back): 'none'. */
  async unblock(accountId: string, otherId: string): Promise<RelationState> {
    checkPair(accountId, otherId);
    await this.change(accountId, otherId, async (trx, mine, theirs) => {
      if (mine !== BLOCKED) return { state: 'none', notice: null };
      await this.deleteRow(trx, accountId, otherId);
      // A request they sent while blocked never reached us: it goes, as if declined.
      if (theirs === SENT) await this.deleteRow(trx, otherId, accountId);
      return { state: 'none', notice: null };
    });
    return 'none';
  }

  /** One page of `accountId`'s relations in `state`, by account id. */
  async page(
    accountId: string,
    state: FriendState,
    options: { limit?: number; cursor?: string | null } = {},
  ): Promise<FriendPage> {
    const limit = options.limit ?? this.limits.maxPageSize;
    if (!Number.isInteger(limit) || limit < 1 || limit > this.limits.maxPageSize)
      throw new RangeError(`friends: limit must be 1..${this.limits.maxPageSize}, got ${limit}`);
    let query = this.context.db
      .selectFrom('friends')
      .leftJoin('accounts', 'accounts.id', 'friends.other_id')
      .select(['friends.other_id as id', 'accounts.display_name as name', 'friends.updated_at as at'])
      .where('friends.account_id', '=', accountId)
      .where('friends.state', '=', stateCode(state))
      .orderBy('friends.other_id')
      .limit(limit + 1);
    if (options.cursor != null) query = query.where('friends.other_id', '>', options.cursor);
    const rows = await query.execute();
    const more = rows.length > limit;
    const items = rows
      .slice(0, limit)
      .map((r) => ({ accountId: r.id, displayName: r.name, state, sinceMs: Number(r.at) }));
    return { items, cursor: more ? items[items.length - 1].accountId : null };
  }

  /** Every friend of `accountId` (at most the friend cap), with display names. */
  async list(accountId: string): Promise<FriendRow[]> {
    checkId(accountId);
    const out: FriendRow[] = [];
    let cursor: string | null = null;
    do {
      const page: FriendPage = await this.page(accountId, 'friends', { cursor });
      out.push(...page.items);
      cursor = page.cursor;
    } while (cursor !== null && out.length < this.limits.maxFriends);
    return out;
  }

  /** The friends' ids of `accountId` (at most the friend cap): one query, for fan-out. */
  async friendIds(accountId: string): Promise<string[]> {
    const rows = await this.context.db
      .selectFrom('friends')
      .select('other_id')
      .where('account_id', '=', accountId)
      .where('state', '=', FRIEND)
      .limit(this.limits.maxFriends)
      .execute();
    return rows.map((r) => r.other_id);
  }

  async areFriends(a: string, b: string): Promise<boolean> {
    checkId(a);
    checkId(b);
    const row = await this.context.db
      .selectFrom('friends')
      .select('state')
      .where('account_id', '=', a)
      .where('other_id', '=', b)
      .executeTakeFirst();
    return row?.state === FRIEND;
  }

  /** The relation as `accountId` sees it. */
  async relation(accountId: string, otherId: string): Promise<RelationState> {
    const row = await this.context.db
      .selectFrom('friends')
      .select('state')
      .where('account_id', '=', accountId)
      .where('other_id', '=', otherId)
      .executeTakeFirst();
    return row === undefined ? 'none' : (STATE_NAMES[row.state] ?? 'none');
  }

  /** Runs `body` in one transaction holding both players' locks, with both sides' current states. */
  private async change(
    accountId: string,
    otherId: string,
    body: (
      trx: Transaction<GamerTables>,
      mine: number | null,
      theirs: number | null,
    ) => Promise<{ state: RelationState; notice: Notice }>,
  ): Promise<{ state: RelationState; notice: Notice }> {
    // kysely is an optional package, loaded with the database (never when ghostwire/services is imported).
    const { sql } = await import('kysely');
    return this.context.db.transaction().execute(async (trx) => {
      // Locks in the order of their keys (not of the ids): two keys that collide are one lock.
      const keys = [...new Set([lockKey(accountId), lockKey(otherId)])].sort((x, y) => x - y);
      for (const key of keys)
        await sql`select pg_advisory_xact_lock(${FRIENDS_LOCKS}::int4, ${key}::int4)`.execute(trx);
      const accounts = await trx
        .selectFrom('accounts')
        .select('id')
        .where('id', 'in', [accountId, otherId])
        .execute();
      if (!accounts.some((a) => a.id === accountId))
        throw new Refusal(403, 'no gamer account for this session: sign in through the accounts');
      if (!accounts.some((a) => a.id === otherId)) throw new Refusal(404, 'no such player');
      const rows = await trx
        .selectFrom('friends')
        .select(['account_id', 'state'])
        .where((eb) =>
          eb.or([
            eb.and([eb('account_id', '=', accountId), eb('other_id', '=', otherId)]),
            eb.and([eb('account_id', '=', otherId), eb('other_id', '=', accountId)]),
          ]),
        )
        .execute();
      const mine = rows.find((r) => r.account_id === accountId)?.state ?? null;
      const theirs = rows.find((r) => r.account_id === otherId)?.state ?? null;
      return body(trx, mine, theirs);
    });
  }

  private async checkCount(
    trx: Kysely<GamerTables>,
    accountId: string,
    state: number,
    most: number,
    reason: string,
  ): Promise<void> {
    const rows = await trx
      .selectFrom('friends')
      .select('other_id')
      .where('account_id', '=', accountId)
      .where('state', '=', state)
      .limit(most)
      .execute();
    if (rows.length >= most) throw new Refusal(409, `${reason} (${most})`);
  }

  /** Removes `accountId`'s row about `otherId` (its side of the relation). */
  private async deleteRow(trx: Transaction<GamerTables>, accountId: string, otherId: string): Promise<void> {
    await trx
      .deleteFrom('friends')
      .where('account_id', '=', accountId)
      .where('other_id', '=', otherId)
      .execute();
  }

  private async setRow(
    trx: Kysely<GamerTables>,
    accountId: string,
    otherId: string,
    state: number,
  ): Promise<void> {
    const at = this.context.nowMs();
    await trx
      .insertInto('friends')
      .values({ account_id: accountId, other_id: otherId, state, updated_at: at })
      .onConflict((oc) => oc.columns(['account_id', 'other_id']).doUpdateSet({ state, updated_at: at }))
      .execute();
  }

  private async setBoth(
    trx: Kysely<GamerTables>,
    a: string,
    b: string,
    stateA: number,
    stateB: number,
  ): Promise<void> {
    await this.setRow(trx, a, b, stateA);
    await this.setRow(trx, b, a, stateB);
  }

  private async tell(from: string, notice: Notice): Promise<void> {
    if (notice === null) return;
    // After the commit; a bus that is down loses the notice, not the change.
    await this.context.events
      .publish(notice.to, { kind: 'friend', accountId: from, state: notice.state, at: this.context.nowMs() })
      .catch(() => {});
  }
}

/** The advisory locks' first key: friends' own space, apart from any other module's locks. */
const FRIENDS_LOCKS = 0x67770004;

/** A player's lock key: FNV-1a of the id, as a signed 32-bit integer. */
function lockKey(id: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) hash = Math.imul(hash ^ id.charCodeAt(i), 0x01000193);
  return hash | 0;
}

function checkId(id: string): void {
  if (typeof id !== 'string' || !/^[A-Za-z0-9_-]{1,64}$/.test(id))
    throw new TypeError(
      `friends: an account id must be 1..64 of [A-Za-z0-9_-], got ${String(id).slice(0, 80)}`,
    );
}

function checkPair(a: string, b: string): void {
  checkId(a);
  checkId(b);
  if (a === b) throw new Refusal(400, 'that is you');
}
