/**
 * Stats through the backend (GamerClient's `stats`): read only — a player's stats change only when
 * the game's server updates them.
 *
 *   const { zaps = 0 } = await gamer.stats.mine();
 *   const rival = await gamer.stats.of(rivalId);
 */
import type { BackendClient, RequestOptions } from '../backend-client.js';

/** GamerClient's `stats`: the player's and others' stats, read only. */
export class StatsClient {
  constructor(private readonly backend: BackendClient) {}

  /** The signed-in player's stats by name (those it has). */
  async mine(options: RequestOptions = {}): Promise<Record<string, number>> {
    return (
      await this.backend.request<{ stats: Record<string, number> }>('GET', '/stats', undefined, options)
    ).stats;
  }

  /** Another player's stats (stats are public to signed-in players). */
  async of(accountId: string, options: RequestOptions = {}): Promise<Record<string, number>> {
    if (typeof accountId !== 'string' || accountId === '')
      throw new TypeError('stats.of: accountId must be a non-empty string');
    const path = `/stats/${encodeURIComponent(accountId)}`;
    return (await this.backend.request<{ stats: Record<string, number> }>('GET', path, undefined, options))
      .stats;
  }
}
