/**
 * The zod schemas of the accounts' bodies: a sign-in (POST /auth), a link, an unlink, a rename.
 * Strict objects: an unknown key (an `accountId`, say) is refused, not ignored.
 */
import { importOptional } from '../../../transport/optional-dependency.js';
import { displayNameProblem } from './display-names.js';

const { z } = await importOptional('zod', 'ghostwire gamer services', () => import('zod'));

/**
 * A device id: 16–128 characters of base64url's alphabet (what AccountsClient's newDeviceId
 * makes: 22). It signs in as its account, so it is kept like a password and never shown whole.
 */
export const deviceIdSchema = z
  .string()
  .min(16)
  .max(128)
  .regex(/^[A-Za-z0-9_-]+$/, 'must be letters, digits, "_" or "-"');

/** An identity provider's name, as given in openGamerServices({ identities }). */
export const providerSchema = z
  .string()
  .min(1)
  .max(32)
  .regex(/^[a-z0-9_-]+$/, 'must be lowercase letters, digits, "_" or "-"');

/** An outside identity's token (a Steam ticket, an OpenID token …), checked by the game's verifier. */
export const identityTokenSchema = z.string().min(1).max(8192);

const deviceBody = z.strictObject({ device: deviceIdSchema });
const identityBody = z.strictObject({ provider: providerSchema, token: identityTokenSchema });

/** POST /auth with gamer services: a device, or an outside identity. */
export const signInSchema = z.union([deviceBody, identityBody]);

/** POST /account/link: as a sign-in. */
export const linkSchema = signInSchema;

/** POST /account/unlink: a device (its whole id) or a provider. */
export const unlinkSchema = z.union([deviceBody, z.strictObject({ provider: providerSchema })]);

export const renameSchema = z.strictObject({
  displayName: z
    .string()
    .max(200)
    .superRefine((name, ctx) => {
      const problem = displayNameProblem(name);
      if (problem !== null) ctx.addIssue({ code: 'custom', message: problem });
    }),
});

export type SignInBody = { device: string } | { provider: string; token: string };
export type UnlinkBody = { device: string } | { provider: string };
