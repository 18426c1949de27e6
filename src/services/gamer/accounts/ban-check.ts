/**
 * The session check of every gamer route: the backend's (a valid session token, else 401), then
 * the account's ban, read by primary key at each request (one indexed read, no cache: a ban takes
 * effect at the player's next request). A banned player is answered 403 with the reason and
 * `until` (unix ms; null: for good). A session whose user has no account (a game's own verify)
 * is not banned.
 */
import type { MiddlewareHandler } from 'hono';
import type { BackendEnv } from '../../backend-routes.js';
import type { AccountStore } from './account-store.js';

export function banCheckedSession(
  session: MiddlewareHandler<BackendEnv>,
  accounts: AccountStore,
): MiddlewareHandler<BackendEnv> {
  return async (c, next) => {
    let signedIn = false;
    const refused = await session(c, async () => {
      signedIn = true;
    });
    if (!signedIn) return refused ?? c.json({ error: 'not signed in' }, 401);
    const ban = await accounts.banOf(c.get('session').userId);
    if (ban !== null) return c.json({ error: `banned: ${ban.reason}`, until: ban.untilMs }, 403);
    await next();
  };
}
