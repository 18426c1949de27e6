/**
 * The README's secure connections example, verbatim between the region markers; what it leaves to the reader
 * is declared around it so that tsc checks it (test/project/readme-examples.test.ts).
 */
declare const protocolId: bigint;
declare const privateKey: Uint8Array;
declare const serverAddresses: Address[];
declare const unixSeconds: number;
declare const socket: UdpTransport;
declare const clientSocket: UdpTransport;
declare const reply: Uint8Array;
declare const now: number;
import type { Address } from 'ghostwire/transport';

// #region readme
import { Client, generateConnectToken, Server } from 'ghostwire/connection';
import { UdpTransport } from 'ghostwire/node';

// Backend: authorize a client on a server (privateKey is shared by backend and servers only).
const token = generateConnectToken({ protocolId, privateKey, clientId: 1234n, serverAddresses, now: unixSeconds });

// Dedicated server.
const server = new Server({
  protocolId, privateKey, publicAddresses: [socket.localAddress], transports: [socket],
  onConnect: (index, clientId) => console.log(`client ${clientId} in slot ${index}`),
  onDisconnect: (index, clientId, reason) => console.log(reason), // 'timed out' | 'kicked' | …
  onPacket: (index, data, offset, length) => server.send(index, reply),
});

// Game client.
const client = new Client({ transport: clientSocket, onPacket: (data, offset, length) => {} });
client.connect(token, now);
// Each tick: server.update(now); client.update(now); client.send(bytes) once connected.
// #endregion

void [token, server, client];
