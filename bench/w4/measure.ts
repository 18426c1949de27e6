/**
 * Runs the W4 arena (arena.ts) and measures the server: per tick, wall and CPU time of
 * world.tick() + MessageServer.update(now) (the clients' work and the game's writes are timed
 * apart and left out), bytes sent per client, heap growth over the measured ticks, and server
 * memory per connected client. Used by the `w4` bench suite and by `node dist/bench/w4/main.js`.
 */
import { getHeapCodeStatistics } from 'node:v8';
import { nodeDefaultAead } from '../../src/connection/aead-node-default.js';
import { collectAllGarbage, median } from '../harness.js';
import { W4_ARENA, W4Arena, type W4Private } from './arena.js';
import { W4_ENTITIES, W4_HZ, W4_MAP, W4_RADIUS, W4_SPEED } from './scene.js';

/** Bytes of IPv4 + UDP headers per datagram. */
const UDP_IPV4 = 28;

export interface W4Options {
  clients: number;
  warmupTicks: number;
  ticks: number;
  /** The scene's seed (default W4_ARENA.seed, the Colyseus peer's default too). */
  seed?: number;
  /** A private 32-byte field per entity (see W4Private); default none. */
  privateField?: W4Private | null;
  /**
   * The network inspector (bench/suites/inspector.ts): 'absent' (default, never made), 'detached'
   * (client 0 watched through the warmup, then stopped: what an inspector left closed costs),
   * 'watched' (client 0 watched throughout: what one open inspector costs).
   */
  inspector?: 'absent' | 'detached' | 'watched';
}

export interface W4Result {
  clients: number;
  ticks: number;
  /** Medians over the measured ticks, milliseconds. */
  serverWallMs: number;
  serverCpuMs: number;
  /** The game's writes (world.set of every entity; the scene's motion left out), CPU. */
  writeCpuMs: number;
  clientsWallMs: number;
  /** The slowest measured tick of the server, wall, milliseconds. */
  serverWallMaxMs: number;
  /** Kilobits (1000 bits) per second per client sent by the server: payload alone, and with 28 B per datagram. */
  kbpsPayload: number;
  kbpsWire: number;
  bytesPerPacket: number;
  /** Bytes per client per tick sent by the server: payload alone, and with 28 B per datagram. */
  bytesPerClientPerTick: number;
  /** Entity updates applied per client per tick (the budget and priorities decide how many go out). */
  updatesPerClientPerTick: number;
  wireBytesPerClientPerTick: number;
  /** Per client, at the end: entities relevant (its view) and ghosts in its mirror. */
  meanRelevant: number;
  meanGhosts: number;
  /** Heap + array buffers after a full collection: at the end of the measured ticks minus at their start. */
  heapGrowthBytes: number;
  /** Server memory per connected client (heap + array buffers, full collections, less the code V8 compiled meanwhile), bytes. */
  serverBytesPerClient: number;
  /** Typed arrays replication holds per client (interest view + ghost table), bytes. */
  replicationBytesPerClient: number;
  /** Code V8 compiled during the run (left out of serverBytesPerClient), bytes. */
  codeBytes: number;
  /** Of serverBytesPerClient: the server transport's pooled receive queue (in-memory transport), bytes. */
  serverQueueBytesPerClient: number;
}

/**
 * Bytes of machine code, bytecode and their metadata V8 holds: what it compiles during the run
 * (≈ 2.8 MB at W4, heap snapshot diff) is the program's, not the clients', and is taken out of the
 * memory per client (it would count 2.8 KB at 1,000 clients, 28 KB at 100).
 */
function codeBytes(): number {
  const c = getHeapCodeStatistics();
  return c.code_and_metadata_size + c.bytecode_and_metadata_size;
}

/** Heap and array buffers after full collections (twice: the first can leave buffers to a later one). */
export function retained(): number {
  collectAllGarbage();
  collectAllGarbage();
  const { heapUsed, arrayBuffers } = process.memoryUsage();
  return heapUsed + arrayBuffers;
}

function ms(cpu: NodeJS.CpuUsage): number {
  return (cpu.user + cpu.system) / 1000;
}

export function runW4Arena(options: W4Options, progress: (line: string) => void = () => {}): W4Result {
  const arena = new W4Arena(options.clients, options.seed, undefined, options.privateField ?? null);
  // The world's own memory is not the clients': its histories make a state object the first time
  // each slot fills, so the world runs until every slot has filled before the baseline is taken.
  for (let i = 0; i < W4_ARENA.historyLength; i++) {
    arena.game();
    arena.world.tick();
  }
  const beforeClients = retained();
  const codeBefore = codeBytes();
  const connectStart = performance.now();
  arena.connect();
  progress(
    `${options.clients} clients connected in ${((performance.now() - connectStart) / 1000).toFixed(1)} s (not timed)`,
  );
  const tick = () => {
    arena.advanceClock();
    arena.game();
    arena.serverTick();
    arena.updateClients();
  };
  const inspecting = options.inspector ?? 'absent';
  let traced = 0;
  const stopWatching =
    inspecting === 'absent' ? () => {} : arena.replication.inspect().watch(0, () => traced++);
  for (let i = 0; i < options.warmupTicks; i++) tick();
  if (inspecting === 'detached') stopWatching();
  if (inspecting !== 'absent' && traced === 0) throw new Error('W4: the inspector traced no packet');
  const heapStart = retained();
  const serverWall: number[] = [];
  const serverCpu: number[] = [];
  const writeCpu: number[] = [];
  const clientsWall: number[] = [];
  const stats = arena.serverSocket.stats();
  const bytes0 = stats.bytesSent;
  const datagrams0 = stats.sent;
  const updates0 = arena.updatesReceived;
  for (let i = 0; i < options.ticks; i++) {
    arena.advanceClock();
    arena.scene.step();
    const w0 = process.cpuUsage();
    arena.write();
    writeCpu.push(ms(process.cpuUsage(w0)));
    const s0 = performance.now();
    const c0 = process.cpuUsage();
    arena.serverTick();
    const cpu = process.cpuUsage(c0);
    const s1 = performance.now();
    arena.updateClients();
    const s2 = performance.now();
    serverWall.push(s1 - s0);
    serverCpu.push(ms(cpu));
    clientsWall.push(s2 - s1);
  }
  const bytes = arena.serverSocket.stats().bytesSent - bytes0;
  const datagrams = arena.serverSocket.stats().sent - datagrams0;
  const updates = arena.updatesReceived - updates0;
  const heapEnd = retained();
  let relevant = 0;
  let replicationBytes = 0;
  for (const { client } of arena.clients) {
    const index = client.client.clientIndex;
    relevant += arena.replication.view(index)?.count ?? 0;
    replicationBytes += arena.replication.clientByteLength(index);
  }
  const meanGhosts = arena.meanGhosts();
  const connected = arena.clients.filter((c) => c.client.connected).length;
  if (connected !== options.clients)
    throw new Error(`W4: ${connected} of ${options.clients} still connected`);
  // The clients' own memory lives in this process too: drop them (the server keeps their
  // connections until they time out) and count what the server still holds.
  arena.dropClients();
  const withClients = retained();
  const code = codeBytes() - codeBefore;
  const queueBytes = arena.serverSocket.queueStorageBytes;
  const seconds = options.ticks / W4_HZ;
  const perClient = (n: number) => n / options.clients;
  return {
    clients: options.clients,
    ticks: options.ticks,
    serverWallMs: median(serverWall),
    serverCpuMs: median(serverCpu),
    writeCpuMs: median(writeCpu),
    clientsWallMs: median(clientsWall),
    serverWallMaxMs: Math.max(...serverWall),
    kbpsPayload: perClient((bytes * 8) / seconds / 1000),
    kbpsWire: perClient(((bytes + UDP_IPV4 * datagrams) * 8) / seconds / 1000),
    bytesPerPacket: bytes / Math.max(1, datagrams),
    bytesPerClientPerTick: perClient(bytes / options.ticks),
    updatesPerClientPerTick: perClient(updates / options.ticks),
    wireBytesPerClientPerTick: perClient((bytes + UDP_IPV4 * datagrams) / options.ticks),
    meanRelevant: perClient(relevant),
    meanGhosts,
    heapGrowthBytes: heapEnd - heapStart,
    serverBytesPerClient: perClient(withClients - beforeClients - code),
    codeBytes: code,
    replicationBytesPerClient: perClient(replicationBytes),
    serverQueueBytesPerClient: perClient(queueBytes),
  };
}

/** The result as lines of text. */
export function describeW4(r: W4Result): string[] {
  const f = (n: number, digits = 1) => n.toFixed(digits);
  const kb = (n: number) => `${f(n / 1024)} KB`;
  return [
    `W4 arena, ghostwire: ${W4_ENTITIES.toLocaleString('en-US')} entities at ${W4_SPEED} m/s on ${W4_MAP} m × ${W4_MAP} m, ` +
      `${r.clients} clients following one entity each, radius ${W4_RADIUS} m (leave × 1.15), ${W4_HZ} Hz, ` +
      `history ${W4_ARENA.historyLength}, per-client budget BandwidthBudget defaults (512 B/packet, 256 kbit/s); ` +
      `in-memory transport, netcode encryption (${nodeDefaultAead.name}); ${r.ticks} measured ticks, medians`,
    `  server tick (world.tick + MessageServer.update): ${f(r.serverWallMs)} ms wall, ${f(r.serverCpuMs)} ms CPU ` +
      `(${f(r.serverCpuMs / 50, 2)}× the 50 ms target; slowest tick ${f(r.serverWallMaxMs)} ms wall)`,
    `  not in it: the game's writes (world.set) ${f(r.writeCpuMs)} ms CPU, the clients' updates ${f(r.clientsWallMs)} ms wall per tick`,
    `  per client: ${f(r.meanRelevant)} relevant, ${f(r.meanGhosts)} ghosts, ${f(r.updatesPerClientPerTick)} entity updates ` +
      `a tick; ${f(r.kbpsPayload)} kbit/s payload, ` +
      `${f(r.kbpsWire)} kbit/s with 28 B IPv4+UDP per datagram (${f(r.bytesPerClientPerTick)} / ` +
      `${f(r.wireBytesPerClientPerTick)} B per tick, ${f(r.bytesPerPacket)} B per packet)`,
    `  heap + buffers growth over the measured ticks: ${kb(r.heapGrowthBytes)} (after full collections; ` +
      `the whole process: the clients' mirrors keep a history for every id they have met)`,
    `  server memory per connected client: ${kb(r.serverBytesPerClient)} (heap + buffers, with clients minus before, ` +
      `less ${kb(r.codeBytes)} of code V8 compiled meanwhile); ` +
      `replication's typed arrays ${kb(r.replicationBytesPerClient)} of it (view + ghost table), ` +
      `the server transport's receive queue ${kb(r.serverQueueBytesPerClient)} (in-memory transport's pooled datagrams)`,
  ];
}
