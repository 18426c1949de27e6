/**
 * Outside identities: the game's verifiers, one a provider (Steam, an OpenID provider …), each
 * checking a token and answering the player's id with that provider. Checked at
 * openGamerServices; asked at a sign-in or a link.
 */
import { Refusal } from '../../backend-refusal.js';

/** Checks an outside identity's token: its id with the provider, or null (refused). */
export type IdentityVerifier = (token: string) => Promise<{ externalId: string } | null>;

const MAX_EXTERNAL_ID_CHARS = 256;

/** The identity verifiers `identities` gives, checked (at openGamerServices: misuse throws there). */
export function checkIdentities(
  identities: Readonly<Record<string, IdentityVerifier>> = {},
): Readonly<Record<string, IdentityVerifier>> {
  if (identities === null || typeof identities !== 'object')
    throw new TypeError('openGamerServices: identities must be { provider: async (token) => ... }');
  for (const [name, verifier] of Object.entries(identities)) {
    if (!/^[a-z0-9_-]{1,32}$/.test(name))
      throw new TypeError(`openGamerServices: identity provider "${name}" must be 1-32 of a-z 0-9 _ -`);
    if (typeof verifier !== 'function')
      throw new TypeError(`openGamerServices: identities.${name} must be a function`);
  }
  return identities;
}

/**
 * The player's id with `provider` for `token`: 400 for an unknown provider, 401 for a refused
 * token, 503 when the verifier throws (its provider unreachable).
 */
export async function verifyIdentity(
  identities: ReadonlyMap<string, IdentityVerifier>,
  provider: string,
  token: string,
): Promise<string> {
  const verifier = identities.get(provider);
  if (verifier === undefined) throw new Refusal(400, `no identity provider "${provider}"`);
  let verdict: { externalId: string } | null;
  try {
    verdict = await verifier(token);
  } catch (error) {
    // The provider could not be asked (its service down, say): retry later, as for a database.
    const message = error instanceof Error ? error.message : String(error);
    throw new Refusal(503, `${provider} could not check the token: ${message.slice(0, 120)}`);
  }
  if (verdict === null) throw new Refusal(401, `${provider} refused the token`);
  const externalId = (verdict as { externalId?: unknown } | undefined)?.externalId;
  if (typeof externalId !== 'string' || externalId.length < 1 || externalId.length > MAX_EXTERNAL_ID_CHARS)
    throw new TypeError(
      `identities.${provider} must answer { externalId: 1-${MAX_EXTERNAL_ID_CHARS} characters } or null`,
    );
  return externalId;
}
