// A page's script (bundled from ghostwire/browser, or importing dist/browser/ghostwire.js): the
// join path a Node player takes, over WebSocket, with the backend served under /api on the page's
// own origin. The fleet serves WebSocket when started with transports: ['udp', 'websocket'].
// (A real page takes `factory` and `types` from a module without the room's server code.)
import { BackendClient, ClientMirror, MessageClient, WebSocketClientTransport } from 'ghostwire/browser';
import { factory, types } from './arena.js';

// #region docs
const backend = new BackendClient({ url: '/api' }); // the backend, on the page's origin
await backend.auth({ name: 'ada' });
const seat = await backend.joinOrCreate('arena', { transport: 'websocket' });
const transport = new WebSocketClientTransport({
  url: `ws://${seat.serverAddress}/`, // the room server's WebSocket, on a port of its own
  serverAddress: seat.serverAddress, // what the connect token lists
});
const mirror = new ClientMirror({ types, capacity: 64 });
const client = new MessageClient({ transport, factory, channels: [mirror.channel] });
client.connect(seat.connectToken, performance.now() / 1000);
setInterval(() => client.update(performance.now() / 1000), 1000 / 60); // mirror.ghost(id) follows the room
// #endregion
