/**
 * Players for the stats and leaderboards tests: an account row each (as the accounts module would
 * make it) and a session whose user id is the account's, through a backend verify that trusts the
 * name given (so these tests need nothing of the accounts module but its table).
 */
import assert from 'node:assert/strict';
import type { BackendOptions } from '../../src/services/backend.js';
import type { GamerHarness, GamerKit } from './gamer-kit.js';

export type Player = { id: string; session: string };

/** The backend options that sign in `{ name }` as the account id `name`. */
export const TRUSTING_AUTH: Partial<BackendOptions> = {
  verify: async (body: { name: string }) => ({ userId: body.name }),
} as Partial<BackendOptions>;

export async function addAccounts(kit: GamerKit, ids: readonly string[], nowMs = 1): Promise<void> {
  for (let i = 0; i < ids.length; i += 1000)
    await kit.database.db
      .insertInto('accounts')
      .values(
        ids
          .slice(i, i + 1000)
          .map((id) => ({ id, display_name: `name-${id}`, created_at: nowMs, updated_at: nowMs })),
      )
      .execute();
}

export async function signIn(harness: GamerHarness, id: string): Promise<Player> {
  const answer = await harness.call<{ session: string; userId: string }>('POST', '/auth', {
    body: { name: id },
  });
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
  assert.equal(answer.body.userId, id);
  return { id, session: answer.body.session };
}

export async function players(
  harness: GamerHarness,
  kit: GamerKit,
  ids: readonly string[],
): Promise<Player[]> {
  await addAccounts(kit, ids);
  return Promise.all(ids.map((id) => signIn(harness, id)));
}
