/**
 * Accounts in the gamer database: sign-in by a device or an outside identity (making the account
 * the first time), display names, links, bans. Every write is one transaction; a link or an unlink
 * first locks its account's row, so two at once for one account run one after the other.
 */
import type { Kysely, Transaction } from 'kysely';
import { Refusal } from '../../backend-refusal.js';
import { randomId } from '../../seat-token.js';
import type { GamerContext } from '../gamer-context.js';
import type { GamerTables } from '../gamer-tables.js';
import type { SignInBody, UnlinkBody } from './account-schemas.js';
import { displayNameProblem, foldDisplayName, normalizeDisplayName } from './display-names.js';
import { type IdentityVerifier, verifyIdentity } from './identity-verifiers.js';

/** An account as the server sees it (a player sees it without `ban`). */
export interface Account {
  id: string;
  displayName: string | null;
  /** Linked to an outside identity (a guest has devices only). */
  registered: boolean;
  /** Devices that sign in as it: the id's first 4 characters only (a device id is a secret). */
  devices: { hint: string; linkedAt: number }[];
  identities: { provider: string; externalId: string; linkedAt: number }[];
  /** Set while banned; untilMs null: for good. */
  ban: { untilMs: number | null; reason: string } | null;
  createdAt: number;
}

/** The server-side API: `gamer.accounts`. */
export interface GamerAccounts {
  get(accountId: string): Promise<Account | null>;
  /** The account named `displayName` (compared folded: case and width do not matter), or null. */
  findByDisplayName(displayName: string): Promise<Account | null>;
  /** Refuses the account at /auth and on every gamer route until `untilMs` (absent: for good). */
  ban(accountId: string, ban: { untilMs?: number; reason: string }): Promise<void>;
  unban(accountId: string): Promise<void>;
}

/** What the ban check reads for one request. */
export interface BanState {
  untilMs: number | null;
  reason: string;
}

/** Most devices one account may link (a device per browser or console the player uses). */
export const MAX_DEVICES_PER_ACCOUNT = 16;
const MAX_BAN_REASON_CHARS = 200;
/** banned_until of a ban without end (the largest time a Date holds). */
const FOREVER_MS = 8.64e15;

type AccountRow = {
  id: string;
  display_name: string | null;
  registered: boolean;
  banned_until: number | null;
  ban_reason: string | null;
  created_at: number;
};

export class AccountStore implements GamerAccounts {
  private readonly db: Kysely<GamerTables>;
  private readonly nowMs: () => number;
  private readonly identities: ReadonlyMap<string, IdentityVerifier>;

  constructor(context: GamerContext, identities: Readonly<Record<string, IdentityVerifier>> = {}) {
    this.db = context.db;
    this.nowMs = context.nowMs;
    this.identities = new Map(Object.entries(identities));
  }

  async get(accountId: string): Promise<Account | null> {
    if (typeof accountId !== 'string') throw new TypeError('accounts.get: accountId must be a string');
    const row = await this.db
      .selectFrom('accounts')
      .select(['id', 'display_name', 'registered', 'banned_until', 'ban_reason', 'created_at'])
      .where('id', '=', accountId)
      .executeTakeFirst();
    return row === undefined ? null : this.view(row);
  }

  async findByDisplayName(displayName: string): Promise<Account | null> {
    if (typeof displayName !== 'string')
      throw new TypeError('accounts.findByDisplayName: displayName must be a string');
    if (displayName.length > 200) return null;
    const row = await this.db
      .selectFrom('accounts')
      .select(['id', 'display_name', 'registered', 'banned_until', 'ban_reason', 'created_at'])
      .where('display_key', '=', foldDisplayName(displayName))
      .executeTakeFirst();
    return row === undefined ? null : this.view(row);
  }

  async ban(accountId: string, ban: { untilMs?: number; reason: string }): Promise<void> {
    if (typeof accountId !== 'string') throw new TypeError('accounts.ban: accountId must be a string');
    const { untilMs, reason } = ban ?? ({} as never);
    if (typeof reason !== 'string' || reason.length < 1 || reason.length > MAX_BAN_REASON_CHARS)
      throw new TypeError(`accounts.ban: reason must be 1-${MAX_BAN_REASON_CHARS} characters`);
    if (untilMs !== undefined && (!Number.isSafeInteger(untilMs) || untilMs <= 0 || untilMs >= FOREVER_MS))
      throw new RangeError(`accounts.ban: untilMs must be a unix time in ms, got ${untilMs}`);
    const changed = await this.db
      .updateTable('accounts')
      .set({ banned_until: untilMs ?? FOREVER_MS, ban_reason: reason, updated_at: this.nowMs() })
      .where('id', '=', accountId)
      .executeTakeFirst();
    if (changed.numUpdatedRows === 0n) throw new Error(`accounts.ban: no account ${accountId}`);
  }

  async unban(accountId: string): Promise<void> {
    if (typeof accountId !== 'string') throw new TypeError('accounts.unban: accountId must be a string');
    await this.db
      .updateTable('accounts')
      .set({ banned_until: null, ban_reason: null, updated_at: this.nowMs() })
      .where('id', '=', accountId)
      .execute();
  }

  /** The ban in force on `accountId` (one read by primary key), or null. */
  async banOf(accountId: string): Promise<BanState | null> {
    const row = await this.db
      .selectFrom('accounts')
      .select(['banned_until', 'ban_reason'])
      .where('id', '=', accountId)
      .executeTakeFirst();
    return row === undefined ? null : this.banIn(row);
  }

  /** POST /auth: the account the device or identity signs in as, made the first time. */
  async signIn(body: SignInBody): Promise<Account> {
    const found =
      'device' in body
        ? await this.signInDevice(body.device)
        : await this.signInIdentity(
            body.provider,
            await verifyIdentity(this.identities, body.provider, body.token),
          );
    if (found.ban !== null)
      throw new Refusal(403, `banned: ${found.ban.reason}`, { until: found.ban.untilMs });
    return found;
  }

  async rename(accountId: string, displayName: string): Promise<Account> {
    const problem = displayNameProblem(displayName);
    if (problem !== null) throw new Refusal(400, `displayName: ${problem}`);
    const name = normalizeDisplayName(displayName);
    try {
      const changed = await this.db
        .updateTable('accounts')
        .set({ display_name: name, display_key: foldDisplayName(name), updated_at: this.nowMs() })
        .where('id', '=', accountId)
        .executeTakeFirst();
      if (changed.numUpdatedRows === 0n) throw noAccount();
    } catch (error) {
      if (uniqueViolation(error)) throw new Refusal(409, `display name "${name}" is taken`);
      throw error;
    }
    return (await this.get(accountId)) ?? Promise.reject(noAccount());
  }

  async link(accountId: string, body: SignInBody): Promise<Account> {
    const externalId =
      'device' in body ? null : await verifyIdentity(this.identities, body.provider, body.token);
    await this.db.transaction().execute(async (trx) => {
      await lockAccount(trx, accountId);
      if ('device' in body) {
        const owner = await trx
          .selectFrom('account_devices')
          .select('account_id')
          .where('device_id', '=', body.device)
          .executeTakeFirst();
        if (owner !== undefined) {
          if (owner.account_id === accountId) return;
          throw new Refusal(409, 'this device is linked to another account');
        }
        const { count } = await trx
          .selectFrom('account_devices')
          .select((e) => e.fn.countAll<number>().as('count'))
          .where('account_id', '=', accountId)
          .executeTakeFirstOrThrow();
        if (Number(count) >= MAX_DEVICES_PER_ACCOUNT)
          throw new Refusal(409, `at most ${MAX_DEVICES_PER_ACCOUNT} devices an account`);
        await trx
          .insertInto('account_devices')
          .values({ device_id: body.device, account_id: accountId, created_at: this.nowMs() })
          .execute();
        return;
      }
      const provider = body.provider;
      const owner = await trx
        .selectFrom('account_identities')
        .select('account_id')
        .where('provider', '=', provider)
        .where('external_id', '=', externalId as string)
        .executeTakeFirst();
      if (owner !== undefined) {
        if (owner.account_id === accountId) return;
        throw new Refusal(409, `this ${provider} identity is linked to another account`);
      }
      const mine = await trx
        .selectFrom('account_identities')
        .select('external_id')
        .where('account_id', '=', accountId)
        .where('provider', '=', provider)
        .executeTakeFirst();
      if (mine !== undefined)
        throw new Refusal(409, `this account has a ${provider} identity already: unlink it first`);
      await trx
        .insertInto('account_identities')
        .values({
          provider,
          external_id: externalId as string,
          account_id: accountId,
          created_at: this.nowMs(),
        })
        .execute();
      await trx
        .updateTable('accounts')
        .set({ registered: true, updated_at: this.nowMs() })
        .where('id', '=', accountId)
        .execute();
    });
    return (await this.get(accountId)) ?? Promise.reject(noAccount());
  }

  /** Removes a device or an identity; never the last way to sign in. No identity left: a guest again. */
  async unlink(accountId: string, body: UnlinkBody): Promise<Account> {
    await this.db.transaction().execute(async (trx) => {
      await lockAccount(trx, accountId);
      const devices = await trx
        .selectFrom('account_devices')
        .select('device_id')
        .where('account_id', '=', accountId)
        .execute();
      const identities = await trx
        .selectFrom('account_identities')
        .select('provider')
        .where('account_id', '=', accountId)
        .execute();
      const has =
        'device' in body
          ? devices.some((d) => d.device_id === body.device)
          : identities.some((i) => i.provider === body.provider);
      if (!has)
        throw new Refusal(
          404,
          'device' in body
            ? 'no such device on this account'
            : `no ${body.provider} identity on this account`,
        );
      if (devices.length + identities.length <= 1)
        throw new Refusal(409, 'cannot unlink the last way to sign in: link another first');
      if ('device' in body) {
        await trx.deleteFrom('account_devices').where('device_id', '=', body.device).execute();
        return;
      }
      await trx
        .deleteFrom('account_identities')
        .where('account_id', '=', accountId)
        .where('provider', '=', body.provider)
        .execute();
      await trx
        .updateTable('accounts')
        .set({ registered: identities.length > 1, updated_at: this.nowMs() })
        .where('id', '=', accountId)
        .execute();
    });
    return (await this.get(accountId)) ?? Promise.reject(noAccount());
  }

  private async signInDevice(device: string): Promise<Account> {
    const existing = await this.byDevice(device);
    if (existing !== null) return existing;
    try {
      const id = randomId();
      const now = this.nowMs();
      await this.db.transaction().execute(async (trx) => {
        await trx.insertInto('accounts').values({ id, created_at: now, updated_at: now }).execute();
        await trx
          .insertInto('account_devices')
          .values({ device_id: device, account_id: id, created_at: now })
          .execute();
      });
    } catch (error) {
      if (!uniqueViolation(error)) throw error; // the same device signed in twice at once: one made it
    }
    return (await this.byDevice(device)) ?? Promise.reject(new Error('a new device account vanished'));
  }

  private async signInIdentity(provider: string, externalId: string): Promise<Account> {
    const existing = await this.byIdentity(provider, externalId);
    if (existing !== null) return existing;
    try {
      const id = randomId();
      const now = this.nowMs();
      await this.db.transaction().execute(async (trx) => {
        await trx
          .insertInto('accounts')
          .values({ id, registered: true, created_at: now, updated_at: now })
          .execute();
        await trx
          .insertInto('account_identities')
          .values({ provider, external_id: externalId, account_id: id, created_at: now })
          .execute();
      });
    } catch (error) {
      if (!uniqueViolation(error)) throw error;
    }
    return (
      (await this.byIdentity(provider, externalId)) ??
      Promise.reject(new Error('a new identity account vanished'))
    );
  }

  private async byDevice(device: string): Promise<Account | null> {
    const row = await this.db
      .selectFrom('account_devices')
      .select('account_id')
      .where('device_id', '=', device)
      .executeTakeFirst();
    return row === undefined ? null : this.get(row.account_id);
  }

  private async byIdentity(provider: string, externalId: string): Promise<Account | null> {
    const row = await this.db
      .selectFrom('account_identities')
      .select('account_id')
      .where('provider', '=', provider)
      .where('external_id', '=', externalId)
      .executeTakeFirst();
    return row === undefined ? null : this.get(row.account_id);
  }

  private banIn(row: { banned_until: number | null; ban_reason: string | null }): BanState | null {
    if (row.banned_until === null || row.banned_until <= this.nowMs()) return null;
    return {
      untilMs: row.banned_until >= FOREVER_MS ? null : row.banned_until,
      reason: row.ban_reason ?? 'banned',
    };
  }

  private async view(row: AccountRow): Promise<Account> {
    const [devices, identities] = await Promise.all([
      this.db
        .selectFrom('account_devices')
        .select(['device_id', 'created_at'])
        .where('account_id', '=', row.id)
        .orderBy('created_at')
        .execute(),
      this.db
        .selectFrom('account_identities')
        .select(['provider', 'external_id', 'created_at'])
        .where('account_id', '=', row.id)
        .orderBy('provider')
        .execute(),
    ]);
    return {
      id: row.id,
      displayName: row.display_name,
      registered: row.registered,
      devices: devices.map((d) => ({ hint: `${d.device_id.slice(0, 4)}…`, linkedAt: d.created_at })),
      identities: identities.map((i) => ({
        provider: i.provider,
        externalId: i.external_id,
        linkedAt: i.created_at,
      })),
      ban: this.banIn(row),
      createdAt: row.created_at,
    };
  }
}

async function lockAccount(trx: Transaction<GamerTables>, accountId: string): Promise<void> {
  const row = await trx
    .selectFrom('accounts')
    .select('id')
    .where('id', '=', accountId)
    .forUpdate()
    .executeTakeFirst();
  if (row === undefined) throw noAccount();
}

function noAccount(): Refusal {
  return new Refusal(404, 'no account for this session (sign in through POST /auth)');
}

/** PostgreSQL's unique_violation (SQLSTATE 23505), from node-postgres or PGlite. */
export function uniqueViolation(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === '23505';
}
