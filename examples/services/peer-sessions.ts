// docs/services.md's "Getting peers into a session": peer tokens from the backend, by matchmaking
// in a peer pool or by a session friends join by id. Type-checked by npm test
// (test/services/peer-matchmaking.test.ts runs the same path over real HTTP and UDP).
import { SecurePeerLinks } from 'ghostwire/p2p';
import { UdpTransport } from 'ghostwire/node';
import { BackendClient, startLocalFleet } from 'ghostwire/services';
import { factory, PROTOCOL_ID as protocolId } from './arena.js';

const skillWindow = { initial: 200, perSecond: 50, max: 1000 };
const backend = new BackendClient({ url: 'http://127.0.0.1:8080' });
const friend = new BackendClient({ url: 'http://127.0.0.1:8080' });
await backend.auth({ name: 'ada' });
await friend.auth({ name: 'bob' });

// #region docs
// Matchmaking: pools marked peer-to-peer form matches by the same rules, and make no room.
const fleet = await startLocalFleet({
  rooms: {}, protocolId, factory, rendezvous: true,
  matchmaking: { peerPools: { 'rts/eu': { minPlayers: 2, maxPlayers: 4, skillWindow, fillWaitMs: 20_000 } } },
});
const seat = await backend.matchmakePeers({ pool: 'rts/eu', skill: 1500 });
// Or with friends: one makes a session, the others join it by id (shared however the game likes).
const hosted = await backend.createPeerSession(4);           // slot 0: the host
const joined = await friend.joinPeerSession(hosted.sessionId); // the lowest free slot
// Either way:
const links = new SecurePeerLinks({ transport: await UdpTransport.open(), token: seat.peerToken });
// #endregion

console.log(`peer ${links.self} of ${seat.peers}; ${joined.peer} joined ${hosted.sessionId}`);
await fleet.close();
