/** openGamerServices: its options checked at the call, and each store kit opening on its own kind. */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { createBackend } from '../../src/services/backend.js';
import { EmbeddedDirectory } from '../../src/services/embedded-directory.js';
import { openGamerServices } from '../../src/services/gamer/gamer-services.js';
import { PRIVATE_KEY, PROTOCOL_ID } from '../support/backend-fixture.js';
import { describeOnGamerStores } from '../support/gamer-kit.js';

it('refuses misuse at the call', async () => {
  await assert.rejects(openGamerServices({ nowMs: 5 as never }), /nowMs must be a function/);
  assert.throws(
    () =>
      createBackend({
        directory: new EmbeddedDirectory(),
        privateKey: PRIVATE_KEY,
        protocolId: PROTOCOL_ID,
        gamer: { databaseKind: 'embedded', close: async () => {} } as never,
      }),
    /gamer must come from openGamerServices/,
  );
});

describeOnGamerStores('gamer services', (kit) => {
  it('opens on its store, mounted on a backend', async () => {
    const harness = await kit().open();
    try {
      assert.equal(harness.gamer.databaseKind, kit().name === 'embedded' ? 'embedded' : 'postgres');
      const answer = await harness.call('GET', '/no-such-route');
      assert.equal(answer.status, 404);
    } finally {
      await harness.close();
    }
  });
});
