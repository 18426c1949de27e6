// docs/services.md's fleet on one machine, in two files' worth: the parent (this file run with no
// argument) holds the embedded directory, the backend, the matchmaker and a process manager; each
// child it forks (this file with `room-server`) is one room server reaching the parent's directory
// over IPC. Type-checked by npm test; run it with `node dist/examples/services/fleet-process.js`.
import { fileURLToPath } from 'node:url';
import { UdpTransport } from 'ghostwire/node';
import {
  createBackend,
  createMatchRoom,
  EmbeddedDirectory,
  IpcDirectory,
  Matchmaker,
  ProcessManager,
  RoomServer,
  reportToManager,
  serveBackend,
} from 'ghostwire/services';
import { Arena, factory, PROTOCOL_ID } from './arena.js';

const privateKey = new Uint8Array(32).fill(7); // a real game reads its key from a secret store

if (process.argv[2] === 'room-server') {
  // #region docs
  // A room-server process: its own UDP port, the fleet's directory, rooms defined by name.
  const server = new RoomServer({
    directory: new IpcDirectory(), // or: await RedisDirectory.connect({ url }) on several machines
    protocolId: PROTOCOL_ID,
    privateKey, // the key the backend seals connect tokens with
    factory,
    transports: [{ kind: 'udp', transport: await UdpTransport.open({ address: '0.0.0.0:0' }) }],
  });
  server.define('arena', Arena, { maxClients: 8, tickRate: 20, reconnectWindowMs: 20_000 });
  await server.start(); // listed in the directory, heartbeats, answers create-room requests
  reportToManager(server); // heartbeats, drain and stop over IPC when forked by a ProcessManager
  // #endregion
} else {
  // #region docs
  // The parent: the directory, the process manager, the matchmaker and the backend.
  const directory = new EmbeddedDirectory();
  const manager = new ProcessManager({
    modulePath: fileURLToPath(import.meta.url),
    args: ['room-server'],
    directory, // served to each child over its IPC channel
    maxProcesses: 4,
  });
  manager.on('restarted', (id, previousId) => console.log(`${previousId} died; ${id} replaces it`));
  await manager.start(2); // two room servers, each heartbeating its load

  const matchmaker = new Matchmaker({
    directory,
    pools: {
      'duel/eu': {
        minPlayers: 2,
        maxPlayers: 2,
        fillWaitMs: 0,
        skillWindow: { initial: 50, perSecond: 25, max: 400 }, // widens while a ticket waits
      },
    },
    onMatch: () => createMatchRoom({ directory, name: 'arena' }), // a private room per match
  });
  matchmaker.start(250); // a pass every 250 ms

  const backend = createBackend({ directory, privateKey, protocolId: PROTOCOL_ID, matchmaker });
  const { url } = await serveBackend(backend, { port: 8080 });
  console.log(`backend on ${url}; load: ${JSON.stringify(manager.report().machine)}`);
  // #endregion
}
