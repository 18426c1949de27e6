/**
 * Server CPU under load: one Server on a UdpTransport (127.0.0.1) with 256 connected clients that
 * live in a separate process (`dist/bench/load-clients.js`, one socket per client), so the CPU
 * this process uses is the server's alone. Each client sends 60 payloads/s of 100 bytes through
 * its connection's ReliableEndpoint and the server sends each client 60/s back, from a 60 Hz tick
 * (`update`, then one payload per client). After every client has connected and a warm-up, the
 * server process's CPU (user + system, all threads) is taken over the window as a percentage of
 * one core, with the packets delivered each way. Then both sides stop sending, the last packets
 * drain, and the totals give the loss. A fresh server and child per run; one run per server AEAD
 * backend per round, rounds interleaved (clients always use node:crypto). Also printed: event-loop
 * delay, whole-machine CPU (the box may be shared) and the kernel's UDP drop counters. The child
 * is killed however the run ends, and exits by itself if this process goes; every wait has a timeout.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import type { Aead } from '../../src/connection/aead.js';
import { nobleAead } from '../../src/connection/aead.js';
import { nodeAead } from '../../src/connection/aead-node.js';
import { loadWasmAead } from '../../src/connection/aead-wasm.js';
import { generateConnectToken } from '../../src/connection/connect-token.js';
import { Server } from '../../src/connection/server.js';
import { UdpTransport } from '../../src/transport/udp-transport.js';
import { check, fmt, type SuiteContext } from '../harness.js';
import { JsonLineChild, sleep, withDeadline } from '../support/child-process.js';
import {
  type CpuSample,
  cpuPercent,
  cpuSample,
  kernelUdpErrors,
  kernelUdpErrorsSince,
  machineCpu,
  machineCpuPercent,
} from '../support/process-stats.js';

const CLIENTS = 256;
const RATE = 60;
const PAYLOAD_BYTES = 100;
const PROTOCOL_ID = 0x6768_6f73_7477_6972n;
const CHILD = fileURLToPath(new URL('../load-clients.js', import.meta.url));

/** A child's `mark` reply. */
interface ChildMark extends CpuSample {
  id: number;
  time: number;
  sent: number;
  received: number;
  lost: number;
  acked: number;
  skipped: number;
  connected: number;
  queueDrops: number;
  undeliverable: number;
}

interface ServerMark {
  wall: number;
  cpu: CpuSample;
  sent: number;
  received: number;
  lost: number;
  acked: number;
  ticks: number;
  tickMs: number;
  maxTickMs: number;
}

interface LoadResult {
  serverCpuPercent: number;
  userPercent: number;
  systemPercent: number;
  clientCpuPercent: number;
  windowSeconds: number;
  clientToServerPerSecond: number;
  serverToClientPerSecond: number;
  connectSeconds: number;
  totals: { c2sSent: number; c2sReceived: number; s2cSent: number; s2cReceived: number };
  endpointLost: { server: number; clients: number };
  tick: { meanMs: number; maxMs: number; perSecond: number };
  drops: { serverQueue: number; clientQueues: number; skipped: number };
  kernel: Record<string, number> | null;
  /** Event-loop delay of the server process over the window, ms. */
  loopDelay: { p99: number; max: number };
  /** All CPUs together over the window, in % of one core (null off Linux). */
  machine: { busyPercent: number; stealPercent: number } | null;
}

async function runLoad(aead: Aead, windowSeconds: number, warmupSeconds: number): Promise<LoadResult> {
  const transport = await UdpTransport.open({
    address: '127.0.0.1:0',
    receiveBufferSize: 4 << 20,
    sendBufferSize: 4 << 20,
    maxQueuedDatagrams: 65536,
    maxPendingSends: 4096,
  });
  let received = 0;
  let sent = 0;
  let badLength = 0;
  const privateKey = globalThis.crypto.getRandomValues(new Uint8Array(32));
  const server = new Server({
    protocolId: PROTOCOL_ID,
    privateKey,
    publicAddresses: [transport.localAddress],
    transports: [transport],
    maxClients: CLIENTS,
    aead,
    maxDatagramsPerUpdate: 65536,
    onPacket: (_index, _data, _offset, length) => {
      received++;
      if (length !== PAYLOAD_BYTES) badLength++;
    },
  });
  const unix = Math.floor(Date.now() / 1000);
  const tokens = Array.from({ length: CLIENTS }, (_, i) =>
    Buffer.from(
      generateConnectToken({
        protocolId: PROTOCOL_ID,
        privateKey,
        clientId: BigInt(i + 1),
        serverAddresses: [transport.localAddress],
        now: unix,
        expireSeconds: 120,
        timeoutSeconds: 5,
        aead: nodeAead,
      }),
    ).toString('base64'),
  );

  // The server's game loop: 60 ticks per second on a fixed schedule (late ticks catch up).
  const payload = new Uint8Array(PAYLOAD_BYTES);
  const start = performance.now();
  let serverSending = true;
  let ticks = 0;
  let tickMs = 0;
  let maxTickMs = 0;
  let timer: NodeJS.Timeout | undefined;
  let loopError: unknown = null;
  const tick = () => {
    try {
      const t0 = performance.now();
      server.update((t0 - start) / 1000);
      if (serverSending) {
        for (let i = 0; i < CLIENTS; i++) {
          if (!server.isConnected(i)) continue;
          server.send(i, payload);
          sent++;
        }
      }
      const t1 = performance.now();
      ticks++;
      tickMs += t1 - t0;
      if (t1 - t0 > maxTickMs) maxTickMs = t1 - t0;
      timer = setTimeout(tick, Math.max(0, start + (ticks * 1000) / RATE - performance.now()));
    } catch (error) {
      loopError = error;
    }
  };
  const serverMark = (): ServerMark => {
    let lost = 0;
    let acked = 0;
    for (let i = 0; i < CLIENTS; i++) {
      if (!server.isConnected(i)) continue;
      lost += server.endpoint(i).stats().packetsLost;
      acked += server.endpoint(i).stats().packetsAcked;
    }
    const m = {
      wall: performance.now(),
      cpu: cpuSample(),
      sent,
      received,
      lost,
      acked,
      ticks,
      tickMs,
      maxTickMs,
    };
    maxTickMs = 0;
    return m;
  };
  const kernelBefore = kernelUdpErrors();

  const child = new JsonLineChild({
    script: CHILD,
    args: [
      '--server',
      transport.localAddress,
      '--rate',
      String(RATE),
      '--bytes',
      String(PAYLOAD_BYTES),
      '--max-seconds',
      String(Math.ceil(windowSeconds + warmupSeconds + 60)),
    ],
    suite: 'serverload',
    name: 'load-clients',
  });
  const markBoth = async (id: number): Promise<[ServerMark, ChildMark]> => {
    const s = serverMark();
    child.send({ type: 'mark', id });
    const c = (await child.next('mark', 5000, `waiting for mark ${id}`)) as unknown as ChildMark;
    check(c.id === id, `serverload: mark ${c.id} answered for ${id}`);
    return [s, c];
  };
  try {
    tick();
    child.send({ type: 'tokens', tokens });
    await child.next('ready', 20_000, 'opening client sockets');
    const connected = await child.next('connected', 20_000, `connecting ${CLIENTS} clients`);
    check(
      server.connectedClients === CLIENTS,
      `serverload: ${server.connectedClients} of ${CLIENTS} connected`,
    );
    await sleep(warmupSeconds * 1000);
    const loop = monitorEventLoopDelay({ resolution: 5 });
    const machine1 = machineCpu();
    const [s1, c1] = await markBoth(1);
    loop.enable();
    await sleep(windowSeconds * 1000);
    loop.disable();
    const machine2 = machineCpu();
    const [s2, c2] = await markBoth(2);
    // Stop sending, let the last packets arrive, and count everything.
    serverSending = false;
    child.send({ type: 'stop' });
    await sleep(500);
    const [s3, c3] = await markBoth(3);
    if (loopError !== null) throw loopError;
    check(badLength === 0, `serverload: ${badLength} packets arrived with the wrong length`);
    check(
      server.connectedClients === CLIENTS && c3.connected === CLIENTS,
      `serverload: clients dropped (server ${server.connectedClients}, clients ${c3.connected})`,
    );
    const wallUs = (s2.wall - s1.wall) * 1000;
    const user = s2.cpu.cpuUser - s1.cpu.cpuUser;
    const system = s2.cpu.cpuSystem - s1.cpu.cpuSystem;
    const childWallUs = (c2.time - c1.time) * 1e6;
    const kernelAfter = kernelUdpErrors();
    return {
      serverCpuPercent: ((user + system) / wallUs) * 100,
      userPercent: (user / wallUs) * 100,
      systemPercent: (system / wallUs) * 100,
      clientCpuPercent: cpuPercent(c1, c2, c2.time - c1.time),
      windowSeconds: wallUs / 1e6,
      clientToServerPerSecond: (s2.received - s1.received) / (wallUs / 1e6),
      serverToClientPerSecond: (c2.received - c1.received) / (childWallUs / 1e6),
      connectSeconds: Number(connected.seconds),
      totals: { c2sSent: c3.sent, c2sReceived: s3.received, s2cSent: s3.sent, s2cReceived: c3.received },
      endpointLost: { server: s2.lost - s1.lost, clients: c2.lost - c1.lost },
      tick: {
        meanMs: (s2.tickMs - s1.tickMs) / (s2.ticks - s1.ticks),
        maxMs: s2.maxTickMs,
        perSecond: (s2.ticks - s1.ticks) / (wallUs / 1e6),
      },
      drops: {
        serverQueue: transport.stats().dropped,
        clientQueues: c3.queueDrops,
        skipped: c2.skipped - c1.skipped,
      },
      loopDelay: { p99: loop.percentile(99) / 1e6, max: loop.max / 1e6 },
      machine: machineCpuPercent(machine1, machine2),
      kernel: kernelUdpErrorsSince(kernelBefore, kernelAfter),
    };
  } finally {
    if (timer !== undefined) clearTimeout(timer);
    serverSending = false;
    await child.stop(3000).catch(() => child.kill());
    child.kill();
    transport.close();
  }
}

export async function runServerLoad(ctx: SuiteContext): Promise<void> {
  const windowSeconds = ctx.options.quick ? 3 : 10;
  const warmupSeconds = ctx.options.quick ? 1 : 3;
  /** Rounds of one run per backend, interleaved (A B A B): the first run in a process runs colder. */
  const rounds = ctx.options.quick ? 1 : 2;
  const backends = [nodeAead, nobleAead, await loadWasmAead()];
  const expected = CLIENTS * RATE;
  ctx.note(
    `${CLIENTS} clients in a separate process (one UDP socket each, node:crypto), server in this process on 127.0.0.1;`,
  );
  ctx.note(
    `each client sends ${RATE}/s and receives ${RATE}/s payloads of ${PAYLOAD_BYTES} bytes through its ReliableEndpoint (${fmt(expected)}/s each way);`,
  );
  ctx.note(
    `server ticks at ${RATE} Hz: update() then one payload per client. CPU over ${windowSeconds} s, after all connect and ${warmupSeconds} s of warm-up;`,
  );
  ctx.note(
    `a fresh server and client process per run, ${rounds} round(s) of one run per server AEAD backend, interleaved.`,
  );
  const cpu = new Map<string, number[]>(backends.map((a) => [a.name, []]));
  for (let round = 1; round <= rounds; round++) {
    for (const aead of backends) {
      const r = await withDeadline(
        (windowSeconds + warmupSeconds + 60) * 1000,
        `serverload: ${aead.name}`,
        runLoad(aead, windowSeconds, warmupSeconds),
      );
      cpu.get(aead.name)!.push(r.serverCpuPercent);
      const lossC2s = r.totals.c2sSent - r.totals.c2sReceived;
      const lossS2c = r.totals.s2cSent - r.totals.s2cReceived;
      ctx.note('');
      ctx.note(`round ${round}, server AEAD ${aead.name}:`);
      ctx.note(
        `  server process CPU: ${r.serverCpuPercent.toFixed(1)}% of one core (user ${r.userPercent.toFixed(1)}%, system ${r.systemPercent.toFixed(1)}%) over ${r.windowSeconds.toFixed(2)} s`,
      );
      ctx.note(
        `  delivered: clients -> server ${fmt(r.clientToServerPerSecond)}/s, server -> clients ${fmt(r.serverToClientPerSecond)}/s (expected ${fmt(expected)}/s each)`,
      );
      ctx.note(
        `  server tick: ${r.tick.perSecond.toFixed(1)}/s, mean ${r.tick.meanMs.toFixed(2)} ms, max ${r.tick.maxMs.toFixed(2)} ms (update + ${CLIENTS} sends; socket reads happen between ticks)`,
      );
      ctx.note(
        `  loss, whole run after a 0.5 s drain: clients -> server ${lossC2s} of ${fmt(r.totals.c2sSent)}, server -> clients ${lossS2c} of ${fmt(r.totals.s2cSent)}; endpoint-reported lost in the window: server ${r.endpointLost.server}, clients ${r.endpointLost.clients}`,
      );
      ctx.note(
        `  queue drops: server ${r.drops.serverQueue}, clients ${r.drops.clientQueues}; client sends skipped ${r.drops.skipped}; kernel UDP errors (system-wide) ${r.kernel === null ? 'n/a' : JSON.stringify(r.kernel)}`,
      );
      ctx.note(
        `  load-clients process CPU: ${r.clientCpuPercent.toFixed(1)}% of one core; all ${CLIENTS} connected in ${r.connectSeconds.toFixed(2)} s`,
      );
      ctx.note(
        `  server event-loop delay p99 ${r.loopDelay.p99.toFixed(1)} ms, max ${r.loopDelay.max.toFixed(1)} ms; whole machine busy ${r.machine === null ? 'n/a' : `${r.machine.busyPercent.toFixed(0)}% of one core (steal ${r.machine.stealPercent.toFixed(1)}%)`}`,
      );
      ctx.record(`${aead.name} round ${round}`, r);
    }
  }
  ctx.note('');
  ctx.note(`server process CPU, % of one core, ${CLIENTS} clients at ${RATE} packets/s each way:`);
  for (const [name, values] of cpu) {
    const mean = values.reduce((a, b) => a + b, 0) / values.length;
    ctx.note(
      `  ${name.padEnd(Math.max(...backends.map((b) => b.name.length)))} ${values.map((v) => v.toFixed(1)).join(', ')}${values.length > 1 ? `  (mean ${mean.toFixed(1)})` : ''}`,
    );
  }
}
