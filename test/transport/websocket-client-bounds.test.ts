/**
 * What one client can hold of a WebSocket server transport (issue 23, item 4), on real sockets on
 * loopback: other 127/8 source addresses stand for other machines. One address gets at most
 * maxPeersPerAddress peers, however often it reopens them, so a page from elsewhere still connects;
 * a peer that never completes the netcode handshake is closed after handshakeTimeout even while
 * the server keeps answering it.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type WebSocket from 'ws';
import { nodeAead } from '../../src/connection/aead-node.js';
import { Client, ClientState } from '../../src/connection/client.js';
import { readConnectToken } from '../../src/connection/connect-token.js';
import { MAX_PACKET_BYTES } from '../../src/connection/constants.js';
import { PacketCodec } from '../../src/connection/packets.js';
import { Server } from '../../src/connection/server.js';
import { WebSocketClientTransport } from '../../src/transport/websocket-client.js';
import { type PeerCloseReason, WebSocketServerTransport } from '../../src/transport/websocket-server.js';
import { PRIVATE_KEY, PROTOCOL_ID } from '../support/netcode-harness.js';
import { rawClientFrom, tokenFor, until, webSocketFrom } from '../support/websocket-loopback.js';

const ATTACKER = '127.0.0.1';
const PAGE = '127.0.0.2';

function netcodeServer(transport: WebSocketServerTransport): Server {
  return new Server({
    protocolId: PROTOCOL_ID,
    privateKey: PRIVATE_KEY,
    publicAddresses: [transport.localAddress],
    transports: [transport],
    aead: nodeAead,
    maxClients: 4,
  });
}

/**
 * Keeps as many idle sockets open from `from` as the server takes, reopening each one that is
 * closed or refused (after `retryMs`), until stopped.
 */
function idleHolder(url: string, from: string, want: number, retryMs = 20) {
  const open = new Set<WebSocket>();
  let refused = 0;
  let stopped = false;
  const openOne = (): void => {
    if (stopped) return;
    rawClientFrom(url, from).then(
      (socket) => {
        if (stopped) return socket.terminate();
        open.add(socket);
        socket.once('close', () => {
          open.delete(socket);
          openOne();
        });
      },
      () => {
        refused++;
        setTimeout(openOne, retryMs);
      },
    );
  };
  for (let i = 0; i < want; i++) openOne();
  return {
    get open() {
      return open.size;
    },
    get refused() {
      return refused;
    },
    stop() {
      stopped = true;
      for (const socket of open) socket.terminate();
    },
  };
}

describe('WebSocket server transport: what one client may hold', () => {
  it('one address holding its maxPeersPerAddress idle sockets and reopening them as they time out does not keep a page from another address out: it connects within a second', async () => {
    // maxPeers is small so that, unbounded, the one address would take every peer.
    const closes: PeerCloseReason[] = [];
    const transport = await WebSocketServerTransport.open({
      maxPeers: 24,
      handshakeTimeout: 0.5,
      onPeerClose: (_a, reason) => closes.push(reason),
    });
    const server = netcodeServer(transport);
    const start = performance.now();
    const now = () => (performance.now() - start) / 1000;
    const url = `ws://${transport.localAddress}/`;
    const holder = idleHolder(url, ATTACKER, 24);
    let peak = 0;
    const tick = () => {
      server.update(now());
      peak = Math.max(peak, transport.stats.peersOpen);
    };
    let page: WebSocketClientTransport | undefined;
    try {
      assert.ok(
        await until(() => holder.open >= 16 && holder.refused > 0, 5, tick),
        'the holder is at its maximum',
      );
      // Past the handshake timeout at least once: the held sockets were closed and reopened.
      assert.ok(await until(() => transport.stats.peersHandshakeTimedOut >= 16, 5, tick), 'idle peers freed');
      assert.ok(
        await until(() => transport.stats.peersOpen === 16, 5, tick),
        'reopened, up to its 16 (the default) again',
      );

      page = new WebSocketClientTransport({
        url,
        serverAddress: transport.localAddress,
        WebSocket: webSocketFrom(PAGE) as never,
      });
      const client = new Client({ transport: page, aead: nodeAead });
      const began = now();
      client.connect(tokenFor(transport.localAddress, 7n), now());
      const both = () => {
        tick();
        client.update(now());
      };
      assert.ok(await until(() => client.state === ClientState.Connected, 1, both), `page: ${client.state}`);
      console.log(`page connected in ${((now() - began) * 1000).toFixed(0)} ms beside 16 held sockets`);
      assert.ok(peak <= 17, `peers open at most 16 + the page, saw ${peak}`);
      assert.ok(transport.stats.peersRefusedPerAddress > 0);
      assert.ok(closes.includes('handshake timeout'));
      assert.ok(!closes.includes('timed out'), 'freed by the handshake deadline, not peerTimeout');
    } finally {
      holder.stop();
      page?.close();
      transport.close();
    }
  });

  it('a peer the server keeps challenging but that never completes the handshake is closed after handshakeTimeout (default 5 s), not kept by the challenges', async () => {
    const closes: PeerCloseReason[] = [];
    const transport = await WebSocketServerTransport.open({
      onPeerClose: (_a, reason) => closes.push(reason),
    });
    const server = netcodeServer(transport);
    // A valid connection request, resent every 0.1 s; the challenges are never answered.
    const read = readConnectToken(tokenFor(transport.localAddress, 9n));
    if (!read.ok) throw new Error(read.reason);
    const out = new Uint8Array(MAX_PACKET_BYTES);
    const t = read.token;
    const request = out.slice(
      0,
      new PacketCodec(PROTOCOL_ID, nodeAead).writeConnectionRequest(
        out,
        t.expireTimestamp,
        t.nonce,
        t.privateData,
      ),
    );
    const socket = await rawClientFrom(`ws://${transport.localAddress}/`, '127.0.0.5');
    const closed = new Promise<number>((resolve) => socket.once('close', (code) => resolve(code)));
    let challenges = 0;
    socket.on('message', () => challenges++);
    try {
      // The server's clock runs 0.1 s a step; each step waits for the request's challenge.
      for (let step = 0; step <= 54; step++) {
        const seen = challenges;
        socket.send(request);
        const at = step / 10;
        await until(() => transport.stats.queued > 0, 1);
        server.update(at);
        if (at < 4.9) {
          assert.ok(await until(() => challenges > seen, 1), `challenged at ${at} s`);
          assert.equal(transport.stats.peersOpen, 1, `still open at ${at} s`);
        }
      }
      assert.deepEqual(closes, ['handshake timeout']);
      assert.equal(await closed, 1008);
      assert.equal(transport.stats.peersHandshakeTimedOut, 1);
      assert.ok(server.counters.requestsAccepted >= 49, 'answered throughout');
    } finally {
      socket.terminate();
      transport.close();
    }
  });
});
