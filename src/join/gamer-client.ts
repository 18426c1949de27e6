/**
 * The gamer services' client for a page or a Node process: accounts, stats, leaderboards, friends
 * and presence, storage, through the backend's routes (fetch only), with the BackendClient's
 * session.
 *
 *   const backend = new BackendClient({ url });
 *   const gamer = new GamerClient(backend);
 *   await gamer.accounts.signIn({ device: storedDeviceId() });
 *   const save = await gamer.storage.get('saves', 'slot-1');
 *   const best = await gamer.leaderboards.top('zaps');
 */
import { BackendClient } from './backend-client.js';
import { AccountsClient } from './gamer/accounts-client.js';
import { AchievementsClient } from './gamer/achievements-client.js';
import { EventsClient } from './gamer/events-client.js';
import { FriendsClient } from './gamer/friends-client.js';
import { LeaderboardsClient } from './gamer/leaderboards-client.js';
import { PresenceClient } from './gamer/presence-client.js';
import { StatsClient } from './gamer/stats-client.js';
import { StorageClient } from './gamer/storage-client.js';

export class GamerClient {
  /** Sign in, the account, display name, links. */
  readonly accounts: AccountsClient;
  /** The player's documents. */
  readonly storage: StorageClient;
  /** The player's stats, and others' (read only). */
  readonly stats: StatsClient;
  /** The player's unlocked achievements. */
  readonly achievements: AchievementsClient;
  /** Top, around the player, friends; current and archived periods. */
  readonly leaderboards: LeaderboardsClient;
  /** Friend requests, accept, remove, block, and the lists with presence. */
  readonly friends: FriendsClient;
  /** The player's own presence (online or away). */
  readonly presence: PresenceClient;
  /** The player's event stream: subscribe(listener) -> stop. */
  readonly events: EventsClient;

  constructor(readonly backend: BackendClient) {
    if (!(backend instanceof BackendClient)) throw new TypeError('GamerClient: give it a BackendClient');
    this.accounts = new AccountsClient(backend);
    this.storage = new StorageClient(backend);
    this.stats = new StatsClient(backend);
    this.achievements = new AchievementsClient(backend);
    this.leaderboards = new LeaderboardsClient(backend);
    this.friends = new FriendsClient(backend);
    this.presence = new PresenceClient(backend);
    this.events = new EventsClient(backend);
  }
}
