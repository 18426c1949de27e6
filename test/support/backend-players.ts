import assert from 'node:assert/strict';
import { BackendClient, BackendError } from '../../src/join/backend-client.js';

/** A guest signed in to the backend at `url` (each call is a fresh user under the guest verifier). */
export async function player(url: string, name: string): Promise<BackendClient> {
  const client = new BackendClient({ url });
  await client.auth({ name });
  return client;
}

/** The backend's refusal of `promise`; fails the test when it was granted. */
export async function refusal(promise: Promise<unknown>): Promise<BackendError> {
  const error = await promise.then(
    () => assert.fail('expected a refusal'),
    (e: unknown) => e,
  );
  assert.ok(error instanceof BackendError, String(error));
  return error;
}
