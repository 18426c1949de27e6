/**
 * What a process of a zoned world on Redis agrees with the others at start (Node): the world's
 * origin and what the world is (its game and cut), kept by the first process; and, for a process
 * that serves players, a gateway index of its own, leased while it serves.
 */
import { hostname } from 'node:os';
import { GatewayLeaseKeeper } from './gateway-lease-keeper.js';
import type { ZoneWorldRecord } from './redis-zone-store.js';

/** What the processes of one world must agree on besides its clock: the game and its zone map. */
export function fingerprintOf(
  game: { name: string; tickRate: number },
  bounds: { minX: number; minY: number; maxX: number; maxY: number },
  columns: number,
  rows: number,
): string {
  const { minX, minY, maxX, maxY } = bounds;
  return JSON.stringify({
    game: game.name,
    tickRate: game.tickRate,
    bounds: [minX, minY, maxX, maxY],
    columns,
    rows,
  });
}

export interface RedisWorldJoin {
  url: string;
  /** The origin this process was given, if any: it must be the world's. */
  originMs: number | undefined;
  fingerprint: string;
  /** Whether this process serves players (and needs a gateway index). */
  gateway: boolean;
  leaseTtlMs: number;
  /** Another process claimed this gateway's index (after its lease lapsed): stop serving. */
  onLost: () => void;
  onError: (error: unknown) => void;
}

export interface RedisWorldJoined {
  originMs: number;
  /** This process's gateway index (0 when it serves no players). */
  gateway: number;
  /** Gives the gateway index back and closes the connection. */
  close(): Promise<void>;
}

/**
 * Claims the world (the first process's origin and fingerprint are kept; a process of another
 * world, or given another origin, is refused: counting other ticks or cutting the world otherwise
 * would corrupt it) and, for a gateway, an index of its own.
 */
export async function joinRedisWorld(where: string, join: RedisWorldJoin): Promise<RedisWorldJoined> {
  const { RedisZoneStore } = await import('./redis-zone-store.js');
  const store = await RedisZoneStore.connect({ url: join.url });
  try {
    const record: ZoneWorldRecord = { originMs: join.originMs ?? Date.now(), fingerprint: join.fingerprint };
    const kept = await store.claimWorld(record);
    if (kept.fingerprint !== record.fingerprint)
      throw new Error(
        `${where}: the Redis at ${join.url} holds another world (${kept.fingerprint}), not this one (${record.fingerprint}): give each world a Redis of its own, or flush it`,
      );
    if (join.originMs !== undefined && join.originMs !== kept.originMs)
      throw new RangeError(
        `${where}: originMs ${join.originMs} is not this world's: its Redis keeps ${kept.originMs} (leave originMs out to take it)`,
      );
    if (!join.gateway) {
      await store.close();
      return { originMs: kept.originMs, gateway: 0, close: async () => {} };
    }
    const keeper = await GatewayLeaseKeeper.claim({
      leases: store,
      processId: `${hostname()}/${process.pid}/gateway`,
      ttlMs: join.leaseTtlMs,
      onLost: join.onLost,
      onError: join.onError,
    });
    return {
      originMs: kept.originMs,
      gateway: keeper.gateway,
      close: async () => {
        await keeper.close();
        await store.close();
      },
    };
  } catch (error) {
    await store.close();
    throw error;
  }
}
