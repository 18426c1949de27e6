/**
 * The page's side of the demo's gamer services: it signs in with the device id it keeps in
 * localStorage (the same account after a reload), so its zaps count for that account. A server
 * without them (the zoned demo) answers 404: the page then plays as a guest of the game.
 */
import { BackendClient, GamerClient, storedDeviceId } from '../src/browser.js';

export interface DemoAccount {
  readonly gamer: GamerClient;
  readonly accountId: string;
  /** For the join request's Authorization header. */
  readonly session: string;
}

/** Signs in to the demo's /api, or null when the server has no gamer services or refuses. */
export async function signInToDemo(status: { accountId: string | null }): Promise<DemoAccount | null> {
  const gamer = new GamerClient(
    new BackendClient({ url: new URL('/api', location.href).href, timeoutMs: 5000 }),
  );
  try {
    const { accountId, session } = await gamer.accounts.signIn({ device: storedDeviceId() });
    status.accountId = accountId;
    return { gamer, accountId, session };
  } catch {
    return null; // no gamer services here, or no localStorage: play as a guest
  }
}
