/**
 * A player's friends: requests, accept, remove, block, and the lists (friends with presence).
 *
 *   await gamer.friends.request(otherId);            // 'sent', or 'friends' when they asked first
 *   const { items } = await gamer.friends.list();    // friends, each with presence
 */
import type { BackendClient, RequestOptions } from '../backend-client.js';
import type { FriendPage, FriendState, RelationState } from './social-types.js';

export class FriendsClient {
  constructor(private readonly backend: BackendClient) {}

  /** One page of the relations in `state` (default friends), by account id. */
  list(
    state: FriendState = 'friends',
    options: { limit?: number; cursor?: string | null } & RequestOptions = {},
  ): Promise<FriendPage> {
    const query = new URLSearchParams({ state });
    if (options.limit !== undefined) query.set('limit', String(options.limit));
    if (options.cursor != null) query.set('cursor', options.cursor);
    return this.backend.request<FriendPage>('GET', `/friends?${query}`, undefined, options);
  }

  /** Sends a friend request, or accepts theirs. */
  async request(accountId: string, options: RequestOptions = {}): Promise<RelationState> {
    return (await this.backend.request<{ state: RelationState }>('POST', path(accountId), undefined, options))
      .state;
  }

  /** Removes a friend, declines their request or cancels one's own. */
  async remove(accountId: string, options: RequestOptions = {}): Promise<RelationState> {
    return (
      await this.backend.request<{ state: RelationState }>('DELETE', path(accountId), undefined, options)
    ).state;
  }

  async block(accountId: string, options: RequestOptions = {}): Promise<RelationState> {
    return (
      await this.backend.request<{ state: RelationState }>(
        'POST',
        `${path(accountId)}/block`,
        undefined,
        options,
      )
    ).state;
  }

  async unblock(accountId: string, options: RequestOptions = {}): Promise<RelationState> {
    return (
      await this.backend.request<{ state: RelationState }>(
        'DELETE',
        `${path(accountId)}/block`,
        undefined,
        options,
      )
    ).state;
  }
}

function path(accountId: string): string {
  if (typeof accountId !== 'string' || accountId === '') throw new TypeError('friends: give an account id');
  return `/friends/${encodeURIComponent(accountId)}`;
}
