/** The rank index of the embedded store: a skip list a board's period, in this process. */
import { OrderStatisticSkipList } from './order-statistic-skip-list.js';
import type { RankIndex } from './rank-index.js';

interface Ranked {
  readonly list: OrderStatisticSkipList;
  readonly keyOf: Map<string, string>;
  ready: boolean;
}

export class MemoryRankIndex implements RankIndex {
  private readonly indexes = new Map<string, Ranked>();

  private get(index: string): Ranked {
    let ranked = this.indexes.get(index);
    if (ranked === undefined) {
      ranked = { list: new OrderStatisticSkipList(), keyOf: new Map(), ready: false };
      this.indexes.set(index, ranked);
    }
    return ranked;
  }

  async ready(index: string): Promise<boolean> {
    return this.indexes.get(index)?.ready ?? false;
  }

  async offer(index: string, entries: readonly (readonly [string, string])[]): Promise<void> {
    const { list, keyOf } = this.get(index);
    for (const [accountId, key] of entries) {
      const old = keyOf.get(accountId);
      if (old !== undefined && old <= key) continue;
      if (old !== undefined) list.delete(old);
      list.insert(key);
      keyOf.set(accountId, key);
    }
  }

  async markReady(index: string): Promise<void> {
    this.get(index).ready = true;
  }

  async rankOf(index: string, accountId: string): Promise<{ rank: number; key: string } | null> {
    const ranked = this.indexes.get(index);
    const key = ranked?.keyOf.get(accountId);
    if (ranked === undefined || key === undefined) return null;
    return { rank: ranked.list.countBefore(key), key };
  }

  async countBefore(index: string, key: string, orEqual: boolean): Promise<number> {
    return this.indexes.get(index)?.list.countBefore(key, orEqual) ?? 0;
  }

  async countsBefore(index: string, keys: readonly string[]): Promise<number[]> {
    const list = this.indexes.get(index)?.list;
    return keys.map((key) => list?.countBefore(key) ?? 0);
  }

  async range(index: string, start: number, count: number): Promise<string[]> {
    return this.indexes.get(index)?.list.range(start, count) ?? [];
  }

  async size(index: string): Promise<number> {
    return this.indexes.get(index)?.list.size ?? 0;
  }

  async drop(index: string): Promise<void> {
    this.indexes.delete(index);
  }
}
