/**
 * The gamer services' client for a page or a Node process: accounts, stats, leaderboards, friends
 * and presence, storage, through the backend's routes (fetch only), with the BackendClient's
 * session.
 *
 *   const backend = new BackendClient({ url });
 *   const gamer = new GamerClient(backend);
 */
import { BackendClient } from './backend-client.js';

export class GamerClient {
  constructor(readonly backend: BackendClient) {
    if (!(backend instanceof BackendClient)) throw new TypeError('GamerClient: give it a BackendClient');
  }
}
