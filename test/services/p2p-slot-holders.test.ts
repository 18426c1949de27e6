/**
 * A slot's token names its holding: over a real HTTP backend and a real rendezvous on loopback
 * UDP, a token the backend issued for a slot before it passed on (or before its holder was given
 * a newer one) never registers, so it can neither push out the slot's holder nor reach the host
 * as that peer.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { type LocalFleet, startLocalFleet } from '../../src/services/local-fleet.js';
import { player } from '../support/backend-players.js';
import { Note, noteFactory, openPeers } from '../support/matched-peers.js';
import { until } from '../support/until.js';

const PROTOCOL = 0x736c_6f74_686fn;
const cleanups: (() => Promise<void> | void)[] = [];
after(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

let fleet: LocalFleet | null = null;
async function theFleet(): Promise<LocalFleet> {
  fleet ??= await startLocalFleet({
    rooms: {},
    protocolId: PROTOCOL,
    factory: noteFactory,
    rendezvous: true,
  });
  cleanups.push(() => fleet?.close());
  return fleet;
}

/** Sends a note from `peers`' first links to `to` over its PeerConnection. */
function say(peers: Awaited<ReturnType<typeof openPeers>>, to: number, text: string): void {
  const connection = peers.connections[0].get(to);
  assert.ok(connection, `connected to ${to}`);
  connection.channels.send(0, Note, { from: peers.links[0].self, text });
}

describe('slot holders at the rendezvous', () => {
  it('a spare token of a slot that passed on cannot take it back from its new holder', async () => {
    const f = await theFleet();
    const [hostClient, attacker, newcomer] = await Promise.all(
      ['host', 'mallory', 'newcomer'].map((n) => player(f.url, n)),
    );
    const made = await hostClient.createPeerSession(2);
    const used = await attacker.joinPeerSession(made.sessionId);
    const spare = await attacker.joinPeerSession(made.sessionId);
    assert.equal(spare.peer, used.peer);
    const host = await openPeers([made]);
    cleanups.push(() => host.close());
    const first = await openPeers([used]);
    await until('the attacker connected', 8000, () => host.links[0].connectedPeers().includes(1));
    first.close();
    await attacker.leavePeerSession(made.sessionId);

    const seat = await newcomer.joinPeerSession(made.sessionId);
    assert.equal(seat.peer, 1, 'the slot passed on');
    const honest = await openPeers([seat]);
    cleanups.push(() => honest.close());
    await until('the newcomer connected', 8000, () => honest.links[0].connectedPeers().includes(0));
    const stale = f.rendezvous?.counters.tokenStale ?? 0;

    // The spare token, from a fresh socket as a rebuilt client would.
    const hijack = await openPeers([spare]);
    cleanups.push(() => hijack.close());
    await until('the spare token refused', 8000, () => hijack.links[0].rendezvousState === 'refused');
    assert.equal(f.rendezvous?.counters.tokenStale, stale + 1);
    say(honest, 0, 'still me');
    await until('the host hears the newcomer', 8000, () => host.notes[0].includes('1:still me'));
    assert.equal(honest.links[0].rendezvousState, 'registered');
    assert.deepEqual(hijack.links[0].connectedPeers(), []);
    assert.deepEqual(f.rendezvous?.sessionPeers(BigInt(made.sessionId)), [0, 1]);
    assert.ok(host.links[0].connectedPeers().includes(1));
  });

  it('re-issuing a slot to its holder voids the earlier token', async () => {
    const f = await theFleet();
    const [hostClient, ann] = await Promise.all(['host', 'ann'].map((n) => player(f.url, n)));
    const made = await hostClient.createPeerSession(2);
    const earlier = await ann.joinPeerSession(made.sessionId);
    const later = await ann.joinPeerSession(made.sessionId);
    const host = await openPeers([made]);
    cleanups.push(() => host.close());
    const current = await openPeers([later]);
    cleanups.push(() => current.close());
    await until('ann connected', 8000, () => host.links[0].connectedPeers().includes(1));

    const old = await openPeers([earlier]);
    cleanups.push(() => old.close());
    await until('the earlier token refused', 8000, () => old.links[0].rendezvousState === 'refused');
    say(current, 0, 'newer');
    await until('the host hears the newer token', 8000, () => host.notes[0].includes('1:newer'));
    assert.equal(current.links[0].rendezvousState, 'registered');
    assert.deepEqual(old.links[0].connectedPeers(), []);
  });
});
