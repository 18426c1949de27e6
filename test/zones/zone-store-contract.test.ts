/**
 * The ZoneStore contract (test/support/zone-store-contract.ts) run against every implementation:
 * for now the embedded store on a fake clock, its peer being the same store (one thread holds it
 * for every zone). The Redis store joins here when it exists.
 */
import { EmbeddedZoneStore } from '../../src/zones/embedded-zone-store.js';
import { zoneStoreContract } from '../support/zone-store-contract.js';

zoneStoreContract(
  'embedded',
  async (limits) => {
    let now = 1_700_000_000_000;
    const store = new EmbeddedZoneStore({ nowMs: () => now, limits });
    return {
      store,
      peer: store,
      elapse: async (ms) => {
        now += ms;
      },
      close: () => store.close(),
    };
  },
  { ttlMs: 1000 },
);
