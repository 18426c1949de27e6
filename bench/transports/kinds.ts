/**
 * The server transports the transports suite compares, each as "open a server and n clients on
 * loopback" (every client's send reaches the server; `from` on the server is the client's own
 * address) and "close them all".
 */
import WebSocket from 'ws';
import { toAddress } from '../../src/transport/address.js';
import type { DatagramTransport } from '../../src/transport/transport.js';
import { UdpTransport } from '../../src/transport/udp-transport.js';
import { WebSocketClientTransport } from '../../src/transport/websocket-client.js';
import { WebSocketServerTransport } from '../../src/transport/websocket-server.js';

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

/** The kinds this machine can run (WebRTC joins when its transport is present). */
export async function transportKinds(): Promise<TransportKind[]> {
  return [udp, websocket];
}
