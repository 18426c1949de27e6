/**
 * The ZoneStore contract, a seeded random run against a model: proper handoffs, retries, commits
 * from the wrong zone or a fenced epoch, takeovers, inbox reads and snapshots in random order.
 * After every step each entity has exactly the owner the model says; at the end every committed
 * and unacked entry is still in its zone's inbox exactly once, in commit order.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { prng, randomInt } from '../../src/random/prng.js';
import type { HandoffCommit, InboxEntry } from '../../src/zones/zone-store.js';
import { testSeed } from './seed.js';
import { worldIdOf, type ZoneStoreContext } from './zone-store-contract-shared.js';

const ZONES = 4;
const PER_ZONE = 3;
const STEPS = 300;

interface ModelEntry {
  worldId: number;
  hseq: number;
  /** Its cursor once a read returned it (so it is pending). */
  cursor?: number;
}

export function randomContract(context: ZoneStoreContext): void {
  describe('random', () => {
    it('owners and inboxes follow a model under random handoffs, retries and takeovers', async () => {
      const seed = testSeed('zone store random');
      const next = prng(seed);
      const { store, peer } = context.subject;
      const { ttlMs } = context;
      const epochs: number[] = [];
      const staleEpochs: number[][] = [];
      for (let zone = 0; zone < ZONES; zone++) {
        epochs.push((await store.acquireLease(zone, `proc-${zone}`, ttlMs))!.epoch);
        staleEpochs.push([]);
      }
      const worldIds: number[] = [];
      const owners = new Map<number, { zone: number; hseq: number }>();
      for (let zone = 0; zone < ZONES; zone++) {
        for (let n = 1; n <= PER_ZONE; n++) {
          worldIds.push(worldIdOf(zone, n));
          owners.set(worldIdOf(zone, n), { zone, hseq: 0 });
        }
      }
      const inboxes: ModelEntry[][] = Array.from({ length: ZONES }, () => []);
      const committed: HandoffCommit[] = [];
      const pick = <T>(items: readonly T[]): T => items[randomInt(next, items.length)];
      const otherZone = (zone: number) => (zone + 1 + randomInt(next, ZONES - 1)) % ZONES;

      for (let step = 0; step < STEPS; step++) {
        const at = `seed ${seed} step ${step}`;
        const zone = randomInt(next, ZONES);
        const either = next() < 0.5 ? store : peer;
        for (let z = 0; z < ZONES; z++) assert.equal(await store.renewLease(z, epochs[z], ttlMs), 'ok', at);
        const op = randomInt(next, 8);
        if (op <= 1) {
          const worldId = pick(worldIds);
          const owner = owners.get(worldId)!;
          const to = otherZone(owner.zone);
          const commit = {
            worldId,
            from: owner.zone,
            fromEpoch: epochs[owner.zone],
            to,
            hseq: owner.hseq + 1,
            tick: step,
            payload: Uint8Array.of(step & 0xff, to),
          };
          assert.equal(await either.commitHandoff(commit), 'ok', at);
          owners.set(worldId, { zone: to, hseq: commit.hseq });
          inboxes[to].push({ worldId, hseq: commit.hseq });
          committed.push(commit);
        } else if (op === 2 && committed.length > 0) {
          const commit = pick(committed);
          const owner = owners.get(commit.worldId)!;
          const expected =
            commit.fromEpoch !== epochs[commit.from]
              ? 'stale'
              : owner.hseq === commit.hseq
                ? 'duplicate'
                : 'not-owner';
          assert.equal(await either.commitHandoff(commit), expected, at);
        } else if (op === 3) {
          const worldId = pick(worldIds);
          const owner = owners.get(worldId)!;
          const from = otherZone(owner.zone);
          const commit = {
            worldId,
            from,
            fromEpoch: epochs[from],
            to: owner.zone,
            hseq: owner.hseq + 1,
            tick: step,
            payload: Uint8Array.of(),
          };
          assert.equal(await either.commitHandoff(commit), 'not-owner', at);
        } else if (op === 4) {
          staleEpochs[zone].push(epochs[zone]);
          epochs[zone] = (await peer.acquireLease(zone, `proc-${zone}-${step}`, ttlMs, true))!.epoch;
          const worldId = pick(worldIds);
          const commit = {
            worldId,
            from: zone,
            fromEpoch: pick(staleEpochs[zone]),
            to: otherZone(zone),
            hseq: 1,
            tick: step,
            payload: Uint8Array.of(),
          };
          assert.equal(await store.commitHandoff(commit), 'stale', at);
        } else if (op === 5) {
          const max = 1 + randomInt(next, 4);
          const read = await either.readInbox(zone, epochs[zone], { from: 'new' }, max);
          assert.ok(read.status === 'ok', at);
          const unread = inboxes[zone].filter((entry) => entry.cursor === undefined).slice(0, max);
          assert.deepEqual(read.entries.map(identity), unread.map(identity), at);
          read.entries.forEach((entry, i) => {
            unread[i].cursor = entry.cursor;
          });
        } else if (op === 6) {
          const read = inboxes[zone].filter((entry) => entry.cursor !== undefined);
          const cursor = read.length === 0 ? 0 : pick(read).cursor!;
          assert.equal(
            await either.writeSnapshot(zone, epochs[zone], step, cursor, Uint8Array.of(zone)),
            'ok',
            at,
          );
          inboxes[zone] = inboxes[zone].filter(
            (entry) => entry.cursor === undefined || entry.cursor > cursor,
          );
        } else if (op === 7) {
          const read = await either.readInbox(zone, epochs[zone], { from: 'pending', after: 0 }, 1024);
          assert.ok(read.status === 'ok', at);
          const pending = inboxes[zone].filter((entry) => entry.cursor !== undefined);
          assert.deepEqual(read.entries.map(withCursor), pending.map(withCursor), at);
        }
        const stored = await peer.owners(worldIds);
        assert.deepEqual(
          stored,
          worldIds.map((worldId) => owners.get(worldId)),
          at,
        );
      }

      for (let zone = 0; zone < ZONES; zone++) {
        const pending = await store.readInbox(zone, epochs[zone], { from: 'pending', after: 0 }, 1024);
        const fresh = await store.readInbox(zone, epochs[zone], { from: 'new' }, 1024);
        assert.ok(pending.status === 'ok' && fresh.status === 'ok');
        const all = [...pending.entries, ...fresh.entries];
        assert.deepEqual(
          all.map(identity),
          inboxes[zone].map(identity),
          `seed ${seed} zone ${zone} at the end`,
        );
      }
    });
  });
}

function identity(entry: InboxEntry | ModelEntry) {
  return `${entry.worldId}/${entry.hseq}`;
}

function withCursor(entry: InboxEntry | ModelEntry) {
  return `${entry.worldId}/${entry.hseq}@${entry.cursor}`;
}
