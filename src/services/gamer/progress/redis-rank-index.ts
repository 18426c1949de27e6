/**
 * The rank index on Redis: a board's period is a sorted set whose members are rank keys, every
 * score 0, so Redis orders them by bytes (rank-key.ts); a hash maps each account to its member;
 * a marker says the set was loaded from SQL. After a Redis restart the marker is gone and the
 * next use rebuilds it. Offers run as one script, so best-of holds whatever order they arrive in.
 */
import type { GamerRedis } from '../gamer-redis.js';
import type { RankIndex } from './rank-index.js';

/** KEYS: the set, the hash. ARGV: account, key, account, key, ... Keeps each account's smaller key. */
const OFFER = `
for i = 1, #ARGV, 2 do
  local old = redis.call('HGET', KEYS[2], ARGV[i])
  if not old or ARGV[i + 1] < old then
    if old then redis.call('ZREM', KEYS[1], old) end
    redis.call('ZADD', KEYS[1], 0, ARGV[i + 1])
    redis.call('HSET', KEYS[2], ARGV[i], ARGV[i + 1])
  end
end
return 0`;

/** KEYS: the set, the hash. ARGV: account. Its rank and member, or nil. */
const RANK_OF = `
local key = redis.call('HGET', KEYS[2], ARGV[1])
if not key then return nil end
local rank = redis.call('ZRANK', KEYS[1], key)
if not rank then return nil end
return {rank, key}`;

export class RedisRankIndex implements RankIndex {
  constructor(private readonly redis: GamerRedis) {}

  private keys(index: string): { set: string; hash: string; marker: string } {
    const base = `${this.redis.prefix}lb:${index}`;
    return { set: `${base}:z`, hash: `${base}:h`, marker: `${base}:ready` };
  }

  async ready(index: string): Promise<boolean> {
    return (await this.redis.commands.exists(this.keys(index).marker)) === 1;
  }

  async offer(index: string, entries: readonly (readonly [string, string])[]): Promise<void> {
    if (entries.length === 0) return;
    const { set, hash } = this.keys(index);
    await this.redis.commands.eval(OFFER, 2, set, hash, ...entries.flat());
  }

  async markReady(index: string): Promise<void> {
    await this.redis.commands.set(this.keys(index).marker, '1');
  }

  async rankOf(index: string, accountId: string): Promise<{ rank: number; key: string } | null> {
    const { set, hash } = this.keys(index);
    const answer = (await this.redis.commands.eval(RANK_OF, 2, set, hash, accountId)) as
      | [number, string]
      | null;
    return answer === null ? null : { rank: Number(answer[0]), key: String(answer[1]) };
  }

  async countBefore(index: string, key: string, orEqual: boolean): Promise<number> {
    return this.redis.commands.zlexcount(this.keys(index).set, '-', `${orEqual ? '[' : '('}${key}`);
  }

  async countsBefore(index: string, keys: readonly string[]): Promise<number[]> {
    if (keys.length === 0) return [];
    const set = this.keys(index).set;
    const pipeline = this.redis.commands.pipeline();
    for (const key of keys) pipeline.zlexcount(set, '-', `(${key}`);
    const answers = (await pipeline.exec()) ?? [];
    return answers.map(([error, count]) => {
      if (error !== null) throw error;
      return Number(count);
    });
  }

  async range(index: string, start: number, count: number): Promise<string[]> {
    if (count <= 0) return [];
    return this.redis.commands.zrange(this.keys(index).set, String(start), String(start + count - 1));
  }

  async size(index: string): Promise<number> {
    return this.redis.commands.zcard(this.keys(index).set);
  }

  async drop(index: string): Promise<void> {
    const { set, hash, marker } = this.keys(index);
    await this.redis.commands.del(marker, set, hash);
  }
}
