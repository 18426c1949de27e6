/**
 * The server transports the transports suite compares, each as "open a server and n clients on
 * loopback" (every client's send reaches the server; `from` on the server is the client's own
 * address) and "close them all".
 */
import WebSocket from 'ws';
import { toAddress } from '../../src/transport/address.js';
import type { DatagramTransport } from '../../src/transport/transport.js';
import { UdpTransport } from '../../src/transport/udp-transport.js';
import { WebSocketClientTransport } from '../../src/transport/websocket-client-transport.js';
import { WebSocketServerTransport } from '../../src/transport/websocket-server-transport.js';
import { openRtcClient, rtcServer } from '../../test/support/webrtc-loopback.js';

export interface TransportPair {
  server: DatagramTransport;
  clients: DatagramTransport[];
  close(): Promise<void>;
}

export interface TransportKind {
  name: string;
  open(clients: number): Promise<TransportPair>;
}

const udp: TransportKind = {
  name: 'UDP',
  async open(n) {
    const big = { receiveBufferSize: 8 << 20, sendBufferSize: 8 << 20, maxQueuedDatagrams: 65536 };
    const server = await UdpTransport.open({ address: '127.0.0.1:0', ...big });
    const clients = await Promise.all(
      Array.from({ length: n }, () => UdpTransport.open({ address: '127.0.0.1:0', ...big })),
    );
    return {
      server,
      clients,
      async close() {
        server.close();
        for (const c of clients) c.close();
      },
    };
  },
};

const websocket: TransportKind = {
  name: 'WebSocket',
  async open(n) {
    const server = await WebSocketServerTransport.open({
      address: '127.0.0.1:0',
      maxQueuedDatagrams: 65536,
      peerTimeout: 60,
      // Every client is on 127.0.0.1 and speaks no netcode: the per-client bounds are lifted.
      maxPeersPerAddress: 1 << 20,
      handshakeTimeout: 600,
      handshakeDatagramsPerSecond: 1 << 20,
    });
    const port = server.localAddress.slice(server.localAddress.lastIndexOf(':') + 1);
    const clients = Array.from(
      { length: n },
      () =>
        new WebSocketClientTransport({
          url: `ws://127.0.0.1:${port}/`,
          serverAddress: toAddress(server.localAddress),
          WebSocket: WebSocket as never,
          maxQueuedDatagrams: 65536,
          maxBufferedBytes: 1 << 22,
        }),
    );
    const opened = await Promise.all(clients.map((c) => c.opened));
    if (!opened.every((ok) => ok)) throw new Error('WebSocket: a client did not open');
    return {
      server,
      clients,
      async close() {
        for (const c of clients) c.close();
        server.close();
      },
    };
  },
};

/**
 * WebRTC data channels: the server on node-datachannel (one UDP port for every peer), the clients
 * node-datachannel's standard RTCPeerConnection (what a browser runs, here in Node), signalling over
 * HTTP on loopback. A polyfill client that fails to connect under load is retried (see
 * openRtcClient); a browser offers with its own stack.
 */
const webrtc: TransportKind = {
  name: 'WebRTC',
  async open(n) {
    const s = await rtcServer({
      offersPerSecond: 100_000,
      maxPeers: 1024,
      publicIp: '127.0.0.1',
      handshakeTimeout: 600,
      idleTimeout: 600,
      // Every client is on 127.0.0.1 and speaks no netcode: the per-client bounds are lifted.
      maxPeersPerAddress: 1 << 16,
      handshakeDatagramsPerSecond: 1 << 20,
      maxQueuedDatagrams: 65536,
    });
    const clients: DatagramTransport[] = [];
    for (let i = 0; i < n; i += 25) {
      const batch = await Promise.all(
        Array.from({ length: Math.min(25, n - i) }, () => openRtcClient(s.url, s.transport.localAddress)),
      );
      clients.push(...batch);
    }
    return {
      server: s.transport,
      clients,
      async close() {
        for (const c of clients) c.close();
        await s.close();
      },
    };
  },
};

/** The kinds this machine can run. */
export async function transportKinds(): Promise<TransportKind[]> {
  return [udp, websocket, webrtc];
}
