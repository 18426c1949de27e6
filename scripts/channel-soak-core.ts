/**
 * The channel soak: two MessageConnections over ReliableEndpoints (configured as under
 * MessageServer / MessageClient) on a seeded simulated link (the reference stack's soak settings
 * by default: 1000 ms latency, 100 ms jitter, 25% loss, 25% duplicates; or a sequence of phases,
 * such as Fiedler's extremes or 99% loss then recovery), each side sending bursts of reliable
 * messages per tick plus the occasional block, all in one ordered stream; every item's content is
 * derived from the seed and its position, so the receiver checks each is delivered exactly once,
 * in order, byte-identical.
 */
import type { ChannelConfig } from '../src/channels/config.js';
import { Block, defineMessage, MessageFactory } from '../src/channels/message.js';
import { MessageConnection } from '../src/channels/message-connection.js';
import { CHANNEL_RELIABLE_DEFAULTS } from '../src/channels/packet-defaults.js';
import { ReliableEndpoint } from '../src/packet/reliable-endpoint.js';
import { prng, randomBytes } from '../src/random/prng.js';
import { t } from '../src/schema/schema.js';
import { MemoryNetwork } from '../src/transport/memory-transport.js';
import { type LinkConditions, NetworkSimulator } from '../src/transport/network-simulator.js';
import { sameBytes } from './bytes.js';

/** Two MessageConnections over ReliableEndpoints, joined by a seeded simulated link (both directions at A). */
export function channelPair(
  seed: number,
  factory: MessageFactory,
  channels: ChannelConfig[],
  conditions?: LinkConditions,
) {
  const network = new MemoryNetwork();
  const rawA = network.createTransport('10.0.0.1:1');
  const rawB = network.createTransport('10.0.0.2:1');
  const simulator = conditions
    ? new NetworkSimulator(rawA, { seed, outgoing: conditions, incoming: conditions })
    : null;
  const a = simulator ?? rawA;
  let now = 0;
  const side = (transport: typeof a, peer: string) => {
    const connection = new MessageConnection({ factory, channels });
    const endpoint = new ReliableEndpoint<number[]>(
      {
        transmit: (_s, data, length) => transport.send(peer as never, data.subarray(0, length)),
        process: (_s, data, offset, length) => connection.readPacket(data, offset, length),
        onAcked: (_s, record) => connection.acked(record!),
      },
      // As under MessageServer / MessageClient: acks may take half a minute and must still count.
      { ...CHANNEL_RELIABLE_DEFAULTS, rttHistorySize: 16, maxPacketSize: 2048, fragmentAbove: 2048 },
    );
    return { connection, endpoint, transport };
  };
  const A = side(a, '10.0.0.2:1');
  const B = side(rawB, '10.0.0.1:1');
  return {
    a: A,
    b: B,
    get now() {
      return now;
    },
    /** Changes the link's conditions, both directions (only for a pair made with conditions). */
    setConditions(next: LinkConditions): void {
      simulator?.setConditions('outgoing', next);
      simulator?.setConditions('incoming', next);
    },
    /** One tick: update, deliver what is due, then each side sends its packet. */
    step(dt = 1 / 60): void {
      now += dt;
      for (const s of [A, B]) {
        s.transport.update(now);
        s.endpoint.update(now);
        s.transport.receive((_from, data) => s.endpoint.receivePacket(data), 1024);
      }
      for (const s of [A, B]) {
        const { data, record } = s.connection.writePacket(now);
        s.endpoint.sendPacket(data, data.length, record);
      }
    },
  };
}

export const SOAK_CONDITIONS: LinkConditions = { latencyMs: 1000, jitterMs: 100, loss: 25, duplicates: 25 };
/** Fiedler's extremes: 10 s one way, ±2 s jitter, 25% loss, 50% duplicates. */
export const EXTREME_CONDITIONS: LinkConditions = {
  latencyMs: 10_000,
  jitterMs: 2_000,
  loss: 25,
  duplicates: 50,
};

/** A stretch of the soak under one set of conditions; the last one lasts until everything is in. */
export interface SoakPhase {
  label: string;
  conditions: LinkConditions;
  /** Simulated seconds (ignored for the last phase). */
  seconds?: number;
}

/** 99% loss each way for a minute, then the soak's usual link: everything must then arrive. */
export const LOSS_THEN_RECOVERY: SoakPhase[] = [
  { label: '99% loss', conditions: { latencyMs: 50, loss: 99 }, seconds: 60 },
  { label: 'recovery', conditions: SOAK_CONDITIONS },
];

const SoakMessage = defineMessage('soak', t.object({ n: t.uint32(), text: t.string(120) }));
const factory = new MessageFactory([SoakMessage]);
const channels: ChannelConfig[] = [{ kind: 'reliable-ordered', sendQueueSize: 4096, receiveQueueSize: 4096 }];

/** The extremes run of `npm run soak` and its short version in npm test (add seed and messages). */
export const EXTREME_RUN: Partial<ChannelSoakOptions> = {
  phases: [{ label: 'extremes', conditions: EXTREME_CONDITIONS }],
  maxBurst: 2,
  maxBlockBytes: 16 * 1024,
  // Each block holds the head of the stream for a round trip or more: fewer of them.
  blockInterval: [20, 40],
};

/** The 99%-loss-then-recovery run of `npm run soak` and its short version in npm test. */
export const LOSS_RUN: Partial<ChannelSoakOptions> = {
  phases: LOSS_THEN_RECOVERY,
  maxBurst: 2,
  maxBlockBytes: 16 * 1024,
};

export interface ChannelSoakOptions {
  seed: number;
  /** Reliable messages to deliver each way (blocks come on top). */
  messages: number;
  maxBlockBytes?: number;
  /** Most messages per burst, one burst per tick each way (default 64). */
  maxBurst?: number;
  /** Seconds between blocks, drawn uniformly from [min, max] (default [2, 8]). */
  blockInterval?: [number, number];
  /** The link over time (default: SOAK_CONDITIONS throughout). */
  phases?: SoakPhase[];
  progress?: (line: string) => void;
  gc?: () => void;
}

export interface ChannelSoakReport {
  seed: number;
  ticks: number;
  simulatedSeconds: number;
  wallSeconds: number;
  messagesDelivered: number;
  blocksDelivered: number;
  blockBytesDelivered: number;
  /** Violations: wrong item in a position (lost, repeated, reordered, or corrupted). */
  violations: string[];
  heapAfterWarmup: number;
  heapAtEnd: number;
}

interface Direction {
  sent: number;
  expected: { block: boolean; n: number; size: number }[];
  delivered: number;
  messages: number;
  blocks: number;
  blockBytes: number;
}

/** Content is a function of (seed, direction, position): the receiver rebuilds and compares it. */
function messageText(seed: number, dir: number, n: number): string {
  const next = prng((seed ^ (dir * 0x9e3779b9) ^ Math.imul(n, 0x85ebca6b)) >>> 0);
  const length = Math.floor(next() * 40);
  let s = '';
  for (let i = 0; i < length; i++) s += String.fromCharCode(97 + Math.floor(next() * 26));
  return s;
}

function blockBytes(seed: number, dir: number, n: number, size: number): Uint8Array {
  return randomBytes(prng((seed ^ 0xb10c ^ (dir << 20) ^ Math.imul(n, 0x27d4eb2d)) >>> 0), size);
}

export function runChannelSoak(options: ChannelSoakOptions): ChannelSoakReport {
  const seed = options.seed >>> 0;
  const maxBlock = options.maxBlockBytes ?? 64 * 1024;
  const phases = options.phases ?? [{ label: 'soak', conditions: SOAK_CONDITIONS }];
  const maxBurst = options.maxBurst ?? 64;
  const [blockMin, blockMax] = options.blockInterval ?? [2, 8];
  const pair = channelPair(seed, factory, channels, phases[0].conditions);
  let phase = 0;
  let phaseEnds = phases[0].seconds ?? Number.POSITIVE_INFINITY;
  const next = prng(seed ^ 0x50a1);
  const dirs: Direction[] = [0, 1].map(() => ({
    sent: 0,
    expected: [],
    delivered: 0,
    messages: 0,
    blocks: 0,
    blockBytes: 0,
  }));
  const sides = [pair.a, pair.b];
  const receivers = [pair.b, pair.a];
  const violations: string[] = [];
  const start = performance.now();
  let ticks = 0;
  let heapAfterWarmup = 0;
  let blockDue = 0;
  // Done when every item is delivered and every sender saw all of its items acked (freed).
  const done = () =>
    dirs.every((d) => d.messages >= options.messages && d.delivered === d.expected.length) &&
    sides.every((side) => side.connection.queueDepths()[0].send === 0);
  let lastDelivered = 0;
  let lastProgressAt = 0;
  while (!done() && violations.length === 0) {
    if (pair.now >= phaseEnds && phase < phases.length - 1) {
      phase++;
      pair.setConditions(phases[phase].conditions);
      phaseEnds =
        phase < phases.length - 1 ? pair.now + (phases[phase].seconds ?? 0) : Number.POSITIVE_INFINITY;
      options.progress?.(`  ${pair.now.toFixed(0)} s simulated: ${phases[phase].label}`);
      lastProgressAt = pair.now; // a new phase restarts the stall clock
    }
    const delivered = dirs[0].delivered + dirs[1].delivered;
    if (delivered !== lastDelivered) {
      lastDelivered = delivered;
      lastProgressAt = pair.now;
    } else if (pair.now - lastProgressAt > 120) {
      violations.push(`stalled: nothing delivered for 120 s simulated (at ${delivered} items)`);
      break;
    }
    for (let dir = 0; dir < 2; dir++) {
      const d = dirs[dir];
      const connection = sides[dir].connection;
      if (d.messages + (d.sent - d.delivered) >= options.messages + 64) continue;
      // Back-pressure: bursts only while the send queue has room for one.
      const queued = connection.queueDepths()[0].send;
      if (queued > 4096 - 128) continue;
      if (pair.now >= blockDue && dir === Math.floor(next() * 2)) {
        const size = 1 + Math.floor(next() * maxBlock);
        connection.sendBlock(0, blockBytes(seed, dir, d.sent, size));
        d.expected.push({ block: true, n: d.sent, size });
        d.sent++;
        blockDue = pair.now + blockMin + next() * (blockMax - blockMin);
      }
      const burst = Math.floor(next() * (maxBurst + 1));
      for (let k = 0; k < burst; k++) {
        connection.send(0, SoakMessage, { n: d.sent, text: messageText(seed, dir, d.sent) });
        d.expected.push({ block: false, n: d.sent, size: 0 });
        d.sent++;
      }
    }
    pair.step();
    ticks++;
    for (let dir = 0; dir < 2; dir++) {
      const d = dirs[dir];
      const connection = receivers[dir].connection;
      for (let m = connection.receive(0); m !== null; m = connection.receive(0)) {
        const want = d.expected[d.delivered];
        if (want === undefined) {
          violations.push(`direction ${dir}: an item beyond everything sent`);
          break;
        }
        if (want.block) {
          const ok =
            m.type === Block && sameBytes(m.value as Uint8Array, blockBytes(seed, dir, want.n, want.size));
          if (!ok) violations.push(`direction ${dir}: item ${want.n} should be a ${want.size}-byte block`);
          d.blocks++;
          d.blockBytes += want.size;
        } else {
          const value = m.value as { n: number; text: string };
          if (m.type !== SoakMessage || value.n !== want.n || value.text !== messageText(seed, dir, want.n)) {
            violations.push(
              `direction ${dir}: item ${want.n} arrived as ${m.type.name} ${JSON.stringify(value).slice(0, 60)}`,
            );
          }
          d.messages++;
        }
        d.delivered++;
      }
    }
    if (ticks === 600) {
      options.gc?.();
      heapAfterWarmup = process.memoryUsage().heapUsed;
    }
    if (ticks % 1200 === 0) {
      options.progress?.(
        `  ${ticks} ticks (${pair.now.toFixed(0)} s simulated): delivered ${dirs[0].messages + dirs[1].messages} messages, ${dirs[0].blocks + dirs[1].blocks} blocks`,
      );
    }
  }
  options.gc?.();
  return {
    seed,
    ticks,
    simulatedSeconds: pair.now,
    wallSeconds: (performance.now() - start) / 1000,
    messagesDelivered: dirs[0].messages + dirs[1].messages,
    blocksDelivered: dirs[0].blocks + dirs[1].blocks,
    blockBytesDelivered: dirs[0].blockBytes + dirs[1].blockBytes,
    violations,
    heapAfterWarmup,
    heapAtEnd: process.memoryUsage().heapUsed,
  };
}
