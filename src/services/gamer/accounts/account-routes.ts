/**
 * The signed-in player's account routes: GET /account, PATCH /account { displayName },
 * POST /account/link { device } | { provider, token }, POST /account/unlink { device } | { provider }.
 * None takes an account id: a player reaches its own account only.
 */
import type { Hono, MiddlewareHandler } from 'hono';
import type { BackendEnv } from '../../backend-routes.js';
import { validate } from '../../backend-schemas.js';
import { linkSchema, renameSchema, unlinkSchema } from './account-schemas.js';
import type { Account, AccountStore } from './account-store.js';

/** What a player is told of its own account: no ban (it could not ask), no outside ids. */
export function playerView(account: Account) {
  return {
    id: account.id,
    displayName: account.displayName,
    registered: account.registered,
    devices: account.devices,
    identities: account.identities.map((i) => ({ provider: i.provider, linkedAt: i.linkedAt })),
    createdAt: account.createdAt,
  };
}

export function addAccountRoutes(
  app: Hono<BackendEnv>,
  session: MiddlewareHandler<BackendEnv>,
  accounts: AccountStore,
): void {
  app.get('/account', session, async (c) => {
    const account = await accounts.get(c.get('session').userId);
    if (account === null)
      return c.json({ error: 'no account for this session (sign in through POST /auth)' }, 404);
    return c.json(playerView(account));
  });

  app.patch('/account', session, validate('json', renameSchema), async (c) => {
    const { displayName } = c.req.valid('json');
    return c.json(playerView(await accounts.rename(c.get('session').userId, displayName)));
  });

  app.post('/account/link', session, validate('json', linkSchema), async (c) => {
    return c.json(playerView(await accounts.link(c.get('session').userId, c.req.valid('json'))));
  });

  app.post('/account/unlink', session, validate('json', unlinkSchema), async (c) => {
    return c.json(playerView(await accounts.unlink(c.get('session').userId, c.req.valid('json'))));
  });
}
