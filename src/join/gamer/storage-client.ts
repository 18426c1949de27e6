/**
 * The player's storage through the backend (GamerClient's `storage`): JSON documents by
 * collection and key, each with a version. A write names the version it read to be sure it
 * overwrites nothing newer (0: create only); a conflict answers the current version.
 *
 *   const save = await gamer.storage.get('saves', 'slot-1');
 *   const done = await gamer.storage.put('saves', 'slot-1', state, { version: save?.version ?? 0 });
 *   if (!done.ok) // someone wrote version done.currentVersion first: read it again, merge, retry
 */
import { type BackendClient, BackendError, type RequestOptions } from '../backend-client.js';

export interface StoredDocument {
  collection: string;
  key: string;
  value: unknown;
  version: number;
  /** Who may read it: its owner only, or every player. */
  read: 'owner' | 'public';
  /** Who may write it: its owner, or only the game's server. */
  write: 'owner' | 'server';
  updatedAt: number;
}

/** A write's outcome: the version written, or the version that was there instead (0: none). */
export type StoragePutResult = { ok: true; version: number } | { ok: false; currentVersion: number };

export class StorageClient {
  constructor(private readonly backend: BackendClient) {}

  /** The player's own document, or another player's public one (`owner`); null when absent or private. */
  async get(
    collection: string,
    key: string,
    options: { owner?: string } & RequestOptions = {},
  ): Promise<StoredDocument | null> {
    const query = options.owner === undefined ? '' : `?owner=${encodeURIComponent(options.owner)}`;
    try {
      return await this.backend.request<StoredDocument>(
        'GET',
        `${path(collection, key)}${query}`,
        undefined,
        options,
      );
    } catch (error) {
      if (error instanceof BackendError && error.status === 404) return null;
      throw error;
    }
  }

  /** Writes `value` (JSON) to the player's own document; `read: 'public'` lets every player read it. */
  async put(
    collection: string,
    key: string,
    value: unknown,
    options: { version?: number; read?: 'owner' | 'public' } & RequestOptions = {},
  ): Promise<StoragePutResult> {
    const { version, read } = options;
    const body: Record<string, unknown> = { value };
    if (version !== undefined) body.version = version;
    if (read !== undefined) body.read = read;
    try {
      const answer = await this.backend.request<{ version: number }>(
        'PUT',
        path(collection, key),
        body,
        options,
      );
      return { ok: true, version: answer.version };
    } catch (error) {
      const conflict = versionConflict(error);
      if (conflict !== null) return { ok: false, currentVersion: conflict };
      throw error;
    }
  }

  /** Deletes the player's own document (only if at `version`, when given). */
  async delete(
    collection: string,
    key: string,
    options: { version?: number } & RequestOptions = {},
  ): Promise<StoragePutResult> {
    const query = options.version === undefined ? '' : `?version=${options.version}`;
    try {
      const answer = await this.backend.request<{ version: number }>(
        'DELETE',
        `${path(collection, key)}${query}`,
        undefined,
        options,
      );
      return { ok: true, version: answer.version };
    } catch (error) {
      const conflict = versionConflict(error);
      if (conflict !== null) return { ok: false, currentVersion: conflict };
      throw error;
    }
  }

  /** A page of the player's documents in `collection`, by key; give `cursor` back for the next. */
  list(
    collection: string,
    options: { cursor?: string; limit?: number } & RequestOptions = {},
  ): Promise<{ documents: StoredDocument[]; cursor: string | null }> {
    const query = new URLSearchParams();
    if (options.cursor !== undefined) query.set('cursor', options.cursor);
    if (options.limit !== undefined) query.set('limit', String(options.limit));
    const tail = query.toString() === '' ? '' : `?${query}`;
    return this.backend.request(
      'GET',
      `/storage/${encodeURIComponent(collection)}${tail}`,
      undefined,
      options,
    );
  }
}

function path(collection: string, key: string): string {
  if (typeof collection !== 'string' || typeof key !== 'string')
    throw new TypeError('storage: collection and key must be strings');
  return `/storage/${encodeURIComponent(collection)}/${encodeURIComponent(key)}`;
}

function versionConflict(error: unknown): number | null {
  if (!(error instanceof BackendError) || error.status !== 409) return null;
  const version = error.details.version;
  return typeof version === 'number' ? version : null;
}
