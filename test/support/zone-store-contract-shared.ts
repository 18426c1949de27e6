/** The ZoneStore contract's subject, context and helpers, shared by its parts. */
import type { HandoffCommit, ZoneStore, ZoneStoreLimits } from '../../src/zones/zone-store.js';

export interface ZoneStoreSubject {
  store: ZoneStore;
  /** Another store on the same data (the same object where there is only one process). */
  peer: ZoneStore;
  /** Lets `ms` of store time pass. */
  elapse(ms: number): Promise<void>;
  close(): Promise<void>;
}

/** Makes a fresh, empty subject whose store has these limits (the rest are the defaults). */
export type MakeZoneStoreSubject = (limits: Partial<ZoneStoreLimits>) => Promise<ZoneStoreSubject>;

export interface ZoneStoreContractOptions {
  /** A lease TTL short enough to wait out, long enough for a few calls to finish within it. */
  ttlMs: number;
  skip?: string | false;
}

/** Every test runs on a fresh subject; `subject` is the current one. */
export interface ZoneStoreContext {
  readonly subject: ZoneStoreSubject;
  readonly ttlMs: number;
  /** Replaces the current subject with a fresh one with these limits (closed after the test). */
  remake(limits: Partial<ZoneStoreLimits>): Promise<ZoneStoreSubject>;
}

/** A world id allocated by `zone` (its top 8 bits). */
export function worldIdOf(zone: number, n: number): number {
  return ((zone << 24) | n) >>> 0;
}

export function commitOf(fields: Partial<HandoffCommit> & Pick<HandoffCommit, 'from' | 'fromEpoch' | 'to'>) {
  return {
    worldId: worldIdOf(fields.from, 1),
    hseq: 1,
    tick: 100,
    payload: Uint8Array.of(1, 2, 3),
    ...fields,
  } satisfies HandoffCommit;
}
