import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { nodeAead } from '../../src/connection/aead-node.js';
import { Client, ClientState } from '../../src/connection/client.js';
import { generateConnectToken } from '../../src/connection/connect-token.js';
import { Server } from '../../src/connection/server.js';
import { UdpTransport } from '../../src/transport/udp-transport.js';
import { PRIVATE_KEY, PROTOCOL_ID } from '../support/netcode-harness.js';

async function session(host: string): Promise<void> {
  const serverSocket = await UdpTransport.open({ address: `${host}:0` });
  const clientSocket = await UdpTransport.open({ address: `${host}:0` });
  const received: number[] = [];
  const echoed: number[] = [];
  const server = new Server({
    protocolId: PROTOCOL_ID,
    privateKey: PRIVATE_KEY,
    publicAddresses: [serverSocket.localAddress],
    transports: [serverSocket],
    aead: nodeAead,
    onPacket: (index, data, offset) => {
      received.push(data[offset]);
      server.send(index, new Uint8Array([data[offset], 0xee]));
    },
  });
  const client = new Client({
    transport: clientSocket,
    aead: nodeAead,
    onPacket: (data, offset) => echoed.push(data[offset]),
  });
  const token = generateConnectToken({
    protocolId: PROTOCOL_ID,
    privateKey: PRIVATE_KEY,
    clientId: 7n,
    serverAddresses: [serverSocket.localAddress],
    now: Math.floor(Date.now() / 1000),
    aead: nodeAead,
  });
  const start = performance.now();
  const now = () => (performance.now() - start) / 1000;
  try {
    client.connect(token, now());
    while (client.state !== ClientState.Connected && now() < 5) {
      server.update(now());
      client.update(now());
      await sleep(2);
    }
    assert.equal(client.state, ClientState.Connected, `${host}: ${client.state}`);
    for (let i = 0; i < 50; i++) client.send(new Uint8Array([i]));
    while (echoed.length < 50 && now() < 8) {
      server.update(now());
      client.update(now());
      await sleep(2);
    }
    assert.deepEqual(
      [...new Set(received)].sort((a, b) => a - b),
      [...Array(50).keys()],
    );
    assert.equal(new Set(echoed).size, 50);
    client.disconnect();
    for (let i = 0; i < 20 && server.connectedClients > 0; i++) {
      await sleep(2);
      server.update(now());
    }
    assert.equal(server.connectedClients, 0);
  } finally {
    serverSocket.close();
    clientSocket.close();
  }
}

describe('netcode client and server over real UDP', () => {
  it('IPv4 loopback: connect, exchange, disconnect', () => session('127.0.0.1'));
  it('IPv6 loopback: connect, exchange, disconnect', () => session('[::1]'));
});

describe('docs/connection.md example (tools/connection-example.ts)', () => {
  it('a backend token, a server and a client complete the documented flow', async () => {
    const { runExample } = await import('../../tools/connection-example.js');
    const lines: string[] = [];
    assert.equal(await runExample((line) => lines.push(line)), true, lines.join('\n'));
    assert.ok(lines.includes('client: connected'));
    assert.ok(lines.some((l) => l.startsWith('server: client 1234 connected')));
    assert.ok(lines.some((l) => l.includes('left: client disconnected')));
  });
});
