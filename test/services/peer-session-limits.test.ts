/**
 * What one user can keep of POST /peers sessions over a real HTTP backend: at most
 * maxSessionsPerUser it made live (429 past it, with the reason), each counting until it ends —
 * even once only another account holds it — and a session nobody holds a slot in lapses
 * emptySessionSeconds after its last holder left.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, describe, it } from 'node:test';
import { startLocalFleet } from '../../src/services/local-fleet.js';
import type { RendezvousOptions } from '../../src/services/peer-sessions.js';
import { player, refusal } from '../support/backend-players.js';
import { noteFactory } from '../support/matched-peers.js';

const PROTOCOL = 0x6c69_6d69_7473n;
const cleanups: (() => Promise<void> | void)[] = [];
after(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

async function fleetWith(rendezvous: Partial<RendezvousOptions>) {
  const fleet = await startLocalFleet({
    rooms: {},
    protocolId: PROTOCOL,
    factory: noteFactory,
    // Sessions by id need no live rendezvous: the backend only mints tokens for its address.
    backend: {
      rendezvous: { address: '127.0.0.1:9', privateKey: new Uint8Array(randomBytes(32)), ...rendezvous },
    },
  });
  cleanups.push(() => fleet.close());
  return fleet;
}

describe('per-user peer session limits', () => {
  it('a user making sessions past the default limit of 8 is refused 429 with the reason; one it left makes room once it lapses', async () => {
    const f = await fleetWith({ emptySessionSeconds: 0.3 });
    const [greedy, other] = await Promise.all([player(f.url, 'greedy'), player(f.url, 'other')]);
    const made = [];
    for (let i = 0; i < 8; i++) made.push(await greedy.createPeerSession(2));
    const refused = await refusal(greedy.createPeerSession(2));
    assert.equal(refused.status, 429);
    assert.match(refused.reason, /too many peer sessions.*8/);
    assert.equal((await other.createPeerSession(2)).peer, 0, 'the limit is per user');
    await greedy.leavePeerSession(made[3].sessionId);
    assert.equal((await refusal(greedy.createPeerSession(2))).status, 429, 'left, not yet lapsed');
    await new Promise((resolve) => setTimeout(resolve, 500));
    assert.equal((await greedy.createPeerSession(2)).peer, 0);
    assert.equal((await refusal(greedy.createPeerSession(2))).status, 429);
  });

  it('a session its last holder left lapses emptySessionSeconds later; one still held does not', async () => {
    const f = await fleetWith({ emptySessionSeconds: 0.3, maxSessionsPerUser: 2 });
    const [host, ann] = await Promise.all([player(f.url, 'host'), player(f.url, 'ann')]);
    const empty = await host.createPeerSession(2);
    const held = await host.createPeerSession(2);
    await host.leavePeerSession(empty.sessionId);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const gone = await refusal(ann.joinPeerSession(empty.sessionId));
    assert.equal(gone.status, 404);
    assert.equal((await ann.joinPeerSession(held.sessionId)).peer, 1, 'held by its host: still joinable');
    await host.createPeerSession(2);
    assert.equal(
      (await refusal(host.createPeerSession(2))).status,
      429,
      'the one left empty no longer counts',
    );
  });

  it('sessions a user made and left to a second account still count: the cap is not bypassed by two accounts', async () => {
    const f = await fleetWith({});
    const [alice, bob] = await Promise.all([player(f.url, 'alice'), player(f.url, 'bob')]);
    const handed = [];
    for (let i = 0; i < 8; i++) {
      const made = await alice.createPeerSession(2);
      assert.equal((await bob.joinPeerSession(made.sessionId)).peer, 1);
      await alice.leavePeerSession(made.sessionId);
      handed.push(made.sessionId);
    }
    const refused = await refusal(alice.createPeerSession(2));
    assert.equal(refused.status, 429, 'the 8 sessions Bob keeps alive are still Alice’s');
    assert.equal((await bob.joinPeerSession(handed[0])).peer, 1, 'and they live on for Bob');
  });
});
