/**
 * How a zone starts under a fresh lease: from nothing at the clock's tick, or from its last
 * snapshot, keeping only the entities the store's owner table still names this zone's (the
 * snapshot may be older than handoffs the zone made after it). Browser-safe.
 */
import type { GameRules } from '../game/game-rules.js';
import type { HandoffRuleOptions } from './handoff-rule.js';
import { ticksSinceOrigin } from './world-clock.js';
import type { ZoneMap } from './zone-map.js';
import type { EntityRecord } from './zone-messages.js';
import { ZoneServer } from './zone-server.js';
import type { ZoneStore } from './zone-store.js';
import type { ZoneCodecs } from './zone-wire.js';

/** World ids asked of the store's owner table per call (within every store's maxBatch). */
const OWNER_BATCH = 512;

/** What the restore needs of the runner's options. */
export interface ZoneRestoreOptions {
  zone: number;
  rules: GameRules;
  map: ZoneMap;
  handoff: HandoffRuleOptions;
  store: ZoneStore;
  codecs: ZoneCodecs;
  originMs: number;
  nowMs?: () => number;
  keyframeTicks?: number;
  maxPlayers?: number;
  onError?: (error: unknown, where: string) => void;
}

/** The zone's server under the lease `epoch`, and the inbox cursor its snapshot had read to. */
export async function restoreZone(
  options: ZoneRestoreOptions,
  epoch: number,
): Promise<{ server: ZoneServer; inboxCursor: number }> {
  const { store, zone, codecs } = options;
  const serverOptions = {
    rules: options.rules,
    map: options.map,
    zone,
    epoch,
    handoff: options.handoff,
    ...(options.keyframeTicks === undefined ? {} : { keyframeTicks: options.keyframeTicks }),
    ...(options.maxPlayers === undefined ? {} : { maxPlayers: options.maxPlayers }),
    ...(options.onError === undefined ? {} : { onError: options.onError }),
  };
  const snapshot = await store.readSnapshot(zone);
  if (snapshot === null) {
    const now = (options.nowMs ?? Date.now)();
    const tickRate = options.rules.game.tickRate;
    const clockTick = Math.max(0, Math.floor(ticksSinceOrigin(now, options.originMs, tickRate)));
    return { server: new ZoneServer({ ...serverOptions, tick: clockTick }), inboxCursor: 0 };
  }
  const read = codecs.decodeZoneSnapshot(snapshot.bytes);
  if (!read.ok) throw new Error(`zone ${zone}: its snapshot cannot be read: ${read.reason}`);
  const record = { ...read.value, entities: await stillOwned(store, zone, read.value.entities) };
  return { server: ZoneServer.restore(serverOptions, record), inboxCursor: snapshot.inboxCursor };
}

/** The records whose entity the store says this zone still owns at the same handoff (the rest moved on). */
async function stillOwned(store: ZoneStore, zone: number, records: EntityRecord[]): Promise<EntityRecord[]> {
  const kept: EntityRecord[] = [];
  for (let at = 0; at < records.length; at += OWNER_BATCH) {
    const slice = records.slice(at, at + OWNER_BATCH);
    const owners = await store.owners(slice.map((r) => r.worldId));
    for (let i = 0; i < slice.length; i++)
      if (owners[i].zone === zone && owners[i].hseq === slice[i].hseq) kept.push(slice[i]);
  }
  return kept;
}
