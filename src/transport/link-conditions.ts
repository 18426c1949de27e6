/**
 * What a simulated link does to datagrams, and the checks on it: the NetworkSimulator's
 * conditions (latency, jitter, loss, bursts, duplicates, reordering), resolved and frozen once.
 */

/**
 * Gilbert–Elliott burst loss: a two-state chain stepped once per datagram. In the good state the
 * link's ordinary `loss` applies; in the bad state (a burst), `loss` of this record. All percents.
 */
export interface BurstLoss {
  /** Chance per datagram of entering a burst from the good state, percent. */
  enter: number;
  /** Chance per datagram of leaving a burst, percent (mean burst length is 100 / exit datagrams). */
  exit: number;
  /** Loss inside a burst, percent. */
  loss: number;
}

/** How one direction treats datagrams. Times in milliseconds (named ...Ms), chances in percent; all default 0. */
export interface LinkConditions {
  /** One-way delay. */
  latencyMs?: number;
  /** The delay varies uniformly within ± jitterMs (never below zero). */
  jitterMs?: number;
  /** Independent loss (in the good state, when `burst` is set). */
  loss?: number;
  /** Burst loss; null or absent for none. */
  burst?: BurstLoss | null;
  /** Chance a datagram is delivered twice. */
  duplicates?: number;
  /** The duplicate follows the original by up to this much, uniformly (default 20). */
  duplicateDelayMs?: number;
  /** Chance a datagram is held back. */
  reorder?: number;
  /** How long a reordered datagram is held back, on top of its delay (default 50). */
  reorderDelayMs?: number;
}

/** Conditions with every default filled in. */
export interface ResolvedLinkConditions {
  readonly latencyMs: number;
  readonly jitterMs: number;
  readonly loss: number;
  readonly burst: Readonly<BurstLoss> | null;
  readonly duplicates: number;
  readonly duplicateDelayMs: number;
  readonly reorder: number;
  readonly reorderDelayMs: number;
}

export type LinkDirection = 'outgoing' | 'incoming';

const MAX_DELAY_MS = 3_600_000;

function milliseconds(name: string, value: number | undefined, fallback: number): number {
  const v = value ?? fallback;
  if (typeof v !== 'number' || !(v >= 0 && v <= MAX_DELAY_MS)) {
    throw new RangeError(`NetworkSimulator: ${name} must be milliseconds in [0, ${MAX_DELAY_MS}], got ${v}`);
  }
  return v;
}

function percent(name: string, value: number | undefined): number {
  const v = value ?? 0;
  if (typeof v !== 'number' || !(v >= 0 && v <= 100)) {
    throw new RangeError(`NetworkSimulator: ${name} must be a percentage in [0, 100], got ${v}`);
  }
  return v;
}

export function resolveConditions(direction: LinkDirection, c: LinkConditions): ResolvedLinkConditions {
  if (typeof c !== 'object' || c === null) {
    throw new TypeError(`NetworkSimulator: ${direction} conditions must be an object`);
  }
  const burst = c.burst ?? null;
  if (burst !== null && typeof burst !== 'object') {
    throw new TypeError(`NetworkSimulator: ${direction}.burst must be { enter, exit, loss } or null`);
  }
  return Object.freeze({
    latencyMs: milliseconds(`${direction}.latencyMs`, c.latencyMs, 0),
    jitterMs: milliseconds(`${direction}.jitterMs`, c.jitterMs, 0),
    loss: percent(`${direction}.loss`, c.loss),
    burst:
      burst === null
        ? null
        : Object.freeze({
            enter: percent(`${direction}.burst.enter`, burst.enter),
            exit: percent(`${direction}.burst.exit`, burst.exit),
            loss: percent(`${direction}.burst.loss`, burst.loss),
          }),
    duplicates: percent(`${direction}.duplicates`, c.duplicates),
    duplicateDelayMs: milliseconds(`${direction}.duplicateDelayMs`, c.duplicateDelayMs, 20),
    reorder: percent(`${direction}.reorder`, c.reorder),
    reorderDelayMs: milliseconds(`${direction}.reorderDelayMs`, c.reorderDelayMs, 50),
  });
}
