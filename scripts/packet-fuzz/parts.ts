/** The packet fuzz: the recording violations, one side of the link, counters and random helpers. */

import type { ReliableCounters, ReliableEndpoint } from '../../src/packet/index.js';
import { randomInt } from '../../src/random/prng.js';
import type { Address, DatagramHandler, NetworkSimulator } from '../../src/transport/index.js';
import { type DeliveryLog, type OutcomeLedger, Violations } from '../packet-soak-core.js';

/** A string for a failed check: the ledgers' violations come through here too. */
export class RecordingViolations extends Violations {
  constructor(private readonly record: (kind: string, detail: string) => void) {
    super(0);
  }

  override add(kind: string, detail: string): void {
    super.add(kind, detail);
    this.record(kind, detail);
  }
}

export interface Side {
  readonly index: number;
  readonly name: string;
  /** The direction this side sends in (0: a->b). */
  readonly stream: number;
  readonly sim: NetworkSimulator;
  readonly peer: Address;
  endpoint: ReliableEndpoint<number>;
  outcomes: OutcomeLedger;
  /** What this side's protected endpoint accepted (the peer's packets). */
  deliveries: DeliveryLog;
  /** CRC-stamped datagrams on their way out. */
  readonly wire: Uint8Array;
  /** The last datagrams this side sent, whole (CRC included), to mutate and replay at the peer. */
  readonly captured: Uint8Array[];
  readonly capturedLength: Int32Array;
  captures: number;
  /** A corrupted copy of an arriving datagram. */
  readonly scratch: Uint8Array;
  receive: DatagramHandler;
  victim: ReliableEndpoint<number>;
  victimOutcomes: OutcomeLedger;
  victimEpochs: number;
  victimSent: number;
  victimAcked: number;
  victimLost: number;
  victimUnbacked: number;
  victimProcessed: number;
  victimRefused: number;
  victimEmpty: number;
  victimCounters: ReliableCounters;
}

export function addCounters(into: ReliableCounters, from: ReliableCounters): void {
  for (const key of Object.keys(into) as (keyof ReliableCounters)[]) into[key] += from[key];
}

/** Fills `out[start, end)` with random bytes, four per `rng()` call (the netcode fuzz uses it too). */
export function fillRandom(rng: () => number, out: Uint8Array, start: number, end: number): void {
  for (let i = start; i < end; i += 4) {
    let word = (rng() * 4294967296) >>> 0;
    for (let k = 0; k < 4 && i + k < end; k++, word >>>= 8) out[i + k] = word & 0xff;
  }
}

/** A 16-bit value near `v` (by a little, a lot, half the space) or anywhere. */
export function tweak16(rng: () => number, v: number): number {
  const r = rng();
  const sign = rng() < 0.5 ? -1 : 1;
  if (r < 0.35) return (v + sign * (1 + randomInt(rng, 8))) & 0xffff;
  if (r < 0.65) return (v + sign * (1 + randomInt(rng, 300))) & 0xffff;
  if (r < 0.8) return (v + 32767 + randomInt(rng, 3)) & 0xffff;
  return randomInt(rng, 65536);
}

export function randomAckBits(rng: () => number): number {
  const r = rng();
  if (r < 0.2) return 0xffffffff;
  if (r < 0.3) return 0;
  return (rng() * 4294967296) >>> 0;
}
