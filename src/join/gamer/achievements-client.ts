/**
 * Achievements through the backend (GamerClient's `achievements`): the signed-in player's
 * unlocked ones. An unlock also arrives as an event ({ kind: 'achievement', id, at }) on the
 * player's event stream, when one is open.
 */
import type { BackendClient, RequestOptions } from '../backend-client.js';

/** An achievement the player has. */
export interface UnlockedAchievement {
  id: string;
  /** When it was unlocked, unix ms. */
  at: number;
}

/** GamerClient's `achievements`: the player's unlocked achievements. */
export class AchievementsClient {
  constructor(private readonly backend: BackendClient) {}

  /** The player's unlocked achievements, oldest first. */
  async mine(options: RequestOptions = {}): Promise<UnlockedAchievement[]> {
    const answer = await this.backend.request<{ achievements: UnlockedAchievement[] }>(
      'GET',
      '/achievements',
      undefined,
      options,
    );
    return answer.achievements;
  }
}
