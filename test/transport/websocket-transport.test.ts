/**
 * The WebSocket transports (issue 12) over real sockets on 127.0.0.1: a netcode session runs over
 * them unchanged; bad frames, silent peers and too many peers are refused and counted; hundreds of
 * peers share one port and are all freed on close.
 */
import assert from 'node:assert/strict';
import { createServer, type Server as HttpServer } from 'node:http';
import { connect as tcpConnect } from 'node:net';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import WebSocket, { WebSocketServer } from 'ws';
import { defineMessage, MessageClient, MessageFactory, MessageServer } from '../../src/channels/index.js';
import { nodeAead } from '../../src/connection/aead-node.js';
import { Client, ClientState } from '../../src/connection/client.js';
import { generateConnectToken } from '../../src/connection/connect-token.js';
import { Server } from '../../src/connection/server.js';
import { t } from '../../src/schema/schema.js';
import { type Address, toAddress } from '../../src/transport/address.js';
import { WebSocketClientTransport } from '../../src/transport/websocket-client.js';
import { type PeerCloseReason, WebSocketServerTransport } from '../../src/transport/websocket-server.js';
import { PRIVATE_KEY, PROTOCOL_ID } from '../support/netcode-harness.js';

const Chat = defineMessage('chat', t.object({ n: t.uint32(), text: t.string(100) }));
const factory = new MessageFactory([Chat]);
const RELIABLE = 0;
const UNRELIABLE = 1;
const channels = [{ kind: 'reliable-ordered' as const }, { kind: 'unreliable-unordered' as const }];

const wallClock = () => {
  const start = performance.now();
  return () => (performance.now() - start) / 1000;
};

/** Polls `step` every 2 ms until `done` or `seconds` pass; returns whether it got done. */
async function until(done: () => boolean, seconds: number, step: () => void = () => {}): Promise<boolean> {
  const end = performance.now() + seconds * 1000;
  while (!done()) {
    if (performance.now() > end) return false;
    step();
    await sleep(2);
  }
  return true;
}

/** `promise`, or a rejection naming `what` after `seconds`: a missing close fails fast, never hangs. */
async function within<T>(promise: Promise<T>, seconds: number, what: string): Promise<T> {
  const controller = new AbortController();
  try {
    return await Promise.race([
      promise,
      sleep(seconds * 1000, undefined, { signal: controller.signal }).then(() => {
        throw new Error(`${what}: not within ${seconds} s`);
      }),
    ]);
  } finally {
    controller.abort();
  }
}

function urlOf(transport: WebSocketServerTransport, path = '/'): string {
  return `ws://${transport.localAddress}${path}`;
}

function clientTransport(url: string, serverAddress: Address, extra = {}): WebSocketClientTransport {
  return new WebSocketClientTransport({ url, serverAddress, WebSocket, ...extra });
}

function tokenFor(address: Address, clientId: bigint, extra: { now?: number; privateKey?: Uint8Array } = {}) {
  return generateConnectToken({
    protocolId: PROTOCOL_ID,
    privateKey: extra.privateKey ?? PRIVATE_KEY,
    clientId,
    serverAddresses: [address],
    now: extra.now ?? Math.floor(Date.now() / 1000),
    timeoutSeconds: 1,
    aead: nodeAead,
  });
}

/** A raw `ws` client; resolves with it once open (rejects on refusal). */
function rawClient(url: string): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url);
    socket.once('open', () => resolve(socket));
    socket.once('error', reject);
  });
}

function closeCode(socket: WebSocket): Promise<number> {
  return within(new Promise((resolve) => socket.once('close', (code) => resolve(code))), 3, 'close');
}

describe('WebSocket transports: a netcode session', () => {
  it('a MessageClient and a MessageServer connect through an attached http server, exchange reliable and unreliable messages, disconnect; the silent peer is then freed', async () => {
    const http: HttpServer = createServer((_q, r) => r.end('page'));
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    const closes: PeerCloseReason[] = [];
    const transport = await WebSocketServerTransport.open({
      server: http,
      path: '/ghostwire',
      peerTimeout: 0.5,
      onPeerClose: (_address, reason) => closes.push(reason),
    });
    const disconnects: string[] = [];
    const connects: number[] = [];
    const server = new MessageServer({
      protocolId: PROTOCOL_ID,
      privateKey: PRIVATE_KEY,
      publicAddresses: [transport.localAddress],
      transports: [transport],
      aead: nodeAead,
      factory,
      channels,
      maxClients: 4,
      onConnect: (index) => connects.push(index),
      onDisconnect: (_index, _id, reason) => disconnects.push(reason),
    });
    const socket = clientTransport(urlOf(transport, '/ghostwire'), transport.localAddress);
    const client = new MessageClient({ transport: socket, aead: nodeAead, factory, channels });
    const now = wallClock();
    const tick = () => {
      server.update(now());
      client.update(now());
    };
    try {
      client.connect(tokenFor(transport.localAddress, 42n), now());
      assert.ok(await until(() => client.connected, 5, tick), `client state ${client.client.state}`);
      assert.equal(socket.state, 'open');
      assert.equal(transport.stats.peersOpen, 1);
      assert.equal(connects.length, 1);
      const index = connects[0];

      const got = { serverReliable: [] as number[], clientReliable: [] as number[], unreliable: 0 };
      for (let n = 0; n < 20; n++) {
        client.send(RELIABLE, Chat, { n, text: `to server ${n}` });
        server.send(index, RELIABLE, Chat, { n, text: `to client ${n}` });
      }
      const drain = () => {
        tick();
        for (let m = server.receive(index, RELIABLE); m !== null; m = server.receive(index, RELIABLE))
          if (m.is(Chat)) got.serverReliable.push(m.value.n);
        for (let m = client.receive(RELIABLE); m !== null; m = client.receive(RELIABLE))
          if (m.is(Chat)) got.clientReliable.push(m.value.n);
        for (let m = client.receive(UNRELIABLE); m !== null; m = client.receive(UNRELIABLE)) got.unreliable++;
        server.send(index, UNRELIABLE, Chat, { n: 0, text: 'tick' });
      };
      const all = () =>
        got.serverReliable.length === 20 && got.clientReliable.length === 20 && got.unreliable > 5;
      assert.ok(await until(all, 5, drain), JSON.stringify(got));
      assert.deepEqual(got.serverReliable, [...Array(20).keys()], 'in order, once each');
      assert.deepEqual(got.clientReliable, [...Array(20).keys()]);

      client.disconnect();
      assert.ok(await until(() => server.server.connectedClients === 0, 2, tick));
      assert.deepEqual(disconnects, ['client disconnected']);
      // The server no longer sends to the peer, whose socket is still open: freed after peerTimeout.
      assert.ok(await until(() => transport.stats.peersOpen === 0, 3, tick));
      assert.deepEqual(closes, ['timed out']);
      assert.equal((await within(socket.ended, 3, 'ended')).code, 1008);
      assert.equal(socket.state, 'closed');
      assert.equal(socket.closed, false, 'closed by the server: the transport itself stays usable');
      assert.equal(transport.stats.dropped + socket.stats.dropped, 0);
    } finally {
      socket.close();
      transport.close();
      http.close();
    }
  });

  it('an expired and a forged connect token are refused as over UDP; their peers are closed after peerTimeout', async () => {
    const transport = await WebSocketServerTransport.open({ peerTimeout: 0.3 });
    const server = new Server({
      protocolId: PROTOCOL_ID,
      privateKey: PRIVATE_KEY,
      publicAddresses: [transport.localAddress],
      transports: [transport],
      aead: nodeAead,
    });
    const unix = Math.floor(Date.now() / 1000);
    const cases = [
      { counter: 'requestsExpired', token: tokenFor(transport.localAddress, 1n, { now: unix - 100 }) },
      {
        counter: 'requestsBadToken',
        token: tokenFor(transport.localAddress, 2n, { privateKey: new Uint8Array(32) }),
      },
    ] as const;
    const now = wallClock();
    try {
      for (const { counter, token } of cases) {
        const socket = clientTransport(urlOf(transport), transport.localAddress);
        const client = new Client({ transport: socket, aead: nodeAead });
        client.connect(token, now());
        const tick = () => {
          server.update(now());
          client.update(now());
        };
        assert.ok(
          await until(() => client.state < ClientState.Disconnected, 4, tick),
          `${counter}: ${client.state}`,
        );
        assert.equal(client.state, ClientState.ConnectionRequestTimedOut, counter);
        assert.ok(server.counters[counter] > 0, counter);
        assert.equal(server.connectedClients, 0);
        assert.ok(await until(() => socket.state === 'closed', 2, tick), counter);
        socket.close();
      }
      assert.equal(transport.stats.peersTimedOut, 2);
      assert.equal(transport.stats.peersOpen, 0);
    } finally {
      transport.close();
    }
  });
});

describe('WebSocket server transport: bad input', () => {
  it('a frame over maxPayload, a text frame and a malformed frame each drop the peer with a counted reason', async () => {
    const closes: PeerCloseReason[] = [];
    const transport = await WebSocketServerTransport.open({
      maxPayload: 1400,
      onPeerClose: (_a, reason) => closes.push(reason),
    });
    try {
      const big = await rawClient(urlOf(transport));
      const bigClosed = closeCode(big);
      big.send(new Uint8Array(1401));
      assert.equal(await bigClosed, 1009);

      const text = await rawClient(urlOf(transport));
      const textClosed = closeCode(text);
      text.send('{"hello":1}');
      assert.equal(await textClosed, 1003);

      // An unmasked frame from a client breaks the protocol: sent over a bare TCP socket.
      const port = Number(transport.localAddress.split(':')[1]);
      const raw = tcpConnect(port, '127.0.0.1');
      raw.on('error', () => {});
      const ended = new Promise<void>((resolve) => raw.on('close', () => resolve()));
      let response = '';
      raw.on('data', (chunk) => {
        response += chunk.toString('latin1');
        if (response.includes('\r\n\r\n') && response.startsWith('HTTP/1.1 101')) {
          response = 'upgraded';
          raw.write(Uint8Array.of(0x82, 0x01, 0x07));
        }
      });
      raw.write(
        'GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n' +
          'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n',
      );
      await within(ended, 3, 'raw socket closed');

      assert.ok(await until(() => transport.stats.peersBadFrame === 1, 2));
      assert.equal(transport.stats.peersOversized, 1);
      assert.equal(transport.stats.peersText, 1);
      assert.deepEqual(closes, ['oversized frame', 'text frame', 'bad frame']);
      assert.equal(transport.stats.peersOpen, 0);
      let delivered = 0;
      transport.receive(() => delivered++);
      assert.equal(delivered, 0, 'nothing from a dropped peer reaches the server');
      assert.ok(await until(() => transport.stats.sockets === 0, 3), 'every socket freed');
    } finally {
      transport.close();
    }
  });

  it('a peer that never handshakes is closed after peerTimeout; one the server sends to is kept', async () => {
    const closes: PeerCloseReason[] = [];
    const opened: Address[] = [];
    const transport = await WebSocketServerTransport.open({
      peerTimeout: 0.3,
      onPeerOpen: (address) => opened.push(address),
      onPeerClose: (_a, reason) => closes.push(reason),
    });
    try {
      transport.update(0);
      const silent = await rawClient(urlOf(transport));
      const answered = await rawClient(urlOf(transport));
      const silentClosed = closeCode(silent);
      assert.equal(opened.length, 2, 'accepted before the client saw the upgrade');
      silent.send(new Uint8Array([1, 2, 3])); // not a netcode packet: the server says nothing
      transport.update(0.2);
      transport.send(opened[1], new Uint8Array([9]));
      transport.update(0.25);
      assert.equal(transport.stats.peersOpen, 2, 'not yet');
      transport.update(0.45);
      assert.deepEqual(closes, ['timed out']);
      assert.equal(await silentClosed, 1008);
      assert.equal(transport.stats.peersTimedOut, 1);
      assert.deepEqual(transport.peerAddresses(), [opened[1]]);
      assert.equal(answered.readyState, WebSocket.OPEN);
      answered.close();
    } finally {
      transport.close();
    }
  });

  it('upgrades beyond maxPeers get 503, another path 404; refused and counted; sends to unknown peers are undeliverable', async () => {
    const transport = await WebSocketServerTransport.open({ maxPeers: 2, path: '/game' });
    try {
      const a = await rawClient(urlOf(transport, '/game'));
      const b = await rawClient(urlOf(transport, '/game'));
      await assert.rejects(rawClient(urlOf(transport, '/game')), /503/);
      await assert.rejects(rawClient(urlOf(transport, '/other')), /404/);
      const refusedClient = clientTransport(urlOf(transport, '/game'), transport.localAddress);
      assert.equal(await within(refusedClient.opened, 3, 'opened'), false);
      assert.equal(refusedClient.state, 'closed');
      assert.equal(transport.stats.peersRefused, 3);
      assert.equal(transport.stats.peersOpen, 2);
      transport.send(toAddress('[fd67:7771::1:2:3]:9'), new Uint8Array(4));
      assert.equal(transport.stats.undeliverable, 1);
      assert.throws(() => transport.send('nope' as Address, new Uint8Array(1)), RangeError);
      assert.throws(() => transport.send(transport.peerAddresses()[0], new Uint8Array(1401)), RangeError);
      a.close();
      b.close();
      refusedClient.close();
    } finally {
      transport.close();
    }
    assert.throws(() => transport.send(transport.localAddress, new Uint8Array(1)), /closed/);
  });
});

describe('WebSocket client transport', () => {
  it('holds sends until open, delivers binary frames from the server address, refuses text and oversized frames, and sends only to the server', async () => {
    const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    await new Promise<void>((resolve) => wss.once('listening', resolve));
    const port = (wss.address() as { port: number }).port;
    const received: Uint8Array[] = [];
    wss.on('connection', (peer) => {
      peer.on('message', (data: Buffer) => {
        received.push(new Uint8Array(data));
        if (received.length === 2) {
          peer.send('text');
          peer.send(new Uint8Array(1401));
          peer.send(Uint8Array.of(5, 6, 7));
        }
      });
    });
    const server = toAddress(`127.0.0.1:${port}`);
    const socket = clientTransport(`ws://127.0.0.1:${port}/`, server, { maxSendsBeforeOpen: 2 });
    try {
      assert.equal(socket.state, 'connecting');
      const data = Uint8Array.of(1, 2);
      socket.send(server, data);
      data[0] = 99; // the transport copied it
      socket.send(server, Uint8Array.of(3));
      socket.send(server, Uint8Array.of(4)); // over maxSendsBeforeOpen
      socket.send(toAddress('10.0.0.1:1'), Uint8Array.of(4)); // not the server
      assert.equal(socket.stats.undeliverable, 2);
      assert.equal(await within(socket.opened, 3, 'opened'), true);
      const from: string[] = [];
      const got: number[][] = [];
      assert.ok(await until(() => socket.stats.queued > 0, 3));
      socket.receive((address, bytes) => {
        from.push(address);
        got.push([...bytes]);
      });
      assert.deepEqual(
        received.map((r) => [...r]),
        [[1, 2], [3]],
      );
      assert.deepEqual(got, [[5, 6, 7]]);
      assert.deepEqual(from, [server]);
      assert.equal(socket.stats.refusedFrames, 2);
      assert.throws(() => socket.send(server, new Uint8Array(1401)), RangeError);
      assert.throws(() => socket.send('x' as Address, Uint8Array.of(1)), RangeError);
      socket.close();
      assert.equal(socket.closed, true);
      assert.throws(() => socket.send(server, Uint8Array.of(1)), /closed/);
      assert.equal((await within(socket.ended, 3, 'ended')).code, 1000);
    } finally {
      socket.close();
      wss.close();
    }
  });
});

describe('WebSocket transports: many peers on one port', () => {
  it('300 clients each send a datagram and get one back through one port; close frees them all', async () => {
    const COUNT = 300;
    const transport = await WebSocketServerTransport.open({
      maxQueuedDatagrams: 4096,
      maxPeersPerAddress: COUNT,
    });
    const clients = Array.from({ length: COUNT }, () =>
      clientTransport(urlOf(transport), transport.localAddress),
    );
    try {
      // Sent before open: held by each client transport until its socket opens.
      for (let i = 0; i < COUNT; i++)
        clients[i].send(transport.localAddress, Uint8Array.of(i & 0xff, i >> 8));
      const senders = new Set<Address>();
      const echo = (from: Address, data: Uint8Array) => {
        senders.add(from);
        transport.send(from, Uint8Array.of(data[0], data[1], 0xee));
      };
      const answers = new Array<number>(COUNT).fill(-1);
      const poll = () => {
        transport.receive(echo, 1024);
        for (let i = 0; i < COUNT; i++) {
          clients[i].receive((from, data) => {
            if (from === transport.localAddress && data[2] === 0xee) answers[i] = data[0] | (data[1] << 8);
          });
        }
      };
      assert.ok(
        await until(() => answers.every((a) => a >= 0), 20, poll),
        `answered ${answers.filter((a) => a >= 0).length} / ${COUNT}`,
      );
      assert.deepEqual(answers, [...Array(COUNT).keys()], 'each got its own datagram back');
      assert.equal(senders.size, COUNT, 'one address per peer');
      assert.equal(transport.stats.peersOpen, COUNT);
      assert.equal(transport.stats.dropped + transport.stats.undeliverable, 0);

      transport.close();
      const codes = await within(Promise.all(clients.map((c) => c.ended)), 5, 'every close');
      assert.ok(
        codes.every((c) => c.code === 1001),
        'every peer was told the server went away',
      );
      assert.equal(transport.stats.peersOpen, 0);
      assert.ok(
        await until(() => transport.stats.sockets === 0, 5),
        `${transport.stats.sockets} sockets left`,
      );
    } finally {
      for (const c of clients) c.close();
      transport.close();
    }
  });
});
