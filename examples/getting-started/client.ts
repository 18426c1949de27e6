// The client: asks the backend for a connect token, connects, says hello, moves a little, prints
// what the server sends, and leaves after a few seconds. Run server.js first.
import { MessageClient } from 'ghostwire/channels';
import { ClientState, describeClientState } from 'ghostwire/connection';
import { UdpTransport } from 'ghostwire/node';
import { Chat, channels, factory, Move, now, POSITIONS, RELIABLE, Say } from './game.js';

const TOKEN_URL = `http://127.0.0.1:${process.env.TOKEN_PORT ?? 8080}/`;

const token = new Uint8Array(await (await fetch(TOKEN_URL)).arrayBuffer());
const socket = await UdpTransport.open({ address: '127.0.0.1:0' }); // any free port
const client = new MessageClient({ transport: socket, factory, channels });
client.connect(token, now());

let ticks = 0;
let greeted = false;
const loop = setInterval(() => {
  client.update(now());
  if (client.client.state < ClientState.Disconnected) {
    console.log(`could not connect: ${describeClientState(client.client.state)}`);
    clearInterval(loop);
    socket.close();
    process.exitCode = 1;
    return;
  }
  if (!client.connected) return;
  if (!greeted) {
    client.send(RELIABLE, Say, { text: 'hello!' });
    greeted = true;
  }
  client.send(POSITIONS, Move, { x: Math.sin(ticks / 30) * 10, y: 0 });
  for (let m = client.receive(RELIABLE); m !== null; m = client.receive(RELIABLE)) {
    if (m.is(Chat)) console.log(`${m.value.from}: ${m.value.text}`); // typed by Chat's schema
  }
  if (++ticks === 180) {
    client.disconnect();
    clearInterval(loop);
    socket.close();
  }
}, 1000 / 60);
