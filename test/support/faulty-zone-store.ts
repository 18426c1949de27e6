/**
 * A ZoneStore that fails on demand, around a real one: each call asks `fault` what happens to it —
 * 'none' (it goes through), 'before' (it rejects without reaching the store: the store is down) or
 * 'after' (it reaches the store, which applies it, and then rejects: the answer was lost, as with
 * a timeout). For the zone runner's tests of store outages without a redis-server.
 */
import type { ZoneStore } from '../../src/zones/zone-store.js';

export type StoreFault = 'none' | 'before' | 'after';
export type StoreMethod = Exclude<keyof ZoneStore, 'close'>;

export class StoreFaultError extends Error {
  override name = 'StoreFaultError';
}

export function faultyZoneStore(store: ZoneStore, fault: (method: StoreMethod) => StoreFault): ZoneStore {
  const wrap =
    <A extends unknown[], R>(method: StoreMethod, call: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      const what = fault(method);
      if (what === 'before') throw new StoreFaultError(`${method}: the store is down`);
      const result = await call(...args);
      if (what === 'after') throw new StoreFaultError(`${method}: the answer was lost`);
      return result;
    };
  return {
    acquireLease: wrap('acquireLease', store.acquireLease.bind(store)),
    renewLease: wrap('renewLease', store.renewLease.bind(store)),
    releaseLease: wrap('releaseLease', store.releaseLease.bind(store)),
    lease: wrap('lease', store.lease.bind(store)),
    commitHandoff: wrap('commitHandoff', store.commitHandoff.bind(store)),
    readInbox: wrap('readInbox', store.readInbox.bind(store)),
    writeSnapshot: wrap('writeSnapshot', store.writeSnapshot.bind(store)),
    readSnapshot: wrap('readSnapshot', store.readSnapshot.bind(store)),
    owners: wrap('owners', store.owners.bind(store)),
    close: () => store.close(),
  };
}
