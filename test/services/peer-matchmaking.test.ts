/**
 * Getting peers into a session through the backend: players authenticate and matchmake in a peer
 * pool over real HTTP, get a peer token each for their own slot, register with a real UDP
 * rendezvous through SecurePeerLinks and talk to each other through PeerConnection.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, describe, it } from 'node:test';
import { BackendClient, BackendError } from '../../src/join/backend-client.js';
import { readPeerToken } from '../../src/lockstep/peer-token.js';
import { createBackend, type ServedBackend, serveBackend } from '../../src/services/backend.js';
import { EmbeddedDirectory } from '../../src/services/embedded-directory.js';
import { startLocalFleet } from '../../src/services/local-fleet.js';
import { Matchmaker } from '../../src/services/matchmaker.js';
import { peerSessionIdOf } from '../../src/services/peer-sessions.js';
import { RendezvousServer } from '../../src/services/rendezvous-server.js';
import { UdpTransport } from '../../src/transport/udp-transport.js';
import { matchPeers, Note, noteFactory, openPeers, peerRules } from '../support/matched-peers.js';
import { RedisServer, redisSkip } from '../support/redis.js';
import { until } from '../support/until.js';

const PROTOCOL = 0x7065_6572_6d6dn;
const cleanups: (() => Promise<void> | void)[] = [];
after(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

/** Every peer sends each other a note; each must get the other three. */
async function exchangeNotes(peers: Awaited<ReturnType<typeof openPeers>>): Promise<void> {
  const n = peers.links.length;
  await until(`${n} peers connected`, 8000, peers.allConnected);
  await until('connections made', 2000, () => peers.connections.every((c) => c.size === n - 1));
  // connections and notes are by position; a peer's slot is its links' self.
  for (const [i, byPeer] of peers.connections.entries())
    for (const c of byPeer.values())
      c.channels.send(0, Note, { from: peers.links[i].self, text: `hello ${c.peer}` });
  await until('every note delivered', 5000, () => peers.notes.every((got) => got.length === n - 1));
  for (const [i, got] of peers.notes.entries()) {
    const self = peers.links[i].self;
    assert.deepEqual(
      got.sort(),
      [...Array(n).keys()].filter((p) => p !== self).map((p) => `${p}:hello ${self}`),
    );
  }
}

describe('peer pools: matched players get peer tokens and connect', () => {
  it('4 players matchmake over HTTP, get one slot each and connect over real UDP', async () => {
    const fleet = await startLocalFleet({
      rooms: {},
      protocolId: PROTOCOL,
      factory: noteFactory,
      rendezvous: true,
      matchmaking: { peerPools: { 'rts/p2p': peerRules(4) }, intervalMs: 30 },
    });
    cleanups.push(() => fleet.close());
    assert.equal(fleet.servers.length, 0, 'a fleet of peer pools runs no room servers');
    const rendezvous = fleet.rendezvous!;
    const seats = await matchPeers([fleet.url, fleet.url, fleet.url, fleet.url], 'rts/p2p');

    const sessionId = seats[0].sessionId;
    assert.deepEqual(seats.map((s) => s.peer).sort(), [0, 1, 2, 3], 'one slot each');
    for (const seat of seats) {
      assert.equal(seat.sessionId, sessionId);
      assert.equal(seat.peers, 4);
      assert.deepEqual(seat.players, seats[0].players, 'every player sees the same slots');
      assert.equal(seat.rendezvousAddress, rendezvous.localAddress);
      const token = readPeerToken(seat.peerToken);
      assert.ok(token.ok);
      assert.equal(token.token.sessionId, sessionId);
      assert.equal(token.token.peer, seat.peer);
      assert.equal(token.token.maxPeers, 4);
      assert.equal(token.token.rendezvousAddress, rendezvous.localAddress);
    }

    const peers = await openPeers(seats);
    cleanups.push(() => peers.close());
    await exchangeNotes(peers);
    assert.deepEqual(rendezvous.sessionPeers(sessionId), [0, 1, 2, 3]);
    assert.equal(rendezvous.counters.forged, 0);
    peers.close();
  });

  it('friends sharing a code are matched together: a private session needs only a compatible rule', async () => {
    const fleet = await startLocalFleet({
      rooms: {},
      protocolId: PROTOCOL,
      factory: noteFactory,
      rendezvous: true,
      matchmaking: {
        peerPools: {
          friends: { ...peerRules(2), compatible: (a, b) => a.properties.code === b.properties.code },
        },
        intervalMs: 30,
      },
    });
    cleanups.push(() => fleet.close());
    const codes = ['abc', 'xyz', 'xyz', 'abc'].map((code) => ({ code }));
    const seats = await matchPeers(Array(4).fill(fleet.url), 'friends', codes);
    assert.equal(seats[0].sessionId, seats[3].sessionId, 'the two holding "abc" share a session');
    assert.equal(seats[1].sessionId, seats[2].sessionId, 'the two holding "xyz" share a session');
    assert.notEqual(seats[0].sessionId, seats[1].sessionId);
    assert.deepEqual([seats[0].peer, seats[3].peer].sort(), [0, 1]);
    assert.deepEqual([seats[1].peer, seats[2].peer].sort(), [0, 1]);
  });

  it('two backends on one Redis put players into one session, a slot each (skipped without Redis)', {
    skip: redisSkip(),
  }, async () => {
    const redis = await RedisServer.start();
    cleanups.push(() => redis.stop());
    // One rendezvous both backends share the key of, as machines of one fleet would.
    const transport = await UdpTransport.open();
    const privateKey = new Uint8Array(randomBytes(32));
    const rendezvous = new RendezvousServer({ transport, protocolId: PROTOCOL, privateKey });
    const started = performance.now();
    const timer = setInterval(() => rendezvous.update((performance.now() - started) / 1000), 10);
    cleanups.push(() => {
      clearInterval(timer);
      rendezvous.close();
    });
    const fleets = [];
    for (let i = 0; i < 2; i++) {
      const fleet = await startLocalFleet({
        rooms: {},
        protocolId: PROTOCOL,
        factory: noteFactory,
        redis: redis.url,
        backend: { rendezvous: { address: rendezvous.localAddress, privateKey } },
        matchmaking: { peerPools: { 'duo/p2p': peerRules(4) }, intervalMs: 30 },
      });
      cleanups.push(() => fleet.close());
      fleets.push(fleet);
    }
    const [a, b] = fleets.map((f) => f.url);
    const seats = await matchPeers([a, b, a, b], 'duo/p2p');
    assert.deepEqual(seats.map((s) => s.peer).sort(), [0, 1, 2, 3]);
    assert.equal(new Set(seats.map((s) => s.sessionId)).size, 1, 'one session');
    const peers = await openPeers(seats);
    cleanups.push(() => peers.close());
    await exchangeNotes(peers);
    peers.close();
  });
});

describe('peer pools: the matchmaker', () => {
  it('refuses pools a peer session cannot hold, and needs onMatch only for room pools', () => {
    const directory = new EmbeddedDirectory();
    const rules = peerRules(4);
    assert.throws(
      () => new Matchmaker({ directory, peerPools: { p: { ...rules, maxPlayers: 65 } } }),
      RangeError,
    );
    assert.throws(
      () => new Matchmaker({ directory, peerPools: { p: { ...rules, minPlayers: 1, maxPlayers: 4 } } }),
      /2\.\.64 players/,
    );
    assert.throws(
      () =>
        new Matchmaker({
          directory,
          pools: { p: rules },
          peerPools: { p: rules },
          onMatch: async () => ({ roomId: 'r' }),
        }),
      /both a room pool and a peer pool/,
    );
    assert.throws(() => new Matchmaker({ directory, rules, peerPools: { p: rules } }), /onMatch/);
    assert.doesNotThrow(() => new Matchmaker({ directory, peerPools: { p: rules } }));
  });

  it('two matchmakers on one directory never put a ticket in two sessions', async () => {
    const directory = new EmbeddedDirectory();
    const makers = [0, 1].map(() => new Matchmaker({ directory, peerPools: { p: peerRules(4) } }));
    const tickets: string[] = [];
    for (let i = 0; i < 8; i++)
      tickets.push(await makers[i % 2].enqueue({ userIds: [`u${i}`], pool: 'p', skill: 0 }));
    await Promise.all(makers.map((m) => m.process()));
    const sessions = new Map<string, string[]>();
    for (const id of tickets) {
      const status = await directory.ticketStatus(id);
      assert.equal(status.state, 'matched');
      if (status.state !== 'matched') continue;
      const sessionId = peerSessionIdOf(status.roomId);
      assert.notEqual(sessionId, null, 'claimed as a peer session');
      sessions.set(status.roomId, status.userIds);
    }
    assert.equal(sessions.size, 2, 'two sessions of four');
    const everyone = [...sessions.values()].flat().sort();
    assert.deepEqual(everyone, [...Array(8).keys()].map((i) => `u${i}`).sort(), 'each player in one session');
    const metrics = makers.map((m) => m.metrics());
    assert.equal(metrics[0].matches + metrics[1].matches, 2);
  });
});

describe('peer pools: refusals over HTTP', () => {
  async function backendWith(options: { rendezvous: boolean; roomPool?: boolean; burst?: number }) {
    const directory = new EmbeddedDirectory();
    const matchmaker = new Matchmaker({
      directory,
      peerPools: { peers: peerRules(2) },
      ...(options.roomPool
        ? { pools: { rooms: peerRules(2) }, onMatch: async () => ({ roomId: 'room1' }) }
        : {}),
    });
    const served: ServedBackend = await serveBackend(
      createBackend({
        directory,
        privateKey: new Uint8Array(32).fill(1),
        protocolId: PROTOCOL,
        matchmaker,
        sweepIntervalMs: 0,
        ...(options.burst === undefined ? {} : { rateLimit: { burst: options.burst, perSecond: 0.01 } }),
        ...(options.rendezvous
          ? { rendezvous: { address: '127.0.0.1:40000', privateKey: new Uint8Array(32) } }
          : {}),
      }),
    );
    cleanups.push(() => served.close());
    const client = async () => {
      const c = new BackendClient({ url: served.url });
      await c.auth({ name: 'p' });
      return c;
    };
    return { url: served.url, matchmaker, client };
  }

  it('a peer match answers 503 with its reason when the backend has no rendezvous', async () => {
    const b = await backendWith({ rendezvous: false });
    const [x, y] = [await b.client(), await b.client()];
    const tickets: string[] = [];
    const both = [x, y].map((c) =>
      c.matchmakePeers({ pool: 'peers', pollMs: 20, onTicket: (id) => tickets.push(id) }).catch((e) => e),
    );
    await until('both queued', 2000, () => tickets.length === 2);
    await b.matchmaker.process();
    for (const error of await Promise.all(both)) {
      assert.ok(error instanceof BackendError);
      assert.equal(error.status, 503);
      assert.match(error.reason, /no rendezvous/);
    }
  });

  it('a stranger polling a peer ticket learns nothing; unauthenticated calls are refused', async () => {
    const b = await backendWith({ rendezvous: true });
    const [x, y] = [await b.client(), await b.client()];
    let ticketId = '';
    const matched = x.matchmakePeers({ pool: 'peers', pollMs: 20, onTicket: (id) => (ticketId = id) });
    const other = y.matchmakePeers({ pool: 'peers', pollMs: 20 });
    await until('queued', 2000, () => ticketId !== '');
    await b.matchmaker.process();
    const [seat] = await Promise.all([matched, other]);
    assert.equal(seat.peers, 2);
    const stranger = await b.client();
    const poll = await fetch(`${b.url}/matchmake/${ticketId}`, {
      headers: { Authorization: `Bearer ${stranger.session}` },
    });
    assert.deepEqual(await poll.json(), { state: 'unknown' });
    const anonymous = await fetch(`${b.url}/matchmake/${ticketId}`);
    assert.equal(anonymous.status, 401);
    const queue = await fetch(`${b.url}/matchmake`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${stranger.session}` },
      body: JSON.stringify({ pool: 'peers', party: ['someone'] }),
    });
    assert.equal(queue.status, 400, 'schema-checked body');
  });

  it('peer polls count against the rate limit like every other request', async () => {
    const b = await backendWith({ rendezvous: true, burst: 4 });
    const x = await b.client(); // 1 request
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) {
      const poll = await fetch(`${b.url}/matchmake/some-ticket`, {
        headers: { Authorization: `Bearer ${x.session}` },
      });
      statuses.push(poll.status);
    }
    assert.deepEqual(statuses, [200, 200, 200, 429]);
  });

  it('a room match polled without a transport is refused with the reason; a peer match read as a room too', async () => {
    const b = await backendWith({ rendezvous: true, roomPool: true });
    const [x, y] = [await b.client(), await b.client()];
    let queued = 0;
    const rooms = [x, y].map((c) =>
      c.matchmakePeers({ pool: 'rooms', pollMs: 20, onTicket: () => queued++ }).catch((e) => e),
    );
    await until('queued', 2000, () => queued === 2);
    await b.matchmaker.process();
    for (const error of await Promise.all(rooms)) {
      assert.ok(error instanceof BackendError);
      assert.equal(error.status, 400);
      assert.match(error.reason, /transport: needed .* for a match into a room/);
    }
    const peers = [x, y].map((c) =>
      c.matchmake({ pool: 'peers', transport: 'udp', pollMs: 20, onTicket: () => queued++ }).catch((e) => e),
    );
    await until('queued', 2000, () => queued === 4);
    await b.matchmaker.process();
    for (const error of await Promise.all(peers)) {
      assert.ok(error instanceof BackendError);
      assert.equal(error.status, 409);
      assert.match(error.reason, /peer-to-peer session: use matchmakePeers/);
    }
  });
});
