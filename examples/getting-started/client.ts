// The client: connects to the server's URL, walks right for three seconds (its walker moves at
// once: predicted), prints what it sees and the server's events, then leaves. Run server.js first.
import { GameClient } from 'ghostwire/node';
import { walkers } from './game.js';

const client = await GameClient.connect(walkers, process.argv[2] ?? 'http://127.0.0.1:8080');
client.on('joined', ({ id }) =>
  console.log(id === client.me?.id ? `I am walker ${id}` : `walker ${id} joined`),
);

let frames = 0;
const loop = setInterval(() => {
  client.update({ dx: 1, dy: 0 }); // this frame's input: sent once a tick, and predicted
  if (++frames % 60 === 0)
    console.log(
      `I am at ${client.me?.state.x.toFixed(2)}; ${client.entities.length} others; RTT ${(client.rtt * 1000).toFixed(1)} ms`,
    );
  if (frames === 180) {
    clearInterval(loop);
    client.close();
  }
}, 1000 / 60);
