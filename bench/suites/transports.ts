/**
 * The server's transports side by side (issue 12): UDP sockets, WebSocket and WebRTC data
 * channels, all on loopback in one process. Per transport:
 *   echo      16 clients each send 100-byte datagrams; the server transport receives and sends each
 *             back; datagrams echoed per second and process CPU (both ends: one process) per
 *             echoed datagram, median of rounds
 *   connect   a netcode Client's connect to connected through the transport (socket / channel
 *             setup, signalling, ICE and DTLS included), median of runs
 *   memory    process memory (heap + external + array buffers) per open peer, both ends, at 100
 *             peers
 * Socket delivery needs event-loop turns, so the rounds are timed here, not by the harness.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import { nobleAead } from '../../src/connection/aead.js';
import { Client, ClientState } from '../../src/connection/client.js';
import { generateConnectToken } from '../../src/connection/connect-token.js';
import { Server } from '../../src/connection/server.js';
import type { Address } from '../../src/transport/address.js';
import type { DatagramTransport } from '../../src/transport/transport.js';
import { check, median, type SuiteContext } from '../harness.js';
import { type TransportKind, transportKinds } from '../transports/kinds.js';

const ECHO_CLIENTS = 16;
const PAYLOAD = 100;
const MEMORY_PEERS = 100;
const PROTOCOL_ID = 0x6768_6f73_7477_6972n;
const PRIVATE_KEY = Uint8Array.from({ length: 32 }, (_, i) => (i * 29 + 3) & 0xff);

/** One round of echo for `seconds`: returns [datagrams echoed, CPU µs]. */
async function echoRound(server: DatagramTransport, clients: DatagramTransport[], seconds: number) {
  const payload = new Uint8Array(PAYLOAD).fill(7);
  let echoed = 0;
  const echo = (from: Address, data: Uint8Array) => server.send(from, data);
  const count = () => {
    echoed++;
  };
  const cpu = process.cpuUsage();
  const end = performance.now() + seconds * 1000;
  while (performance.now() < end) {
    for (const c of clients) for (let k = 0; k < 4; k++) c.send(server.localAddress, payload);
    await nextTurn();
    server.receive(echo, 4096);
    await nextTurn();
    for (const c of clients) c.receive(count, 4096);
  }
  const used = process.cpuUsage(cpu);
  return [echoed, used.user + used.system] as const;
}

async function echo(kind: TransportKind, rounds: number, seconds: number) {
  const pair = await kind.open(ECHO_CLIENTS);
  try {
    await echoRound(pair.server, pair.clients, 0.2); // warm-up
    const rates: number[] = [];
    const cpu: number[] = [];
    for (let r = 0; r < rounds; r++) {
      const [n, micros] = await echoRound(pair.server, pair.clients, seconds);
      check(n > 0, `${kind.name}: nothing echoed`);
      rates.push(n / seconds);
      cpu.push(micros / n);
    }
    return { rate: median(rates), cpuMicros: median(cpu) };
  } finally {
    await pair.close();
  }
}

/** Seconds from Client.connect to Connected through a fresh transport pair, median of `runs`. */
async function connect(kind: TransportKind, runs: number) {
  const times: number[] = [];
  for (let r = 0; r < runs; r++) {
    const start = performance.now();
    const pair = await kind.open(1);
    try {
      const now = () => (performance.now() - start) / 1000;
      const server = new Server({
        protocolId: PROTOCOL_ID,
        privateKey: PRIVATE_KEY,
        publicAddresses: [pair.server.localAddress],
        transports: [pair.server],
        aead: nobleAead,
      });
      const client = new Client({ transport: pair.clients[0], aead: nobleAead });
      const token = generateConnectToken({
        protocolId: PROTOCOL_ID,
        privateKey: PRIVATE_KEY,
        clientId: BigInt(r + 1),
        serverAddresses: [pair.server.localAddress],
        now: Math.floor(Date.now() / 1000),
      });
      client.connect(token, now());
      while (client.state !== ClientState.Connected && now() < 10) {
        server.update(now());
        client.update(now());
        await nextTurn();
      }
      check(client.state === ClientState.Connected, `${kind.name}: connect ended in state ${client.state}`);
      times.push((performance.now() - start) / 1000);
      client.disconnect();
      server.stop();
    } finally {
      await pair.close();
    }
  }
  return median(times);
}

function memoryNow(): number {
  const m = process.memoryUsage();
  return m.heapUsed + m.external + m.arrayBuffers;
}

/** Lets closed sockets finish closing, then collects garbage twice. */
async function settle(): Promise<void> {
  for (let i = 0; i < 20; i++) await nextTurn();
  globalThis.gc?.();
  await nextTurn();
  globalThis.gc?.();
}

async function memory(kind: TransportKind) {
  await settle();
  const before = memoryNow();
  const pair = await kind.open(MEMORY_PEERS);
  // One datagram each way per peer, so the buffers a live peer holds exist.
  const payload = new Uint8Array(PAYLOAD);
  for (const c of pair.clients) c.send(pair.server.localAddress, payload);
  for (let i = 0; i < 20 && pair.server.stats().received < MEMORY_PEERS; i++) {
    await nextTurn();
    pair.server.receive((from, data) => pair.server.send(from, data), 4096);
  }
  await settle();
  const per = (memoryNow() - before) / MEMORY_PEERS;
  await pair.close();
  return per;
}

export async function runTransports(ctx: SuiteContext): Promise<void> {
  const quick = ctx.options.quick;
  const rounds = quick ? 3 : 7;
  const seconds = quick ? 0.3 : 0.6;
  ctx.note(
    `\n== transports: ${ECHO_CLIENTS} clients echoing ${PAYLOAD}-byte datagrams on loopback, one process ==`,
  );
  const lines: string[] = [];
  for (const kind of await transportKinds()) {
    const e = await echo(kind, rounds, seconds);
    const c = await connect(kind, quick ? 3 : 5);
    const m = await memory(kind);
    ctx.record(`transports.${kind.name}`, { ...e, connectSeconds: c, bytesPerPeer: m });
    lines.push(
      `${kind.name.padEnd(10)} ${Math.round(e.rate).toString().padStart(10)} ${e.cpuMicros.toFixed(2).padStart(14)} ${(c * 1000).toFixed(1).padStart(12)} ${(m / 1024).toFixed(1).padStart(14)}`,
    );
  }
  ctx.note(
    [
      'transport  echoed/s   CPU µs/echo    connect ms   KiB per peer',
      ...lines,
      'echoed/s and CPU: medians of rounds; CPU is the whole process (server and clients) per datagram sent and',
      'echoed back. connect: netcode Client.connect to Connected, transport setup included (WebRTC: signalling,',
      'ICE, DTLS). KiB per peer: both ends in one process, at 100 peers.',
    ].join('\n'),
  );
}
