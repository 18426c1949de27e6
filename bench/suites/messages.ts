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
 *     issue's setting) with resendCopies 2 (default) and 1 (the reference's), and resendInterval 0.
 *  4. Bytes on the wire per message for packets of 1, 10, 100 messages and a full packet.
 *  5. Allocation per step (a packet each way): channels, empty and with messages; netcode.
 * Parts 3 to 5 live in bench/messages/ (latency.ts, wire.ts), with the workload and the pair.
 * To profile the child: GHOSTWIRE_PEER_NODE_ARGS="--cpu-prof --cpu-prof-dir=prof" (node flags for it).
 */
import { fileURLToPath } from 'node:url';
import type { ReceivedMessage } from '../../src/channels/message.js';
import { MessageConnection } from '../../src/channels/message-connection.js';
import { MessageServer } from '../../src/channels/message-endpoints.js';
import { nodeAead } from '../../src/connection/aead-node.js';
import { generateConnectToken } from '../../src/connection/connect-token.js';
import { ReliableEndpoint } from '../../src/packet/reliable-endpoint.js';
import { UdpTransport } from '../../src/transport/udp-transport.js';
import { check, fail, fmt, measure, type SuiteContext } from '../harness.js';
import { runLatency } from '../messages/latency.js';
import { expectNext, netcodePair, unixNow } from '../messages/pair.js';
import {
  Bench32,
  benchChannels,
  benchFactory,
  FULL_FILL,
  fillWords,
  PROTOCOL_ID,
  QUEUE_SIZE,
  type Words,
} from '../messages/shared.js';
import { runAllocation, runOverhead } from '../messages/wire.js';
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

export {
  Bench32,
  benchChannels,
  benchFactory,
  FULL_FILL,
  fillWords,
  PROTOCOL_ID,
  QUEUE_SIZE,
  RESEND_INTERVAL,
  type Words,
  wordsMatch,
} from '../messages/shared.js';

const CHILD = fileURLToPath(new URL('../message-peer.js', import.meta.url));

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
      if (transport.stats().queued >= SERVER_BATCH || now - lastUpdate >= 0.0005) {
        lastUpdate = now;
        let k = 0;
        do {
          server.update(now);
          updates++;
          if (clientIndex >= 0 && server.server.isConnected(clientIndex)) {
            for (let m = server.receive(clientIndex, 0); m !== null; m = server.receive(clientIndex, 0))
              received = expectNext(m, received, 'UDP');
          }
        } while (transport.stats().queued > 0 && ++k < 64);
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
      datagrams: transport.stats().received,
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
      drops: transport.stats().dropped,
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
