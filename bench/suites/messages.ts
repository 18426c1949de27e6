/**
 * Messages through the channel layer (suite `messages`). The message is a tuple of eight uint32
 * (exactly 32 bytes serialized; the factory has one type, so a message carries no type bits), the
 * first word its number and the others derived from it, so every delivery is checked for order
 * and content. All traffic is one way, on one reliable-ordered channel (sendQueueSize and
 * receiveQueueSize 8192, default 1150-byte packet budget, resendInterval 0.1 s).
 *
 *  1. Throughput in memory, one process, through the harness (median of rounds): two
 *     MessageConnections joined directly (the receiver's readPacket result acks the packet at
 *     once), the same over a pair of ReliableEndpoints (packet headers and acks, no netcode), and
 *     MessageServer / MessageClient on a MemoryNetwork (netcode, node:crypto). Simulated clock,
 *     1 ms per step; every step writes, reads and acks one packet; the send queue is topped up to
 *     a fill level before each step.
 *  2. Throughput over UDP on 127.0.0.1: this process runs a MessageServer, a child process
 *     (`dist/bench/message-peer.js`) a MessageClient that sends as fast as the channel takes
 *     messages. Delivered messages per second over a window, each checked here; with the client
 *     endpoint's default sent-packet buffer (256) and with 1024.
 *  3. Reliable delivery latency under 50 ms one-way latency and 5% loss each way (NetworkSimulator
 *     on the client's in-memory transport), simulated time, 60 Hz ticks; resendInterval 0.1 s (the
 *     issue's setting) with the default resendCopies 2 and with 1 (the reference's policy), and
 *     resendInterval 0 for comparison.
 *  4. Bytes on the wire per message for packets of 1, 10, 100 messages and a full packet.
 *  5. Allocation per step (a packet each way): channels alone, empty and with messages, and the
 *     whole netcode path.
 *
 * To profile the child: GHOSTWIRE_PEER_NODE_ARGS="--cpu-prof --cpu-prof-dir=prof" (node flags for it).
 */
import { fileURLToPath } from 'node:url';
import type { ChannelConfig, MessageChannelConfig } from '../../src/channels/config.js';
import { MessageConnection } from '../../src/channels/connection.js';
import { defineMessage, MessageFactory, type ReceivedMessage } from '../../src/channels/message.js';
import { MessageClient, MessageServer } from '../../src/channels/message-endpoints.js';
import { nodeAead } from '../../src/connection/aead-node.js';
import { generateConnectToken } from '../../src/connection/connect-token.js';
import { ReliableEndpoint } from '../../src/packet/endpoint.js';
import { t } from '../../src/schema/schema.js';
import type { Address } from '../../src/transport/address.js';
import { MemoryNetwork } from '../../src/transport/memory-transport.js';
import { NetworkSimulator } from '../../src/transport/simulator.js';
import type { DatagramHandler, DatagramTransport, TransportStats } from '../../src/transport/transport.js';
import { UdpTransport } from '../../src/transport/udp-transport.js';
import { check, fail, fmt, measure, type SuiteContext } from '../harness.js';
import { allocatedPerIteration } from '../support/allocation.js';
import { JsonLineChild, sleep, withDeadline } from '../support/child-process.js';
import {
  type CpuSample,
  cores,
  cpuPercent,
  cpuSample,
  kernelUdpErrors,
  kernelUdpErrorsSince,
  machineCpu,
  machineCpuPercent,
} from '../support/process-stats.js';

// --- shared with the child process (bench/message-peer.ts) ---------------------------------------

/** 32 bytes serialized: eight uint32, no type bits (one type). */
export const Bench32 = defineMessage('bench32', t.tuple(t.uint32(), 8));
export const benchFactory = new MessageFactory([Bench32]);
export const QUEUE_SIZE = 8192;
export const RESEND_INTERVAL = 0.1;
export const benchChannels: MessageChannelConfig[] = [
  {
    kind: 'reliable-ordered',
    sendQueueSize: QUEUE_SIZE,
    receiveQueueSize: QUEUE_SIZE,
    resendInterval: RESEND_INTERVAL,
  },
];
/** A send queue kept nearly full: QUEUE_SIZE less room for messages delivered but not yet acked. */
export const FULL_FILL = QUEUE_SIZE - 192;
export const PROTOCOL_ID = 0x6768_6f73_7477_6972n;
export type Words = [number, number, number, number, number, number, number, number];

/** Fills `value` with message number `n` (word 0) and words derived from it. */
export function fillWords(value: Words, n: number): Words {
  value[0] = n >>> 0;
  for (let i = 1; i < 8; i++) value[i] = (n ^ Math.imul(i, 0x9e3779b1)) >>> 0;
  return value;
}

/** True when `value` is exactly what fillWords(n) writes. */
export function wordsMatch(value: readonly number[], n: number): boolean {
  if (value.length !== 8 || value[0] !== n >>> 0) return false;
  for (let i = 1; i < 8; i++) if (value[i] !== (n ^ Math.imul(i, 0x9e3779b1)) >>> 0) return false;
  return true;
}

// --- helpers ---------------------------------------------------------------------------------------

const CHILD = fileURLToPath(new URL('../message-peer.js', import.meta.url));
const unixNow = () => Math.floor(Date.now() / 1000);

/** Checks one received message against the next expected number; returns the number after it. */
function expectNext(m: ReceivedMessage, expected: number, where: string): number {
  const value = m.value as number[];
  if (!wordsMatch(value, expected)) {
    fail(
      `messages: ${where}: expected message ${expected}, got [${value.join(', ')}] (lost, repeated or out of order)`,
    );
  }
  return expected + 1;
}

/** Records every datagram sent through a transport: count, bytes, last size and first byte. */
class CountingTransport implements DatagramTransport {
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
  get stats(): TransportStats {
    return this.inner.stats;
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
function netcodePair(
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
          outgoing: { latency: s.latency, loss: s.loss },
          incoming: { latency: s.latency, loss: s.loss },
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

// --- 1. throughput in memory -------------------------------------------------------------------

interface Runner {
  /** Sends and delivers `n` more messages (checked); returns a checksum. */
  run(n: number): number;
  packets(): number;
  messages(): number;
}

/** A sender and receiver stepping one packet at a time, the queue topped up to `fill` before each. */
function stepper(
  fill: number,
  send: (value: Words) => void,
  step: () => void,
  receive: () => ReceivedMessage | null,
  where: string,
): Runner {
  const value = fillWords([0, 0, 0, 0, 0, 0, 0, 0], 0);
  let nextSend = 0;
  let expected = 0;
  let packets = 0;
  return {
    run(n) {
      const target = expected + n;
      let idle = 0;
      while (expected < target) {
        // Sent and not yet delivered: the queue depth less what was delivered but not acked yet
        // (at most the last step's messages), hence fills a little under the queue size. Not
        // bounded by the batch: the queue stays at its level from one batch to the next.
        for (let depth = nextSend - expected; depth < fill; depth++) send(fillWords(value, nextSend++));
        step();
        packets++;
        const before = expected;
        for (let m = receive(); m !== null; m = receive()) expected = expectNext(m, expected, where);
        if (expected === before && ++idle > 10_000) fail(`messages: ${where}: no progress`);
      }
      return expected;
    },
    packets: () => packets,
    messages: () => expected,
  };
}

function directRunner(fill: number): Runner {
  const a = new MessageConnection({ factory: benchFactory, channels: benchChannels });
  const b = new MessageConnection({ factory: benchFactory, channels: benchChannels });
  let now = 0;
  return stepper(
    fill,
    (value) => a.send(0, Bench32, value),
    () => {
      now += 0.001;
      const { data, record } = a.writePacket(now);
      if (b.readPacket(data, 0, data.length)) a.acked(record);
    },
    () => b.receive(0),
    `direct pair, fill ${fill}`,
  );
}

function endpointRunner(fill: number): Runner {
  const a = new MessageConnection({ factory: benchFactory, channels: benchChannels });
  const b = new MessageConnection({ factory: benchFactory, channels: benchChannels });
  const config = { maxPacketSize: a.packetBudgetBytes, fragmentAbove: a.packetBudgetBytes };
  let epB: ReliableEndpoint<number[]>;
  const epA: ReliableEndpoint<number[]> = new ReliableEndpoint<number[]>(
    {
      transmit: (_s, data, length) => epB.receivePacket(data, 0, length),
      process: (_s, data, offset, length) => a.readPacket(data, offset, length),
      onAcked: (_s, record) => a.acked(record!),
    },
    config,
  );
  epB = new ReliableEndpoint<number[]>(
    {
      transmit: (_s, data, length) => epA.receivePacket(data, 0, length),
      process: (_s, data, offset, length) => b.readPacket(data, offset, length),
      onAcked: (_s, record) => b.acked(record!),
    },
    config,
  );
  let now = 0;
  return stepper(
    fill,
    (value) => a.send(0, Bench32, value),
    () => {
      now += 0.001;
      epA.update(now);
      epB.update(now);
      const pa = a.writePacket(now);
      epA.sendPacket(pa.data, pa.data.length, pa.record);
      const pb = b.writePacket(now); // empty: carries the acks back
      epB.sendPacket(pb.data, pb.data.length, pb.record);
    },
    () => b.receive(0),
    `endpoint pair, fill ${fill}`,
  );
}

function netcodeRunner(fill: number): Runner {
  const p = netcodePair();
  const index = p.clientIndex;
  return stepper(
    fill,
    (value) => p.client.send(0, Bench32, value),
    () => {
      p.now += 0.001;
      p.client.update(p.now);
      p.server.update(p.now);
    },
    () => p.server.receive(index, 0),
    `MessageServer/MessageClient in memory, fill ${fill}`,
  );
}

function runInMemory(ctx: SuiteContext): Record<string, number> {
  const full = `fill ${FULL_FILL}`;
  const contestants: [string, Runner][] = [
    [`direct pair, ${full}`, directRunner(FULL_FILL)],
    ['direct pair, fill 256', directRunner(256)],
    [`endpoint pair, ${full}`, endpointRunner(FULL_FILL)],
    ['endpoint pair, fill 256', endpointRunner(256)],
    [`netcode in memory, ${full}`, netcodeRunner(FULL_FILL)],
    ['netcode in memory, fill 256', netcodeRunner(256)],
  ];
  // Fixed batches: calibrating from tiny batches (a few packets) misjudges the steady state.
  const iterations = ctx.options.quick ? 30_000 : 60_000;
  const results = measure(
    contestants.map(([name, runner]) => ({ name, units: 1, iterations, run: (n: number) => runner.run(n) })),
    ctx.options,
  );
  const perPacket: Record<string, string> = {};
  const rates: Record<string, string> = {};
  const out: Record<string, number> = {};
  for (const [name, runner] of contestants) {
    const r = results.find((x) => x.name === name)!;
    perPacket[name] = fmt(runner.messages() / runner.packets());
    rates[name] = `${fmt(1e9 / r.median)}`;
    out[name] = 1e9 / r.median;
  }
  ctx.table({
    title:
      'In memory, one process, one direction: 32-byte messages on a reliable-ordered channel, end to end (send, writePacket, readPacket, ack, receive + check)',
    unit: 'message',
    baseline: 'direct pair, fill 256',
    results,
    columns: [
      { header: 'messages/s', values: rates },
      { header: '~msgs/packet', values: perPacket },
    ],
    notes: [
      "direct pair: two MessageConnections, the receiver's readPacket result acks the packet at once (no packet layer).",
      'endpoint pair: the same over two ReliableEndpoints (16-bit sequences, ack bits, one empty packet back per step).',
      'netcode in memory: MessageClient -> MessageServer on a MemoryNetwork, netcode 1.02 packets, node:crypto AEAD.',
      `"fill N": before every step the sender tops up to N messages sent and not yet delivered (${FULL_FILL}: the ${QUEUE_SIZE}-message queue nearly full,`,
      '  as a sender with a backlog keeps it); one packet each way per step, 1 ms simulated. Messages/s = 1e9 / median ns.',
    ],
  });
  return out;
}

// --- 2. throughput over UDP, separate processes ---------------------------------------------------

interface PeerMark extends CpuSample {
  time: number;
  sent: number;
  datagrams: number;
  bytes: number;
  fullPackets: number;
  emptyPackets: number;
  turns: number;
  packetsLost: number;
  rtt: number;
  queue: number;
}

interface UdpResult {
  rate: number;
  windowSeconds: number;
  delivered: number;
  sent: number;
  serverCpu: number;
  clientCpu: number;
  clientDatagramsPerSecond: number;
  messagesPerDatagram: number;
  bytesPerDatagram: number;
  serverUpdatesPerSecond: number;
  serverDatagramsPerUpdate: number;
  clientTurnsPerSecond: number;
  emptyPacketsPerSecond: number;
  packetsLost: number;
  rtt: number;
  queue: number;
  drops: number;
  /** All CPUs over the window, % of one core (null off Linux): above server + client = other load. */
  machineBusy: number | null;
  kernel: Record<string, number> | null;
}

async function runUdp(
  windowSeconds: number,
  warmupSeconds: number,
  fill: number,
  sentBuffer: number,
): Promise<UdpResult> {
  const transport = await UdpTransport.open({
    address: '127.0.0.1:0',
    receiveBufferSize: 8 << 20,
    sendBufferSize: 8 << 20,
    maxQueuedDatagrams: 65536,
    maxPendingSends: 4096,
  });
  const privateKey = globalThis.crypto.getRandomValues(new Uint8Array(32));
  let clientIndex = -1;
  const server = new MessageServer({
    protocolId: PROTOCOL_ID,
    privateKey,
    publicAddresses: [transport.localAddress],
    transports: [transport],
    maxClients: 1,
    aead: nodeAead,
    // Every update acks what it read (an ack header covers the last 33 packets).
    maxDatagramsPerUpdate: 32,
    onConnect: (index) => {
      clientIndex = index;
    },
    factory: benchFactory,
    channels: benchChannels,
  });
  const token = generateConnectToken({
    protocolId: PROTOCOL_ID,
    privateKey,
    clientId: 1n,
    serverAddresses: [transport.localAddress],
    now: unixNow(),
    expireSeconds: 60,
    timeoutSeconds: 10,
    aead: nodeAead,
  });

  const start = performance.now();
  const clock = () => (performance.now() - start) / 1000;
  let received = 0;
  let updates = 0;
  let running = true;
  let loopError: unknown = null;
  let lastUpdate = Number.NEGATIVE_INFINITY;
  // The server loop: every event-loop turn with datagrams waiting (or 1 ms after the last), update
  // until the socket queue is empty (at most 32 datagrams per update, each update sends one packet).
  const loop = () => {
    if (!running) return;
    try {
      const now = clock();
      if (transport.stats.queued >= SERVER_BATCH || now - lastUpdate >= 0.0005) {
        lastUpdate = now;
        let k = 0;
        do {
          server.update(now);
          updates++;
          if (clientIndex >= 0 && server.server.isConnected(clientIndex)) {
            for (let m = server.receive(clientIndex, 0); m !== null; m = server.receive(clientIndex, 0))
              received = expectNext(m, received, 'UDP');
          }
        } while (transport.stats.queued > 0 && ++k < 64);
      }
      setImmediate(loop);
    } catch (error) {
      loopError = error;
      running = false;
    }
  };
  const kernelBefore = kernelUdpErrors();
  const peer = new JsonLineChild({
    script: CHILD,
    args: [
      '--server',
      transport.localAddress,
      '--fill',
      String(fill),
      '--sent-buffer',
      String(sentBuffer),
      '--max-seconds',
      String(Math.ceil(windowSeconds + warmupSeconds + 30)),
    ],
    // GHOSTWIRE_PEER_NODE_ARGS: extra node flags for the child, e.g. "--cpu-prof --cpu-prof-dir=prof".
    nodeArgs: (process.env.GHOSTWIRE_PEER_NODE_ARGS ?? '').split(/\s+/).filter((a) => a !== ''),
    suite: 'messages',
    name: 'message-peer',
  });
  const mark = async (id: number) => {
    const s = {
      time: clock(),
      received,
      updates,
      datagrams: transport.stats.received,
      cpu: cpuSample(),
      machine: machineCpu(),
    };
    peer.send({ type: 'mark', id });
    const c = (await peer.next('mark', 5000, `waiting for mark ${id}`)) as unknown as PeerMark & {
      id: number;
    };
    check(c.id === id, `messages: mark ${c.id} answered for ${id}`);
    return { s, c };
  };
  const checkLoop = () => {
    if (loopError !== null) throw loopError;
  };
  try {
    loop();
    await peer.next('ready', 10_000, 'opening its socket');
    peer.send({ type: 'token', token: Buffer.from(token).toString('base64') });
    await peer.next('connected', 10_000, 'connecting');
    checkLoop();
    peer.send({ type: 'start' });
    await sleep(warmupSeconds * 1000);
    checkLoop();
    const m1 = await mark(1);
    await sleep(windowSeconds * 1000);
    checkLoop();
    const m2 = await mark(2);
    peer.send({ type: 'stop' });
    const stopped = await peer.next('stopped', 5000, 'stopping');
    const sent = Number(stopped.sent);
    const drainUntil = performance.now() + 5000;
    while (received < sent && performance.now() < drainUntil) {
      checkLoop();
      await sleep(10);
    }
    checkLoop();
    check(received === sent, `messages: UDP: ${received} of ${sent} messages delivered after a 5 s drain`);
    const wall = m2.s.time - m1.s.time;
    const childWall = m2.c.time - m1.c.time;
    const datagrams = m2.c.datagrams - m1.c.datagrams;
    const kernelAfter = kernelUdpErrors();
    return {
      rate: (m2.s.received - m1.s.received) / wall,
      windowSeconds: wall,
      delivered: received,
      sent,
      serverCpu: cpuPercent(m1.s.cpu, m2.s.cpu, wall),
      clientCpu: cpuPercent(m1.c, m2.c, childWall),
      clientDatagramsPerSecond: datagrams / childWall,
      messagesPerDatagram: (m2.s.received - m1.s.received) / Math.max(1, datagrams),
      bytesPerDatagram: (m2.c.bytes - m1.c.bytes) / Math.max(1, datagrams),
      serverUpdatesPerSecond: (m2.s.updates - m1.s.updates) / wall,
      serverDatagramsPerUpdate: (m2.s.datagrams - m1.s.datagrams) / Math.max(1, m2.s.updates - m1.s.updates),
      clientTurnsPerSecond: (m2.c.turns - m1.c.turns) / childWall,
      emptyPacketsPerSecond: (m2.c.emptyPackets - m1.c.emptyPackets) / childWall,
      packetsLost: m2.c.packetsLost - m1.c.packetsLost,
      rtt: m2.c.rtt,
      queue: m2.c.queue,
      drops: transport.stats.dropped,
      machineBusy: machineCpuPercent(m1.s.machine, m2.s.machine)?.busyPercent ?? null,
      kernel: kernelUdpErrorsSince(kernelBefore, kernelAfter),
    };
  } finally {
    running = false;
    await peer.stop(2000).catch(() => peer.kill());
    peer.kill();
    transport.close();
  }
}

/**
 * The server updates once this many datagrams wait (or 0.5 ms after its last update): fewer
 * updates mean fewer ack packets to encrypt and send, and 16 stays well inside the 33 packets one
 * ack header covers.
 */
const SERVER_BATCH = 16;

// --- 3. latency under loss ------------------------------------------------------------------------

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

const LATENCY_MS = 50;
const LOSS_PERCENT = 5;
const HZ = 60;
const PER_TICK = 4;

/** One simulated run: latencies (ms, sorted) of every message, and the simulator's counters. */
function latencyRun(resendInterval: number, resendCopies: number, seconds: number) {
  const channels: ChannelConfig[] = [{ ...benchChannels[0], resendInterval, resendCopies }];
  const p = netcodePair({ simulate: { latency: LATENCY_MS, loss: LOSS_PERCENT, seed: 0x5eed }, channels });
  const index = p.clientIndex;
  const base = Math.round(p.now * HZ) + 1;
  const value = fillWords([0, 0, 0, 0, 0, 0, 0, 0], 0);
  const sentAt: number[] = [];
  const latencies: number[] = [];
  let expected = 0;
  const ticks = seconds * HZ;
  // Send for `seconds`, then let the last ones arrive.
  for (let k = 0; k < ticks + 5 * HZ && expected < ticks * PER_TICK; k++) {
    const tick = base + k;
    const now = tick / HZ;
    if (k < ticks) {
      for (let i = 0; i < PER_TICK; i++) {
        sentAt.push(now);
        p.client.send(0, Bench32, fillWords(value, sentAt.length - 1));
      }
    }
    p.now = now;
    p.client.update(now); // releases what the simulator holds, then sends this tick's packet
    p.server.update(now);
    for (let m = p.server.receive(index, 0); m !== null; m = p.server.receive(index, 0)) {
      latencies.push((now - sentAt[expected]) * 1000);
      expected = expectNext(m, expected, 'latency');
    }
  }
  check(expected === sentAt.length, `messages: latency: ${expected} of ${sentAt.length} delivered`);
  return {
    sorted: latencies.sort((a, b) => a - b),
    link: (p.link as NetworkSimulator).counters,
    sends: (sentAt.length + p.client.stats().messages.messagesResent) / sentAt.length,
  };
}

function runLatency(ctx: SuiteContext): void {
  const seconds = ctx.options.quick ? 60 : 300;
  const tickMs = 1000 / HZ;
  const ideal = LATENCY_MS + tickMs;
  const bound = LATENCY_MS + RESEND_INTERVAL * 1000 + tickMs;
  ctx.note('');
  ctx.note(
    `Reliable delivery latency: MessageClient -> MessageServer in memory through a NetworkSimulator, ${LATENCY_MS} ms one-way latency and ${LOSS_PERCENT}% loss`,
  );
  ctx.note(
    `each way (acks too), simulated time, ${HZ} Hz ticks (client update, then server update), ${PER_TICK} messages per tick for ${seconds} s, same seed per row;`,
  );
  ctx.note(
    'latency = receive tick time - send tick time (queued just before the client update that sends it).',
  );
  ctx.note(
    `ideal = one-way latency + one tick = ${ideal.toFixed(1)} ms; issue bound = latency + resend interval (${RESEND_INTERVAL * 1000} ms) + one tick = ${bound.toFixed(1)} ms.`,
  );
  const rows: string[][] = [];
  const policies = [
    {
      name: `resendInterval ${RESEND_INTERVAL * 1000} ms, resendCopies 2 (default)`,
      interval: RESEND_INTERVAL,
      copies: 2,
    },
    {
      name: `resendInterval ${RESEND_INTERVAL * 1000} ms, resendCopies 1 (reference)`,
      interval: RESEND_INTERVAL,
      copies: 1,
    },
    { name: 'resendInterval 0 (every packet)', interval: 0, copies: 1 },
  ];
  for (const policy of policies) {
    const { sorted, link, sends } = latencyRun(policy.interval, policy.copies, seconds);
    const within = (limit: number) => sorted.filter((v) => v <= limit + 1e-6).length / sorted.length;
    const p99 = percentile(sorted, 99);
    rows.push([
      policy.name,
      fmt(sorted.length),
      percentile(sorted, 50).toFixed(1),
      percentile(sorted, 90).toFixed(1),
      p99.toFixed(1),
      percentile(sorted, 99.9).toFixed(1),
      sorted[sorted.length - 1].toFixed(1),
      `${(within(ideal) * 100).toFixed(1)}%`,
      `${(within(bound) * 100).toFixed(2)}%`,
      p99 <= bound + 1e-6 ? 'yes' : 'NO',
      sends.toFixed(2),
      `${link.outgoing.lost}/${link.outgoing.offered}, ${link.incoming.lost}/${link.incoming.offered}`,
    ]);
    ctx.record(`latency resend ${policy.interval} copies ${policy.copies}`, {
      p50: percentile(sorted, 50),
      p90: percentile(sorted, 90),
      p99,
      p999: percentile(sorted, 99.9),
      max: sorted[sorted.length - 1],
      ideal,
      bound,
      withinIdeal: within(ideal),
      withinBound: within(bound),
      messages: sorted.length,
      sendsPerMessage: sends,
    });
  }
  printRows(
    ctx,
    [
      'channel',
      'messages',
      'p50 ms',
      'p90',
      'p99',
      'p99.9',
      'max',
      '<= ideal',
      '<= bound',
      'p99 in bound',
      'sends / message',
      'datagrams lost c->s, s->c',
    ],
    rows,
  );
  ctx.note(
    '  resendInterval 0: an unacked message rides again in every packet (room permitting); at 4 messages per tick the packets have room.',
  );
}

/** Prints a plain table: the first column left-aligned, the others right-aligned. */
function printRows(ctx: SuiteContext, headers: string[], rows: string[][]): void {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  ctx.note(line(headers));
  ctx.note(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const r of rows) ctx.note(line(r));
}

// --- 4. bytes on the wire ---------------------------------------------------------------------------

function runOverhead(ctx: SuiteContext): void {
  // How many fit in one packet, from a plain MessageConnection.
  const probe = new MessageConnection({ factory: benchFactory, channels: benchChannels });
  const probeReceiver = new MessageConnection({ factory: benchFactory, channels: benchChannels });
  const value = fillWords([0, 0, 0, 0, 0, 0, 0, 0], 0);
  for (let i = 0; i < 300; i++) probe.send(0, Bench32, fillWords(value, i));
  const first = probe.writePacket(0).data;
  check(probeReceiver.readPacket(first, 0, first.length), 'messages: overhead probe packet rejected');
  let perPacket = 0;
  while (probeReceiver.receive(0) !== null) perPacket++;
  const sizes = [1, 10, 100, perPacket];
  const p = netcodePair();
  const index = p.clientIndex;
  let next = 0;
  let expected = 0;
  const settle = () => {
    for (let i = 0; i < 10; i++) {
      p.now += 1 / 60;
      p.client.update(p.now);
      p.server.update(p.now);
    }
  };
  settle();
  const rows: string[][] = [];
  for (const count of sizes) {
    // Channel data alone: the same messages through a fresh MessageConnection.
    const c = new MessageConnection({ factory: benchFactory, channels: benchChannels });
    for (let i = 0; i < count; i++) c.send(0, Bench32, fillWords(value, i));
    let channelBytes = 0;
    for (let i = 0; i < 100 && c.queueDepths()[0].send > 0; i++) {
      const { data, record } = c.writePacket(i * 1000);
      channelBytes += data.length;
      c.acked(record);
    }
    for (let i = 0; i < count; i++) p.client.send(0, Bench32, fillWords(value, next++));
    const target = expected + count;
    let datagrams = 0;
    let bytes = 0;
    let seqBytes = 0;
    for (let i = 0; i < 100 && expected < target; i++) {
      p.now += 1 / 60;
      const before = { sent: p.transport.sent, bytes: p.transport.bytes };
      p.client.update(p.now);
      datagrams += p.transport.sent - before.sent;
      bytes += p.transport.bytes - before.bytes;
      seqBytes = p.transport.lastPrefix >> 4;
      p.server.update(p.now);
      for (let m = p.server.receive(index, 0); m !== null; m = p.server.receive(index, 0))
        expected = expectNext(m, expected, 'overhead');
    }
    check(expected === target, `messages: overhead: ${count} messages not delivered`);
    const netcode = datagrams * (1 + seqBytes + 16);
    const reliable = bytes - netcode - channelBytes;
    rows.push([
      count === perPacket ? `${count} (a full packet)` : String(count),
      String(datagrams),
      String(bytes),
      `${channelBytes - count * 32} / ${reliable} / ${netcode}`,
      (bytes / count).toFixed(1),
      (bytes / count - 32).toFixed(1),
      ((bytes + 28 * datagrams) / count - 32).toFixed(1),
    ]);
    ctx.record(`overhead ${count}`, {
      datagrams,
      bytes,
      channelBytes,
      reliable,
      netcode,
      perMessage: bytes / count,
    });
    settle();
  }
  ctx.note('');
  ctx.note(
    'Bytes on the wire: 32-byte messages sent in one go from a connected MessageClient (default 1150-byte budget), netcode datagrams counted until all arrived:',
  );
  printRows(
    ctx,
    [
      'messages',
      'datagrams',
      'bytes',
      'channel framing / reliable hdr / netcode',
      'bytes/msg',
      'overhead/msg',
      '+IPv4/UDP (28)',
    ],
    rows,
  );
  ctx.note(
    '  bytes = netcode datagram sizes (prefix, sequence, encrypted payload, 16-byte MAC); channel framing = channel-data bytes beyond 32 per message;',
  );
  ctx.note(
    `  netcode = 1 prefix + sequence bytes + 16 MAC per datagram; reliable hdr = the rest. Over ${perPacket} messages a message rides in a later packet.`,
  );
}

// --- 5. allocation per packet --------------------------------------------------------------------

async function runAllocation(ctx: SuiteContext): Promise<void> {
  const iterations = ctx.options.quick ? 50_000 : 200_000;
  const Position = defineMessage(
    'position',
    t.object({ x: t.float(-512, 512, 0.01), z: t.float(-512, 512, 0.01) }),
  );
  const factory = new MessageFactory([Bench32, Position]);
  const channels: ChannelConfig[] = [{ kind: 'reliable-ordered' }, { kind: 'unreliable-sequenced' }];
  const directPair = (messages: boolean) => {
    const a = new MessageConnection({ factory, channels });
    const b = new MessageConnection({ factory, channels });
    const value = fillWords([0, 0, 0, 0, 0, 0, 0, 0], 0);
    const position = { x: 1.5, z: -2.25 };
    let tick = 0; // an integer: a captured double would be a new heap number per step
    return (n: number) => {
      for (let i = 0; i < n; i++) {
        const now = ++tick / 60;
        if (messages) {
          a.send(0, Bench32, value);
          a.send(1, Position, position);
        }
        const out = a.writePacket(now);
        const record = out.record;
        b.readPacket(out.data, 0, out.data.length);
        a.acked(record);
        while (b.receive(0) !== null);
        while (b.receive(1) !== null);
        const back = b.writePacket(now);
        a.readPacket(back.data, 0, back.data.length);
      }
    };
  };
  const netcode = () => {
    const p = netcodePair({});
    return (n: number) => {
      for (let i = 0; i < n; i++) {
        p.now += 1 / 60;
        p.client.update(p.now);
        p.server.update(p.now);
      }
    };
  };
  const rows = [
    ['two MessageConnections, empty packets', await allocatedPerIteration(directPair(false), iterations)],
    [
      'two MessageConnections, a 32-byte reliable + a sequenced message per packet',
      await allocatedPerIteration(directPair(true), iterations),
    ],
    [
      'MessageClient <-> MessageServer (netcode, node:crypto), empty packets',
      await allocatedPerIteration(netcode(), iterations / 10),
    ],
  ] as const;
  ctx.note('');
  ctx.note(
    'Allocation per step (one packet each way), sampled by V8 with collected objects counted (bench/support/allocation.ts):',
  );
  for (const [name, bytes] of rows) {
    ctx.note(`  ${name}: ${fmt(Math.round(bytes))} bytes`);
    ctx.record(`allocation: ${name}`, bytes);
  }
  ctx.note(
    "  empty packets: the 16 bytes are the step's time, a double passed to a call and so boxed as a heap number (any game loop pays it once per tick);",
  );
  ctx.note(
    '  with messages: each message keeps its serialized bytes until acked and arrives as a new value; the netcode row is node:crypto cipher objects and views.',
  );
}

// --- the suite -------------------------------------------------------------------------------------

export async function runMessages(ctx: SuiteContext): Promise<void> {
  const rates = runInMemory(ctx);
  ctx.record('inMemory', rates);

  const windowSeconds = ctx.options.quick ? 2 : 5;
  const warmupSeconds = ctx.options.quick ? 0.5 : 1;
  const runs = [
    { fill: QUEUE_SIZE, sentBuffer: 256 },
    { fill: QUEUE_SIZE, sentBuffer: 1024 },
  ];
  ctx.note(
    `Over UDP on 127.0.0.1: MessageServer here, MessageClient in a child process (dist/bench/message-peer.js), netcode encrypted with node:crypto both ends;`,
  );
  ctx.note(
    `the client sends messages as fast as its queue takes them (topped up to the fill level every turn), one direction; ${windowSeconds} s window after ${warmupSeconds} s warm-up.`,
  );
  ctx.note(
    'Tick: no fixed rate. Client: each event-loop turn reads its socket and writes packets back to back while they carry messages (up to 64);',
  );
  ctx.note(
    'an empty packet ends the burst and the next update waits for a datagram or 1 ms. Server: once 16 datagrams wait (or 0.5 ms passed), updates',
  );
  ctx.note(
    'until the socket queue is empty, at most 32 datagrams per update (each update sends one packet: the acks). Every message checked for order and content.',
  );
  ctx.note(
    "sent buffer = the client ReliableEndpoint's sentPacketsBufferSize (default 256): a packet whose ack comes after 256 newer packets counts lost.",
  );
  for (const { fill, sentBuffer } of runs) {
    const r = await withDeadline(
      (windowSeconds + warmupSeconds + 40) * 1000,
      `messages: UDP run (fill ${fill}, sent buffer ${sentBuffer})`,
      runUdp(windowSeconds, warmupSeconds, fill, sentBuffer),
    );
    ctx.note(
      `  fill ${fill}, sent buffer ${sentBuffer}: ${fmt(r.rate)} messages/s delivered in order over ${r.windowSeconds.toFixed(2)} s (${fmt(r.delivered)} in all, each checked; all ${fmt(r.sent)} sent arrived)`,
    );
    ctx.note(
      `    client ${fmt(r.clientDatagramsPerSecond)} datagrams/s (${fmt(r.emptyPacketsPerSecond)}/s empty), ${r.messagesPerDatagram.toFixed(1)} delivered messages and ${fmt(r.bytesPerDatagram)} bytes per datagram; ${fmt(r.clientTurnsPerSecond)} loop turns/s; rtt ${r.rtt.toFixed(2)} ms; queue ${r.queue} at the end`,
    );
    ctx.note(
      `    CPU: server process ${r.serverCpu.toFixed(0)}%, client process ${r.clientCpu.toFixed(0)}% of one core (${r.machineBusy === null ? 'other load n/a' : `whole machine ${r.machineBusy.toFixed(0)}% of ${cores * 100}%, so other processes ~${Math.max(0, r.machineBusy - r.serverCpu - r.clientCpu).toFixed(0)}%`}); server ${fmt(r.serverUpdatesPerSecond)} updates/s, ${r.serverDatagramsPerUpdate.toFixed(1)} datagrams per update`,
    );
    ctx.note(
      `    client endpoint-reported lost packets ${r.packetsLost} in the window; server queue drops ${r.drops}; kernel UDP errors (system-wide) ${r.kernel === null ? 'n/a' : JSON.stringify(r.kernel)}`,
    );
    ctx.record(`udp fill ${fill} sent buffer ${sentBuffer}`, r);
  }

  runLatency(ctx);
  runOverhead(ctx);
  await runAllocation(ctx);
}
