/** A netcode MessageServer / MessageClient pair for the messages bench, and the check on what arrives. */

import type { ChannelConfig } from '../../src/channels/config.js';
import type { ReceivedMessage } from '../../src/channels/message.js';
import { MessageClient, MessageServer } from '../../src/channels/message-endpoints.js';
import { nodeAead } from '../../src/connection/aead-node.js';
import { generateConnectToken } from '../../src/connection/connect-token.js';
import type { Address } from '../../src/transport/address.js';
import { MemoryNetwork } from '../../src/transport/memory-transport.js';
import { NetworkSimulator } from '../../src/transport/network-simulator.js';
import type { DatagramHandler, DatagramTransport, TransportStats } from '../../src/transport/transport.js';
import { check, fail } from '../harness.js';
import { benchChannels, benchFactory, PROTOCOL_ID, wordsMatch } from './shared.js';

// --- helpers ---------------------------------------------------------------------------------------

export const unixNow = () => Math.floor(Date.now() / 1000);

/** Checks one received message against the next expected number; returns the number after it. */
export function expectNext(m: ReceivedMessage, expected: number, where: string): number {
  const value = m.value as number[];
  if (!wordsMatch(value, expected)) {
    fail(
      `messages: ${where}: expected message ${expected}, got [${value.join(', ')}] (lost, repeated or out of order)`,
    );
  }
  return expected + 1;
}

/** Records every datagram sent through a transport: count, bytes, last size and first byte. */
export class CountingTransport implements DatagramTransport {
  sent = 0;
  bytes = 0;
  lastLength = 0;
  lastPrefix = 0;
  constructor(readonly inner: DatagramTransport) {}
  get localAddress(): Address {
    return this.inner.localAddress;
  }
  get maxDatagramSize(): number {
    return this.inner.maxDatagramSize;
  }
  get closed(): boolean {
    return this.inner.closed;
  }
  stats(): Readonly<TransportStats> {
    return this.inner.stats();
  }
  send(to: Address, data: Uint8Array): void {
    this.sent++;
    this.bytes += data.length;
    this.lastLength = data.length;
    this.lastPrefix = data[0];
    this.inner.send(to, data);
  }
  receive(handler: DatagramHandler, max?: number): number {
    return this.inner.receive(handler, max);
  }
  update(now: number): void {
    this.inner.update(now);
  }
  close(): void {
    this.inner.close();
  }
}

/** A MessageServer and a connected MessageClient on an in-memory network (simulated clock). */
export function netcodePair(
  options: { simulate?: { latency: number; loss: number; seed: number }; channels?: ChannelConfig[] } = {},
) {
  const channels = options.channels ?? benchChannels;
  const network = new MemoryNetwork({ maxQueuedDatagrams: 65536 });
  const key = globalThis.crypto.getRandomValues(new Uint8Array(32));
  const serverSocket = network.createTransport('10.0.0.100:1');
  let now = 0;
  let clientIndex = -1;
  const server = new MessageServer({
    protocolId: PROTOCOL_ID,
    privateKey: key,
    publicAddresses: [serverSocket.localAddress],
    transports: [serverSocket],
    maxClients: 1,
    aead: nodeAead,
    unixTime: () => 1_700_000_000 + Math.floor(now),
    maxDatagramsPerUpdate: 65536,
    onConnect: (index) => {
      clientIndex = index;
    },
    factory: benchFactory,
    channels,
  });
  const raw = network.createTransport('10.0.0.1:1', { maxQueuedDatagrams: 65536 });
  const s = options.simulate;
  const link =
    s === undefined
      ? raw
      : new NetworkSimulator(raw, {
          seed: s.seed,
          outgoing: { latencyMs: s.latency, loss: s.loss },
          incoming: { latencyMs: s.latency, loss: s.loss },
          maxInFlight: 65536,
        });
  const transport = new CountingTransport(link);
  const client = new MessageClient({
    transport,
    aead: nodeAead,
    factory: benchFactory,
    channels,
  });
  client.connect(
    generateConnectToken({
      protocolId: PROTOCOL_ID,
      privateKey: key,
      clientId: 1n,
      serverAddresses: [serverSocket.localAddress],
      now: 1_700_000_000,
      expireSeconds: 3600,
      timeoutSeconds: 30,
      aead: nodeAead,
    }),
    now,
  );
  for (let i = 0; i < 600 && !(client.connected && clientIndex >= 0); i++) {
    now += 1 / 60;
    client.update(now);
    server.update(now);
  }
  check(client.connected && clientIndex >= 0, 'messages: the in-memory client did not connect');
  return {
    server,
    client,
    transport,
    link,
    clientIndex,
    get now() {
      return now;
    },
    set now(value: number) {
      now = value;
    },
  };
}
