/**
 * Server memory per connected client (issue 10, W4): a real MessageServer over the in-memory
 * transport with node:crypto, CLIENTS clients connected and idle (an empty packet each way per
 * 60 Hz tick for IDLE_SECONDS, so every buffer that grows with traffic has had the traffic an idle
 * connection makes), two channels: reliable-ordered and unreliable-unordered at their defaults.
 *
 * What the server holds for its clients is measured as what dropping it frees, less what an idle
 * server with the same options holds with nobody connected; the clients stay alive throughout (they
 * are never updated again), so nothing of theirs is counted. Layers are measured alone beside it:
 * a MessageConnection with the two channels (what a connection holds before any traffic, its
 * streams shared as a server shares them), and a pair of ReliableEndpoints at
 * CHANNEL_RELIABLE_DEFAULTS after the same idle traffic (each with its own transmit buffer, 1.2 KB,
 * which a server's endpoints share).
 */
import type { ChannelConfig } from '../../src/channels/config.js';
import { defineMessage, MessageFactory } from '../../src/channels/message.js';
import { MessageConnection } from '../../src/channels/message-connection.js';
import { MessageClient, MessageServer } from '../../src/channels/message-endpoints.js';
import { MessageScratch } from '../../src/channels/message-scratch.js';
import { CHANNEL_RELIABLE_DEFAULTS } from '../../src/channels/packet-defaults.js';
import { nodeAead } from '../../src/connection/aead-node.js';
import { generateConnectToken } from '../../src/connection/connect-token.js';
import { ReliableEndpoint } from '../../src/packet/reliable-endpoint.js';
import { t } from '../../src/schema/schema.js';
import { toAddress } from '../../src/transport/address.js';
import { MemoryNetwork } from '../../src/transport/memory-transport.js';
import { check } from '../harness.js';

export const CLIENTS = 200;
const IDLE_SECONDS = 5;
const TICK = 1 / 60;
const PROTOCOL_ID = 0x6d656dn;
const PRIVATE_KEY = Uint8Array.from({ length: 32 }, (_, i) => i * 7 + 1);
const UNIX_NOW = 1_700_000_000;
const SERVER_ADDRESS = toAddress('10.0.0.2:40000');

const Ping = defineMessage('ping', t.object({ n: t.uint32() }));
const factory = new MessageFactory([Ping]);
const channels: ChannelConfig[] = [{ kind: 'reliable-ordered' }, { kind: 'unreliable-unordered' }];

export type HeapReader = () => number;

function serverFor(network: MemoryNetwork): { server: MessageServer<typeof Ping>; close(): void } {
  const transport = network.createTransport(SERVER_ADDRESS, { maxQueuedDatagrams: 4096 });
  const server = new MessageServer({
    protocolId: PROTOCOL_ID,
    privateKey: PRIVATE_KEY,
    publicAddresses: [SERVER_ADDRESS],
    transports: [transport],
    aead: nodeAead,
    unixTime: () => UNIX_NOW,
    maxDatagramsPerUpdate: 4096,
    factory,
    channels,
  });
  return { server, close: () => transport.close() };
}

/**
 * Server heap + arrayBuffers per connected idle client, bytes, the idle server's own, and the
 * server's CPU per idle client per tick (MessageServer.update alone, µs: receive, decrypt, acks,
 * statistics, an empty packet written, encrypted and sent per client).
 */
export function serverBytesPerClient(heap: HeapReader): {
  perClient: number;
  idleServer: number;
  cpuMicrosPerClientTick: number;
} {
  const network = new MemoryNetwork();
  const built = serverFor(network);
  let server: MessageServer<typeof Ping> | null = built.server;
  const clients: MessageClient<typeof Ping>[] = [];
  let now = 1;
  for (let i = 0; i < CLIENTS; i++) {
    const client = new MessageClient({
      transport: network.createTransport(),
      aead: nodeAead,
      factory,
      channels,
    });
    const token = generateConnectToken({
      protocolId: PROTOCOL_ID,
      privateKey: PRIVATE_KEY,
      clientId: BigInt(i + 1),
      serverAddresses: [SERVER_ADDRESS],
      now: UNIX_NOW,
      aead: nodeAead,
    });
    client.connect(token, now);
    clients.push(client);
  }
  let serverMicros = 0;
  const tick = () => {
    now += TICK;
    for (const client of clients) client.update(now);
    const cpu = process.cpuUsage();
    server!.update(now);
    const used = process.cpuUsage(cpu);
    serverMicros += used.user + used.system;
  };
  for (let i = 0; i < 30 && clients.some((c) => !c.connected); i++) tick();
  check(
    clients.every((c) => c.connected),
    'memory: not every client connected',
  );
  serverMicros = 0;
  const idleTicks = Math.round(IDLE_SECONDS / TICK);
  for (let i = 0; i < idleTicks; i++) tick();
  const cpuMicrosPerClientTick = serverMicros / idleTicks / CLIENTS;
  check(server.server.connectedClients === CLIENTS, 'memory: a client dropped while idle');
  const full = heap();
  built.close();
  server = null;
  built.server = null as unknown as MessageServer<typeof Ping>;
  const gone = heap();
  const idle = serverFor(network).server;
  idle.update(now);
  const idleServer = heap() - gone;
  check(idle.server.connectedClients === 0 && clients.length === CLIENTS, 'memory: state lost');
  return { perClient: (full - gone - idleServer) / CLIENTS, idleServer, cpuMicrosPerClientTick };
}

/** A MessageConnection with the two channels, as a server builds one per client (streams shared), bytes. */
export function connectionBytes(heap: HeapReader): number {
  const kept: MessageConnection<typeof Ping>[] = [];
  const scratch = new MessageScratch(1150);
  const before = heap();
  for (let i = 0; i < CLIENTS; i++)
    kept.push(new MessageConnection({ factory, channels, clientIndex: i, scratch }));
  const after = heap();
  check(kept.length === CLIENTS, 'memory: connections not built');
  return (after - before) / CLIENTS;
}

/**
 * One ReliableEndpoint at CHANNEL_RELIABLE_DEFAULTS after IDLE_SECONDS of a 60 Hz exchange, bytes;
 * with `dropEvery` n > 0, every n-th packet is lost (the first loss makes the late-ack bitmap).
 * Also the CPU per endpoint per tick of that exchange (update, send one packet, receive one), µs.
 */
export function idleEndpointBytes(
  heap: HeapReader,
  dropEvery = 0,
): { bytes: number; cpuMicrosPerTick: number } {
  const config = { maxPacketSize: 1150, fragmentAbove: 1150, ...CHANNEL_RELIABLE_DEFAULTS };
  const payload = new Uint8Array(4);
  const pairs: ReliableEndpoint[][] = [];
  const before = heap();
  for (let i = 0; i < CLIENTS / 2; i++) {
    const pair: ReliableEndpoint[] = [];
    const handler = (peer: () => ReliableEndpoint) => ({
      transmit: (s: number, data: Uint8Array, length: number) => {
        if (dropEvery === 0 || s % dropEvery !== 0) peer().receivePacket(data, 0, length);
      },
      process: () => true,
    });
    pair.push(
      new ReliableEndpoint(
        handler(() => pair[1]),
        config,
        0,
      ),
    );
    pair.push(
      new ReliableEndpoint(
        handler(() => pair[0]),
        config,
        0,
      ),
    );
    pairs.push(pair);
  }
  const cpu = process.cpuUsage();
  const ticks = Math.round(IDLE_SECONDS / TICK);
  for (let tick = 1; tick <= ticks; tick++) {
    for (const pair of pairs) {
      for (const endpoint of pair) {
        endpoint.update(tick * TICK);
        endpoint.sendPacket(payload);
      }
    }
  }
  const used = process.cpuUsage(cpu);
  const after = heap();
  check(pairs.length === CLIENTS / 2, 'memory: endpoints not built');
  return { bytes: (after - before) / CLIENTS, cpuMicrosPerTick: (used.user + used.system) / ticks / CLIENTS };
}
