/**
 * The player's account through the backend (GamerClient's `accounts`): sign in by a device or an
 * outside identity, read the account, pick a display name, link and unlink ways to sign in.
 *
 *   await gamer.accounts.signIn({ device: storedDeviceId() });
 *   await gamer.accounts.rename('Ann');
 */
import type { BackendClient, RequestOptions } from '../backend-client.js';

/** A way to sign in: this device's id, or a token an outside identity provider gave. */
export type SignInWith = { device: string } | { provider: string; token: string };

/** What the player is told of its own account. */
export interface AccountView {
  id: string;
  /** null until the player picks one. */
  displayName: string | null;
  /** Linked to an outside identity (a guest has devices only). */
  registered: boolean;
  /** The devices that sign in as it, by the id's first characters. */
  devices: { hint: string; linkedAt: number }[];
  identities: { provider: string; linkedAt: number }[];
  createdAt: number;
}

export class AccountsClient {
  constructor(private readonly backend: BackendClient) {}

  /** Signs in (the account is made the first time); the backend client keeps the session. */
  async signIn(
    how: SignInWith,
    request: RequestOptions = {},
  ): Promise<{ accountId: string; session: string; expiresAt: number }> {
    const answer = await this.backend.auth(signInBody(how), request);
    return { accountId: answer.userId, session: answer.session, expiresAt: answer.expiresAt };
  }

  get(request: RequestOptions = {}): Promise<AccountView> {
    return this.backend.request<AccountView>('GET', '/account', undefined, request);
  }

  /** 409 (BackendError) when another player has the name, by case and width. */
  rename(displayName: string, request: RequestOptions = {}): Promise<AccountView> {
    if (typeof displayName !== 'string') throw new TypeError('accounts.rename: displayName must be a string');
    return this.backend.request<AccountView>('PATCH', '/account', { displayName }, request);
  }

  /** Adds a way to sign in; an outside identity registers a guest. 409 when another account has it. */
  link(how: SignInWith, request: RequestOptions = {}): Promise<AccountView> {
    return this.backend.request<AccountView>('POST', '/account/link', signInBody(how), request);
  }

  /** Removes a device (its whole id) or a provider's identity; never the last way to sign in (409). */
  unlink(
    what: { device: string } | { provider: string },
    request: RequestOptions = {},
  ): Promise<AccountView> {
    const body =
      what !== null && typeof what === 'object' && 'device' in what
        ? { device: what.device }
        : { provider: (what as { provider: string }).provider };
    return this.backend.request<AccountView>('POST', '/account/unlink', body, request);
  }
}

function signInBody(how: SignInWith): SignInWith {
  if (how === null || typeof how !== 'object')
    throw new TypeError('accounts: give { device } or { provider, token }');
  if ('device' in how) {
    if (typeof how.device !== 'string') throw new TypeError('accounts: device must be a string');
    return { device: how.device };
  }
  if (typeof how.provider !== 'string' || typeof how.token !== 'string')
    throw new TypeError('accounts: provider and token must be strings');
  return { provider: how.provider, token: how.token };
}
