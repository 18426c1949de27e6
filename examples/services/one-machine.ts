// One machine, no outside service: the embedded directory, a room server and the HTTP backend in
// this process; then a player authenticates, joins an arena over UDP and mirrors its world.
import { ClientMirror } from 'ghostwire/replication';
import { MessageClient } from 'ghostwire/channels';
import { UdpTransport } from 'ghostwire/node';
import { BackendClient, startLocalFleet } from 'ghostwire/services';
import { Arena, factory, PROTOCOL_ID, types } from './arena.js';

// #region readme
const fleet = await startLocalFleet({ rooms: { arena: Arena }, protocolId: PROTOCOL_ID, factory, port: 8080 });
console.log(`backend on ${fleet.url}`); // POST /auth, /rooms/join-or-create, /matchmake ...

// A player (a browser or a bot: BackendClient is fetch only):
const backend = new BackendClient({ url: fleet.url });
await backend.auth({ name: 'ada' });
const seat = await backend.joinOrCreate('arena', { transport: 'udp', options: { name: 'ada' } });
const mirror = new ClientMirror({ types, capacity: 64 });
const client = new MessageClient({ transport: await UdpTransport.open(), factory, channels: [mirror.channel] });
client.connect(seat.connectToken, performance.now() / 1000);
setInterval(() => client.update(performance.now() / 1000), 1000 / 60); // mirror.ghost(id) follows the room
// #endregion
