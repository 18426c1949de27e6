/**
 * The connection flow end to end, as docs/connection.md describes it: a backend mints a connect
 * token, a dedicated server accepts the client holding it, and they exchange packets over UDP on
 * loopback. Run: `npm run build && node dist/tools/connection-example.js`.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import {
  Client,
  ClientState,
  describeClientState,
  generateConnectToken,
  Server,
} from '../src/connection/index.js';
import { UdpTransport } from '../src/node.js';

/** Shared by the backend and the dedicated servers, never by clients (here: fixed for the example). */
const PRIVATE_KEY = new Uint8Array(32).fill(0x5a);
const PROTOCOL_ID = 0x6768_6f73_7477_6972n; // your game and version: clients of another are refused

export async function runExample(log: (line: string) => void = console.log): Promise<boolean> {
  const serverSocket = await UdpTransport.open({ address: '127.0.0.1:0' });
  const clientSocket = await UdpTransport.open({ address: '127.0.0.1:0' });
  let replies = 0;
  const server = new Server({
    protocolId: PROTOCOL_ID,
    privateKey: PRIVATE_KEY,
    publicAddresses: [serverSocket.localAddress],
    transports: [serverSocket],
    maxClients: 16,
    onConnect: (index, clientId) => log(`server: client ${clientId} connected in slot ${index}`),
    onDisconnect: (index, clientId, reason) =>
      log(`server: client ${clientId} (slot ${index}) left: ${reason}`),
    onPacket: (index, data, offset, length) => {
      log(
        `server: ${length} bytes from slot ${index}: "${new TextDecoder().decode(data.subarray(offset, offset + length))}"`,
      );
      server.send(index, new TextEncoder().encode('welcome'));
    },
  });

  // The backend (a web service after login, a matchmaker) authorizes this client on this server.
  const token = generateConnectToken({
    protocolId: PROTOCOL_ID,
    privateKey: PRIVATE_KEY,
    clientId: 1234n,
    serverAddresses: [serverSocket.localAddress],
    now: Math.floor(Date.now() / 1000),
    expireSeconds: 30,
    timeoutSeconds: 5,
    userData: new TextEncoder().encode('account:1234'.padEnd(256, '\0')),
  });

  const client = new Client({
    transport: clientSocket,
    onStateChange: (state) => log(`client: ${describeClientState(state)}`),
    onPacket: (data, offset, length) => {
      replies++;
      log(`client: "${new TextDecoder().decode(data.subarray(offset, offset + length))}"`);
    },
  });
  const start = performance.now();
  const now = () => (performance.now() - start) / 1000;
  try {
    client.connect(token, now());
    let sent = false;
    while (now() < 5 && replies === 0 && client.state >= ClientState.Disconnected) {
      server.update(now());
      client.update(now());
      if (client.state === ClientState.Connected && !sent) {
        client.send(new TextEncoder().encode('hello'));
        sent = true;
      }
      await sleep(5);
    }
    client.disconnect();
    await sleep(10);
    server.update(now());
    return replies > 0;
  } finally {
    serverSocket.close();
    clientSocket.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const ok = await runExample();
  process.exitCode = ok ? 0 : 1;
}
