/**
 * POST /auth through the accounts (a backend given gamer services and no verify of its own): the
 * body is { device } or { provider, token }; the session's userId is the account id and its data
 * { name } the display name (null until the player picks one).
 */
import type { VerifyResult } from '../../backend-routes.js';
import { type SignInBody, signInSchema } from './account-schemas.js';
import type { AccountStore } from './account-store.js';

export interface AccountSignIn {
  readonly schema: typeof signInSchema;
  verify(body: unknown): Promise<VerifyResult>;
}

export function accountSignIn(accounts: AccountStore): AccountSignIn {
  return {
    schema: signInSchema,
    async verify(body) {
      const account = await accounts.signIn(body as SignInBody);
      return { userId: account.id, data: { name: account.displayName, registered: account.registered } };
    },
  };
}
