// The server: a game server on UDP and, beside it, the smallest token backend (HTTP). Run it with
// `node server.js` (after `tsc`), then run client.js. Ports: GAME_PORT (40000), TOKEN_PORT (8080).
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { MessageServer } from 'ghostwire/channels';
import { generateConnectToken } from 'ghostwire/connection';
import { UdpTransport } from 'ghostwire/node';
import { toAddress } from 'ghostwire/transport';
import { Chat, channels, factory, Move, now, POSITIONS, PROTOCOL_ID, RELIABLE, Say } from './game.js';

const GAME_ADDRESS = toAddress(`127.0.0.1:${process.env.GAME_PORT ?? 40000}`); // port 0: any free one
const TOKEN_PORT = Number(process.env.TOKEN_PORT ?? 8080);

// The private key signs connect tokens: it is shared by your backend and your game servers only,
// never by clients. Random at every start is fine while one process is both.
const privateKey = crypto.getRandomValues(new Uint8Array(32));

const socket = await UdpTransport.open({ address: GAME_ADDRESS });
const names = new Map<number, string>(); // client index → player name
const positions = new Map<number, { x: number; y: number }>();

const server = new MessageServer({
  protocolId: PROTOCOL_ID,
  privateKey,
  publicAddresses: [socket.localAddress], // what connect tokens name for this server
  transports: [socket],
  factory,
  channels,
  maxClients: 16,
  // A client index is the connection's slot, 0 to maxClients - 1: pass it to send / receive.
  onConnect: (clientIndex, clientId) => {
    names.set(clientIndex, `player${clientId}`);
    console.log(`player${clientId} joined in slot ${clientIndex}`);
    server.send(clientIndex, RELIABLE, Chat, { from: 'server', text: `welcome, player${clientId}` });
  },
  onDisconnect: (clientIndex, clientId, reason) => {
    names.delete(clientIndex);
    positions.delete(clientIndex);
    console.log(`player${clientId} left: ${reason}`);
  },
});

// The backend: hands out a connect token per request. A real one authenticates the player first
// (and runs on HTTPS); the token is what lets that player, and only that player, join this server.
let nextClientId = 1n;
const backend = createServer((_request, response) => {
  const token = generateConnectToken({
    protocolId: PROTOCOL_ID,
    privateKey,
    clientId: nextClientId++,
    serverAddresses: [socket.localAddress], // the servers this token may join, in order
    now: Math.floor(Date.now() / 1000), // unix seconds: tokens expire (default 30 s)
  });
  response.writeHead(200, { 'content-type': 'application/octet-stream' }).end(token);
});
backend.listen(TOKEN_PORT, '127.0.0.1', () => {
  const { port } = backend.address() as AddressInfo;
  console.log(`game server on ${socket.localAddress}, tokens at http://127.0.0.1:${port}/`);
});

// The game loop: 60 ticks a second. update() reads datagrams, then sends one packet per client.
setInterval(() => {
  server.update(now());
  for (const [clientIndex, name] of names) {
    for (
      let m = server.receive(clientIndex, RELIABLE);
      m !== null;
      m = server.receive(clientIndex, RELIABLE)
    ) {
      if (!m.is(Say)) continue; // narrows m.value to { text: string }
      console.log(`${name}: ${m.value.text}`);
      server.broadcast(RELIABLE, Chat, { from: name, text: m.value.text }); // to every client
    }
    for (
      let m = server.receive(clientIndex, POSITIONS);
      m !== null;
      m = server.receive(clientIndex, POSITIONS)
    ) {
      if (m.is(Move)) positions.set(clientIndex, m.value);
    }
  }
}, 1000 / 60);

// Once a second, where everyone is.
setInterval(() => {
  for (const [clientIndex, p] of positions)
    console.log(`${names.get(clientIndex)} is at ${p.x.toFixed(2)}, ${p.y.toFixed(2)}`);
}, 1000);
