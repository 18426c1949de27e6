/**
 * The player's own presence: online while an event stream is open (gamer.events), away when it
 * says so; in-match is set by the game's server, never by the player.
 */
import type { BackendClient, RequestOptions } from '../backend-client.js';
import type { PresenceView } from './social-types.js';

export class PresenceClient {
  constructor(private readonly backend: BackendClient) {}

  async set(state: 'online' | 'away', options: RequestOptions = {}): Promise<PresenceView> {
    if (state !== 'online' && state !== 'away')
      throw new TypeError(`presence.set: 'online' or 'away', got ${String(state)}`);
    return (await this.backend.request<{ presence: PresenceView }>('POST', '/presence', { state }, options))
      .presence;
  }
}
