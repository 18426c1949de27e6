/**
 * Peer sessions joined by id (POST /peers, /peers/:id/join, DELETE /peers/:id) over a real HTTP
 * backend: the host makes one, friends take the free slots, the last comes late and still
 * connects to the others over real UDP; slots are taken atomically in the directory, also by two
 * backends sharing one Redis.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, describe, it } from 'node:test';
import { BackendError, type PeerSeat } from '../../src/join/backend-client.js';
import { type LocalFleet, startLocalFleet } from '../../src/services/local-fleet.js';
import { RendezvousServer } from '../../src/services/rendezvous-server.js';
import { UdpTransport } from '../../src/transport/udp-transport.js';
import { player, refusal } from '../support/backend-players.js';
import { noteFactory, openPeers } from '../support/matched-peers.js';
import { RedisServer, redisSkip } from '../support/redis.js';
import { until } from '../support/until.js';

const PROTOCOL = 0x7065_6572_6964n;
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

describe('peer sessions joined by id', () => {
  it('the host makes a session, friends take slots 1 and 2, a late one still connects to all', async () => {
    const f = await theFleet();
    const [host, ann, bob] = await Promise.all(['host', 'ann', 'bob'].map((n) => player(f.url, n)));
    const made = await host.createPeerSession(3);
    assert.equal(made.peer, 0);
    assert.equal(made.peers, 3);
    assert.deepEqual(made.players.slice(1), [null, null]);
    const annSeat = await ann.joinPeerSession(made.sessionId);
    assert.equal(annSeat.peer, 1);
    assert.equal(annSeat.sessionId, made.sessionId);

    const early = await openPeers([made, annSeat]);
    cleanups.push(() => early.close());
    // Two of three connected: the third slot is still free, nobody waits for it here.
    await until('host and ann connected', 8000, () => early.links[0].connectedPeers().includes(1));

    const bobSeat = await bob.joinPeerSession(made.sessionId.toString());
    assert.equal(bobSeat.peer, 2);
    assert.deepEqual(bobSeat.players, [made.players[0], annSeat.players[1], bobSeat.players[2]]);
    assert.ok(bobSeat.players.every((p) => p !== null));
    const late = await openPeers([bobSeat]);
    cleanups.push(() => late.close());
    await until('the late peer connected to both', 8000, () => late.links[0].connectedPeers().length === 2);
    await until('both saw it arrive', 8000, () => early.links.every((l) => l.connectedPeers().length === 2));
    early.close();
    late.close();
  });

  it('a full session answers 409, a left slot is taken again, a rejoin keeps its slot', async () => {
    const f = await theFleet();
    const [host, ann, bob, cid] = await Promise.all(
      ['host', 'ann', 'bob', 'cid'].map((n) => player(f.url, n)),
    );
    const made = await host.createPeerSession(2);
    assert.equal((await ann.joinPeerSession(made.sessionId)).peer, 1);
    const again: PeerSeat = await ann.joinPeerSession(made.sessionId);
    assert.equal(again.peer, 1, 'the same slot, a fresh token');
    const full = await refusal(bob.joinPeerSession(made.sessionId));
    assert.equal(full.status, 409);
    assert.match(full.reason, /full/);
    await ann.leavePeerSession(made.sessionId);
    assert.equal((await refusal(ann.leavePeerSession(made.sessionId))).status, 404);
    assert.equal((await bob.joinPeerSession(made.sessionId)).peer, 1, 'the freed slot');
    assert.equal((await refusal(cid.joinPeerSession(made.sessionId))).status, 409);
  });

  it('refuses bad requests with reasons: no session, bad id, bad size, no session token', async () => {
    const f = await theFleet();
    const ann = await player(f.url, 'ann');
    const none = await refusal(ann.joinPeerSession(12345n));
    assert.equal(none.status, 404);
    assert.match(none.reason, /no such peer session/);
    assert.equal((await refusal(ann.joinPeerSession('not-an-id'))).status, 400);
    assert.equal((await refusal(ann.joinPeerSession('99999999999999999999'))).status, 400, 'over 2^64');
    for (const peers of [1, 65, 2.5]) {
      const bad = await refusal(ann.createPeerSession(peers));
      assert.equal(bad.status, 400);
      assert.match(bad.reason, /peers/);
    }
    const anonymous = await fetch(`${f.url}/peers`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ peers: 2 }),
    });
    assert.equal(anonymous.status, 401);
  });

  it('two backends on one Redis never give one slot to two players (skipped without Redis)', {
    skip: redisSkip(),
  }, async () => {
    const redis = await RedisServer.start();
    cleanups.push(() => redis.stop());
    const transport = await UdpTransport.open();
    const privateKey = new Uint8Array(randomBytes(32));
    const rendezvous = new RendezvousServer({ transport, protocolId: PROTOCOL, privateKey });
    cleanups.push(() => rendezvous.close());
    const urls: string[] = [];
    for (let i = 0; i < 2; i++) {
      const fleet = await startLocalFleet({
        rooms: {},
        protocolId: PROTOCOL,
        factory: noteFactory,
        redis: redis.url,
        backend: { rendezvous: { address: rendezvous.localAddress, privateKey } },
      });
      cleanups.push(() => fleet.close());
      urls.push(fleet.url);
    }
    const host = await player(urls[0], 'host');
    const made = await host.createPeerSession(4);
    const friends = await Promise.all(Array.from({ length: 8 }, (_, i) => player(urls[i % 2], `f${i}`)));
    const results = await Promise.all(friends.map((f) => f.joinPeerSession(made.sessionId).catch((e) => e)));
    const slots = results.flatMap((r) => (r instanceof BackendError ? [] : [(r as PeerSeat).peer]));
    assert.deepEqual(slots.sort(), [1, 2, 3]);
    const refused = results.filter((r) => r instanceof BackendError);
    assert.equal(refused.length, 5);
    for (const r of refused) assert.equal((r as BackendError).status, 409);
  });
});
