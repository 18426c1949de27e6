import { type ReliableConfig, ReliableEndpoint } from '../../src/packet/index.js';
import { prng } from '../../src/random/prng.js';

/** How a test link treats each datagram. */
export interface LinkConditions {
  loss?: number; // 0..1
  latency?: number; // seconds, one way
  jitter?: number; // ± seconds
  duplicate?: number; // 0..1
}

/** One direction of a seeded link between two endpoints: datagrams wait in a queue until due. */
class Direction {
  private queue: { at: number; order: number; bytes: Uint8Array }[] = [];
  private order = 0;
  constructor(
    private readonly next: () => number,
    public conditions: LinkConditions,
  ) {}

  push(now: number, data: Uint8Array, length: number): void {
    const { loss = 0, latency = 0, jitter = 0, duplicate = 0 } = this.conditions;
    const copies = this.next() < duplicate ? 2 : 1;
    for (let i = 0; i < copies; i++) {
      if (this.next() < loss) continue;
      const at = now + latency + (this.next() * 2 - 1) * jitter + i * 0.001;
      this.queue.push({ at, order: this.order++, bytes: data.slice(0, length) });
    }
  }

  deliver(now: number, to: (bytes: Uint8Array) => void): void {
    const due = this.queue.filter((d) => d.at <= now).sort((a, b) => a.at - b.at || a.order - b.order);
    this.queue = this.queue.filter((d) => d.at > now);
    for (const d of due) to(d.bytes);
  }
}

/** What one endpoint of a pair observed. */
export interface Observed {
  /** Sequences whose payload the process handler accepted, in arrival order. */
  processed: number[];
  /** Ids (a payload's first 4 bytes, little-endian) of the accepted payloads of 4 bytes or more. */
  processedIds: Set<number>;
  /** Records of acked and lost packets, in outcome order: unique where sequences wrap. */
  ackedRecords: unknown[];
  lostRecords: unknown[];
  payloads: Map<number, Uint8Array>;
  acked: number[];
  lost: number[];
  /** Records handed back with outcomes, by sequence. */
  records: Map<number, unknown>;
}

/** Sends a packet whose payload starts with `id` (uint32 LE) and whose record is `id`. */
export function sendTagged(side: Side, id: number, bytes = 8): number {
  const payload = new Uint8Array(Math.max(4, bytes));
  payload[0] = id & 0xff;
  payload[1] = (id >>> 8) & 0xff;
  payload[2] = (id >>> 16) & 0xff;
  payload[3] = id >>> 24;
  return side.endpoint.sendPacket(payload, payload.length, id);
}

export interface Side {
  endpoint: ReliableEndpoint<unknown>;
  seen: Observed;
}

/** Two endpoints joined by a seeded link in each direction. */
export function linkedPair(
  seed: number,
  conditions: LinkConditions = {},
  config: Partial<ReliableConfig> = {},
) {
  const next = prng(seed);
  let now = 0;
  const toB = new Direction(next, conditions);
  const toA = new Direction(next, conditions);
  const make = (out: Direction): Side => {
    const seen: Observed = {
      processed: [],
      processedIds: new Set(),
      ackedRecords: [],
      lostRecords: [],
      payloads: new Map(),
      acked: [],
      lost: [],
      records: new Map(),
    };
    const endpoint = new ReliableEndpoint<unknown>(
      {
        transmit: (_sequence, data, length) => out.push(now, data, length),
        process: (sequence, data, offset, length) => {
          seen.processed.push(sequence);
          seen.payloads.set(sequence, data.slice(offset, offset + length));
          if (length >= 4) {
            seen.processedIds.add(
              (data[offset] |
                (data[offset + 1] << 8) |
                (data[offset + 2] << 16) |
                (data[offset + 3] << 24)) >>>
                0,
            );
          }
          return true;
        },
        onAcked: (sequence, record) => {
          seen.acked.push(sequence);
          seen.ackedRecords.push(record);
          seen.records.set(sequence, record);
        },
        onLost: (sequence, record) => {
          seen.lost.push(sequence);
          seen.lostRecords.push(record);
          seen.records.set(sequence, record);
        },
      },
      config,
    );
    return { endpoint, seen };
  };
  const a = make(toB);
  const b = make(toA);
  return {
    a,
    b,
    toB,
    toA,
    get now() {
      return now;
    },
    /** Advances time by `dt` as a game loop does: update both endpoints, then deliver what is due. */
    step(dt: number): void {
      now += dt;
      a.endpoint.update(now);
      b.endpoint.update(now);
      toB.deliver(now, (bytes) => b.endpoint.receivePacket(bytes));
      toA.deliver(now, (bytes) => a.endpoint.receivePacket(bytes));
    },
  };
}
