/**
 * What the stack keeps in memory, as heap growth after a full collection (run with --expose-gc,
 * as `npm run bench` does; without it the figures are noise):
 *
 * 1. One ReliableEndpoint (each side of a connection has one) at the reference's settings
 *    (256-entry buffers) and at CHANNEL_RELIABLE_DEFAULTS (what MessageServer / MessageClient use
 *    for long round trips), both with the channels' 1150-byte packets, as built (its buffers grow
 *    with traffic). Averaged over 200.
 * 2. A server's handshake tables full at their defaults: 2048 valid requests from fresh addresses
 *    (1024 handshakes in progress, 2048 presented tokens), measured as what `stop()` frees, so the
 *    datagrams and clients of the flood are not counted.
 *
 * 3. Per connected client (memory-per-client.ts): an endpoint after 5 s of idle 60 Hz traffic (and
 *    with 1% loss), a MessageConnection with two channels, and a real MessageServer's heap per
 *    idle connected client (issue 10's W4 memory target).
 * 4. Per connected idle player of a GameServer at its defaults (memory-game.ts, issue 25's 32 KB).
 *
 * The figures docs/channels.md ("Long round trips"), docs/packet.md, docs/connection.md and
 * BENCHMARKS.md ("Memory per connection") quote come from here.
 */
import { CHANNEL_RELIABLE_DEFAULTS } from '../../src/channels/packet-defaults.js';
import { nodeAead } from '../../src/connection/aead-node.js';
import { Client } from '../../src/connection/client.js';
import { generateConnectToken } from '../../src/connection/connect-token.js';
import { Server } from '../../src/connection/server.js';
import type { ReliableConfig } from '../../src/packet/config.js';
import { ReliableEndpoint } from '../../src/packet/reliable-endpoint.js';
import { toAddress } from '../../src/transport/address.js';
import { MemoryNetwork } from '../../src/transport/memory-transport.js';
import { check, collectAllGarbage, gcExposed, type SuiteContext } from '../harness.js';
import { GAME_PLAYERS, gameServerBytesPerPlayer } from './memory-game.js';
import { CLIENTS, connectionBytes, idleEndpointBytes, serverBytesPerClient } from './memory-per-client.js';

const KB = 1024;
const ENDPOINTS = 200;
const FLOOD = 2048;
const PROTOCOL_ID = 0x5eedn;
const PRIVATE_KEY = Uint8Array.from({ length: 32 }, (_, i) => i * 11 + 3);
const UNIX_NOW = 1_700_000_000;
const SERVER_ADDRESS = toAddress('10.0.0.1:40000');

function heapUsed(): number {
  // Twice: the first full collection can leave array buffers it found dead to a later one.
  collectAllGarbage();
  collectAllGarbage();
  const { heapUsed, arrayBuffers } = process.memoryUsage();
  return heapUsed + arrayBuffers;
}

/** Heap per endpoint, bytes, built with `config`. */
function endpointBytes(config: Partial<ReliableConfig>): number {
  const handler = { transmit() {}, process: () => true };
  const kept: ReliableEndpoint[] = [];
  const before = heapUsed();
  for (let i = 0; i < ENDPOINTS; i++) kept.push(new ReliableEndpoint(handler, config, 0));
  const after = heapUsed();
  check(kept.length === ENDPOINTS, 'memory: endpoints not built');
  return (after - before) / ENDPOINTS;
}

/** Heap the default handshake tables hold when a flood of valid requests has filled them, bytes. */
function floodedTablesBytes(): { bytes: number; pending: number } {
  const network = new MemoryNetwork();
  const transport = network.createTransport(SERVER_ADDRESS, { maxQueuedDatagrams: FLOOD });
  const server = new Server({
    protocolId: PROTOCOL_ID,
    privateKey: PRIVATE_KEY,
    publicAddresses: [SERVER_ADDRESS],
    transports: [transport],
    aead: nodeAead,
    unixTime: () => UNIX_NOW,
    maxDatagramsPerUpdate: FLOOD,
  });
  const clients: Client[] = [];
  for (let i = 0; i < FLOOD; i++) {
    const client = new Client({ transport: network.createTransport(), aead: nodeAead });
    const token = generateConnectToken({
      protocolId: PROTOCOL_ID,
      privateKey: PRIVATE_KEY,
      clientId: BigInt(i + 1),
      serverAddresses: [SERVER_ADDRESS],
      now: UNIX_NOW,
      aead: nodeAead,
    });
    client.connect(token, 1);
    client.update(1); // one connection request, never answered
    clients.push(client);
  }
  server.update(1);
  check(
    server.stats().requestsAccepted === FLOOD,
    `memory: ${server.stats().requestsAccepted} of ${FLOOD} requests accepted`,
  );
  const full = heapUsed();
  server.stop();
  const empty = heapUsed();
  check(clients.length === FLOOD, 'memory: clients not kept');
  return { bytes: full - empty, pending: Math.min(FLOOD, Math.max(1024, 4 * server.maxClients)) };
}

export async function runMemory(ctx: SuiteContext): Promise<void> {
  if (!gcExposed) ctx.note('memory: GC not exposed (run node with --expose-gc): figures are noise');
  const packets = { maxPacketSize: 1150, fragmentAbove: 1150 };
  const reference = endpointBytes(packets);
  const channels = endpointBytes({ ...packets, ...CHANNEL_RELIABLE_DEFAULTS });
  const flood = floodedTablesBytes();
  ctx.note(`ReliableEndpoint, reference buffers (256 / 256): ${(reference / KB).toFixed(0)} KB each`);
  ctx.note(
    `ReliableEndpoint, CHANNEL_RELIABLE_DEFAULTS (${CHANNEL_RELIABLE_DEFAULTS.sentPacketsBufferSize} / ${CHANNEL_RELIABLE_DEFAULTS.receivedPacketsBufferSize}): ${(channels / KB).toFixed(0)} KB each`,
  );
  ctx.note(
    `Server handshake tables after ${FLOOD} valid requests (${flood.pending} pending, ${FLOOD} tokens presented): ${(flood.bytes / KB / KB).toFixed(2)} MB`,
  );
  const { bytes: idleEndpoint, cpuMicrosPerTick: endpointMicros } = idleEndpointBytes(heapUsed);
  const lossyEndpoint = idleEndpointBytes(heapUsed, 100).bytes;
  const connection = connectionBytes(heapUsed);
  const { perClient, idleServer, cpuMicrosPerClientTick } = serverBytesPerClient(heapUsed);
  ctx.note(
    `ReliableEndpoint, CHANNEL_RELIABLE_DEFAULTS, after 5 s idle at 60 Hz: ${(idleEndpoint / KB).toFixed(1)} KB each`,
  );
  ctx.note(
    `ReliableEndpoint, the same run: ${endpointMicros.toFixed(2)} µs CPU per endpoint per tick (update, send one packet, receive one; the first 5 s of a connection)`,
  );
  ctx.record('endpointMicrosPerTick', endpointMicros);
  ctx.note(
    `ReliableEndpoint, the same with 1% of packets lost: ${(lossyEndpoint / KB).toFixed(1)} KB each (the late-ack bitmap, made at the first loss)`,
  );
  ctx.note(
    `MessageConnection, reliable-ordered + unreliable at defaults: ${(connection / KB).toFixed(1)} KB each`,
  );
  ctx.note(
    `MessageServer per connected idle client (${CLIENTS} clients, reliable-ordered + unreliable, nodeAead, 5 s idle): ${(perClient / KB).toFixed(1)} KB (idle server itself: ${(idleServer / KB).toFixed(0)} KB)`,
  );
  ctx.note(
    `MessageServer.update CPU per connected idle client per tick (the same run, 60 Hz): ${cpuMicrosPerClientTick.toFixed(1)} µs (receive, decrypt, acks, statistics, an empty packet written, encrypted and sent)`,
  );
  ctx.record('serverMicrosPerIdleClientTick', cpuMicrosPerClientTick);
  const game = await gameServerBytesPerPlayer();
  ctx.note(
    `GameServer at defaults (${GAME_PLAYERS} players, demo arena, UDP), per connected idle player: ${(game.marginal / KB).toFixed(1)} KB marginal (16 players vs 4), ${(game.allIn / KB).toFixed(1)} KB all in (16 vs none; the server with none: ${(game.empty / KB / KB).toFixed(1)} MB); the warmed process with 4 players still grew ${(game.drift / KB).toFixed(0)} KB over the 3 s before its figure`,
  );
  ctx.record('gameServerBytesPerPlayer', game.marginal);
  ctx.record('gameServerBytesPerPlayerAllIn', game.allIn);
  ctx.record('endpointIdleBytes', idleEndpoint);
  ctx.record('endpointLossyBytes', lossyEndpoint);
  ctx.record('messageConnectionBytes', connection);
  ctx.record('serverBytesPerClient', perClient);
  ctx.record('idleMessageServerBytes', idleServer);
  ctx.record('endpointReferenceBytes', reference);
  ctx.record('endpointChannelBytes', channels);
  ctx.record('floodedHandshakeTablesBytes', flood.bytes);
}
