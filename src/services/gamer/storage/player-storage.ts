/**
 * Player storage in the gamer database: JSON documents by (player, collection, key), each with a
 * version every write raises by one. A write names the version it read (0: create only; absent:
 * whatever is there); another version is a conflict answered with the current one. Each write is
 * one transaction that first locks the player's account row, so one player's writes (and the
 * count of its documents) run one after the other, from any number of backends.
 */
import { Buffer } from 'node:buffer';
import type { Kysely, Transaction } from 'kysely';
import type { GamerContext } from '../gamer-context.js';
import type { GamerTables } from '../gamer-tables.js';
import { jsonShapeProblem } from './json-shape.js';
import { STORAGE_NAME, type StorageLimits } from './storage-limits.js';

export type StorageRead = 'owner' | 'public';
export type StorageWrite = 'owner' | 'server';

export interface StorageDocument {
  collection: string;
  key: string;
  value: unknown;
  version: number;
  /** Who may read it: its owner only, or every player. */
  read: StorageRead;
  /** Who may write it: its owner, or only the server (gamer.storage.write). */
  write: StorageWrite;
  /** Unix ms of the last write. */
  updatedAt: number;
}

export interface StorageWriteOptions {
  /** The version the write expects: 0 creates only, n writes only over version n, absent: any. */
  version?: number;
  /** Default: the document's current setting, 'owner' for a new one. */
  read?: StorageRead;
  /** Default: the document's current setting, 'owner' for a new one. */
  write?: StorageWrite;
}

/** A write's or delete's outcome: done (the version written or deleted), or another version was there (0: none). */
export type StorageWriteResult = { ok: true; version: number } | { ok: false; currentVersion: number };

/** The server-side API: `gamer.storage`, which may write any document (a 'server' one too). */
export interface GamerStorage {
  read(accountId: string, collection: string, key: string): Promise<StorageDocument | null>;
  write(
    accountId: string,
    collection: string,
    key: string,
    value: unknown,
    options?: StorageWriteOptions,
  ): Promise<StorageWriteResult>;
  delete(
    accountId: string,
    collection: string,
    key: string,
    options?: { version?: number },
  ): Promise<StorageWriteResult>;
  /** A page of the player's documents in `collection`, by key; `cursor` continues from the last. */
  list(
    accountId: string,
    collection: string,
    page?: { cursor?: string; limit?: number },
  ): Promise<StoragePage>;
}

export interface StoragePage {
  documents: StorageDocument[];
  /** Give it back for the next page; null: no more. */
  cursor: string | null;
}

/** Why a write did not happen. */
export type StorageRefusal =
  | { refused: 'version'; currentVersion: number }
  | { refused: 'server-only' }
  | { refused: 'full'; max: number }
  | { refused: 'no-account' }
  | { refused: 'missing' };

type Writer = 'player' | 'server';

const COLUMNS = ['collection', 'key', 'value', 'version', 'read', 'write', 'updated_at'] as const;

export class PlayerStorage implements GamerStorage {
  private readonly db: Kysely<GamerTables>;
  private readonly nowMs: () => number;

  constructor(
    context: GamerContext,
    readonly limits: Readonly<StorageLimits>,
  ) {
    this.db = context.db;
    this.nowMs = context.nowMs;
  }

  async read(accountId: string, collection: string, key: string): Promise<StorageDocument | null> {
    checkNames('storage.read', accountId, collection, key);
    return this.readAs(accountId, collection, key, false);
  }

  async write(
    accountId: string,
    collection: string,
    key: string,
    value: unknown,
    options: StorageWriteOptions = {},
  ): Promise<StorageWriteResult> {
    checkNames('storage.write', accountId, collection, key);
    const problem = this.valueProblem(value);
    if (problem !== null) throw new TypeError(`storage.write: value: ${problem}`);
    checkOptions('storage.write', options);
    const done = await this.put('server', accountId, collection, key, value, options);
    if ('refused' in done) {
      if (done.refused === 'version') return { ok: false, currentVersion: done.currentVersion };
      if (done.refused === 'full')
        throw new RangeError(`storage.write: ${accountId} holds ${done.max} documents already`);
      throw new Error(`storage.write: no account ${accountId}`);
    }
    return { ok: true, version: done.version };
  }

  async delete(
    accountId: string,
    collection: string,
    key: string,
    options: { version?: number } = {},
  ): Promise<StorageWriteResult> {
    checkNames('storage.delete', accountId, collection, key);
    checkOptions('storage.delete', options);
    const done = await this.remove('server', accountId, collection, key, options.version);
    if ('refused' in done)
      return { ok: false, currentVersion: 'currentVersion' in done ? done.currentVersion : 0 };
    return { ok: true, version: done.version };
  }

  async list(
    accountId: string,
    collection: string,
    page: { cursor?: string; limit?: number } = {},
  ): Promise<StoragePage> {
    checkNames('storage.list', accountId, collection, 'x');
    const limit = page.limit ?? this.limits.maxPageSize;
    if (!Number.isSafeInteger(limit) || limit < 1 || limit > this.limits.maxPageSize)
      throw new RangeError(`storage.list: limit must be 1..${this.limits.maxPageSize}, got ${limit}`);
    if (page.cursor !== undefined && !STORAGE_NAME.test(page.cursor))
      throw new TypeError('storage.list: cursor must be a key a page answered');
    let query = this.db
      .selectFrom('storage')
      .select(COLUMNS)
      .where('account_id', '=', accountId)
      .where('collection', '=', collection);
    if (page.cursor !== undefined) query = query.where('key', '>', page.cursor);
    const rows = await query
      .orderBy('key')
      .limit(limit + 1)
      .execute();
    const more = rows.length > limit;
    const documents = rows.slice(0, limit).map(toDocument);
    return { documents, cursor: more ? documents[documents.length - 1].key : null };
  }

  /** A document its owner reads (any), or another player reads (public ones only). */
  async readAs(
    owner: string,
    collection: string,
    key: string,
    publicOnly: boolean,
  ): Promise<StorageDocument | null> {
    let query = this.db
      .selectFrom('storage')
      .select(COLUMNS)
      .where('account_id', '=', owner)
      .where('collection', '=', collection)
      .where('key', '=', key);
    if (publicOnly) query = query.where('read', '=', 'public');
    const row = await query.executeTakeFirst();
    return row === undefined ? null : toDocument(row);
  }

  /** Why `value` cannot be stored (shape or size), or null. */
  valueProblem(value: unknown): string | null {
    const shape = jsonShapeProblem(value, this.limits.maxDepth, this.limits.maxNodes);
    if (shape !== null) return shape;
    const bytes = Buffer.byteLength(JSON.stringify(value));
    if (bytes > this.limits.maxValueBytes)
      return `${bytes} bytes of JSON, over the limit of ${this.limits.maxValueBytes}`;
    return null;
  }

  /** One write, checked and applied in one transaction (the value already checked). */
  async put(
    by: Writer,
    accountId: string,
    collection: string,
    key: string,
    value: unknown,
    options: StorageWriteOptions,
  ): Promise<{ version: number } | StorageRefusal> {
    const json = JSON.stringify(value);
    const bytes = Buffer.byteLength(json);
    return this.db.transaction().execute(async (trx) => {
      if (!(await lockAccount(trx, accountId))) return { refused: 'no-account' } as const;
      const current = await trx
        .selectFrom('storage')
        .select(['version', 'read', 'write'])
        .where('account_id', '=', accountId)
        .where('collection', '=', collection)
        .where('key', '=', key)
        .executeTakeFirst();
      if (by === 'player' && current?.write === 'server') return { refused: 'server-only' } as const;
      const currentVersion = current?.version ?? 0;
      if (options.version !== undefined && options.version !== currentVersion)
        return { refused: 'version', currentVersion } as const;
      const now = this.nowMs();
      if (current === undefined) {
        const { count } = await trx
          .selectFrom('storage')
          .select((e) => e.fn.countAll<number>().as('count'))
          .where('account_id', '=', accountId)
          .executeTakeFirstOrThrow();
        if (Number(count) >= this.limits.maxDocumentsPerPlayer)
          return { refused: 'full', max: this.limits.maxDocumentsPerPlayer } as const;
        await trx
          .insertInto('storage')
          .values({
            account_id: accountId,
            collection,
            key,
            value: json,
            version: 1,
            read: options.read ?? 'owner',
            write: options.write ?? 'owner',
            bytes,
            updated_at: now,
          })
          .execute();
        return { version: 1 };
      }
      const version = currentVersion + 1;
      await trx
        .updateTable('storage')
        .set({
          value: json,
          version,
          read: options.read ?? current.read,
          write: options.write ?? current.write,
          bytes,
          updated_at: now,
        })
        .where('account_id', '=', accountId)
        .where('collection', '=', collection)
        .where('key', '=', key)
        .execute();
      return { version };
    });
  }

  /** One delete, checked and applied in one transaction: answers the version deleted. */
  async remove(
    by: Writer,
    accountId: string,
    collection: string,
    key: string,
    expected: number | undefined,
  ): Promise<{ version: number } | StorageRefusal> {
    return this.db.transaction().execute(async (trx) => {
      if (!(await lockAccount(trx, accountId))) return { refused: 'no-account' } as const;
      const current = await trx
        .selectFrom('storage')
        .select(['version', 'write'])
        .where('account_id', '=', accountId)
        .where('collection', '=', collection)
        .where('key', '=', key)
        .executeTakeFirst();
      if (current === undefined)
        return expected === undefined || expected === 0
          ? ({ refused: 'missing' } as const)
          : ({ refused: 'version', currentVersion: 0 } as const);
      if (by === 'player' && current.write === 'server') return { refused: 'server-only' } as const;
      if (expected !== undefined && expected !== current.version)
        return { refused: 'version', currentVersion: current.version } as const;
      await trx
        .deleteFrom('storage')
        .where('account_id', '=', accountId)
        .where('collection', '=', collection)
        .where('key', '=', key)
        .execute();
      return { version: current.version };
    });
  }
}

/** Locks the player's account row for the transaction; false when there is no such account. */
async function lockAccount(trx: Transaction<GamerTables>, accountId: string): Promise<boolean> {
  const row = await trx
    .selectFrom('accounts')
    .select('id')
    .where('id', '=', accountId)
    .forUpdate()
    .executeTakeFirst();
  return row !== undefined;
}

function toDocument(row: {
  collection: string;
  key: string;
  value: unknown;
  version: number;
  read: StorageRead;
  write: StorageWrite;
  updated_at: number;
}): StorageDocument {
  return {
    collection: row.collection,
    key: row.key,
    value: row.value,
    version: row.version,
    read: row.read,
    write: row.write,
    updatedAt: row.updated_at,
  };
}

function checkNames(call: string, accountId: string, collection: string, key: string): void {
  if (typeof accountId !== 'string' || accountId.length < 1 || accountId.length > 64)
    throw new TypeError(`${call}: accountId must be an account id`);
  if (typeof collection !== 'string' || !STORAGE_NAME.test(collection))
    throw new TypeError(`${call}: collection must be 1-64 of letters, digits, _ . -`);
  if (typeof key !== 'string' || !STORAGE_NAME.test(key))
    throw new TypeError(`${call}: key must be 1-64 of letters, digits, _ . -`);
}

function checkOptions(call: string, options: StorageWriteOptions): void {
  if (options === null || typeof options !== 'object')
    throw new TypeError(`${call}: options must be an object`);
  const { version, read, write } = options;
  if (version !== undefined && (!Number.isSafeInteger(version) || version < 0))
    throw new RangeError(`${call}: version must be an integer >= 0, got ${version}`);
  if (read !== undefined && read !== 'owner' && read !== 'public')
    throw new TypeError(`${call}: read must be 'owner' or 'public'`);
  if (write !== undefined && write !== 'owner' && write !== 'server')
    throw new TypeError(`${call}: write must be 'owner' or 'server'`);
}
