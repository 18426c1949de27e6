/**
 * Presence in Redis, shared by every backend: a hash per player holding each backend's stream
 * lease (c:<backend> = until, ms), the chosen state, the match and its lease, and the shown view
 * with its sequence number. One script applies a change and recomputes the view atomically; the
 * key expires with its last lease, so a crashed backend's players go offline on their own.
 */
import type { GamerRedis } from '../gamer-redis.js';
import type { PresenceOp, PresenceState, PresenceStore, PresenceView } from './presence-store.js';
import { OFFLINE } from './presence-store.js';

const APPLY = `
local key = KEYS[1]
local now = tonumber(ARGV[1])
local op = ARGV[2]
local arg = ARGV[3]
local untilMs = tonumber(ARGV[4])
local backend = 'c:' .. ARGV[5]
local keepMs = tonumber(ARGV[6])
local h = redis.call('HGETALL', key)
local f = {}
for i = 1, #h, 2 do f[h[i]] = h[i + 1] end
if op == 'connect' then f[backend] = ARGV[4]; redis.call('HSET', key, backend, ARGV[4])
elseif op == 'disconnect' then f[backend] = nil; redis.call('HDEL', key, backend)
elseif op == 'choose' then f['chosen'] = arg; redis.call('HSET', key, 'chosen', arg)
elseif op == 'match' then
  if arg == '' then f['room'] = nil; redis.call('HDEL', key, 'room', 'roomUntil')
  else f['room'] = arg; f['roomUntil'] = ARGV[4]; redis.call('HSET', key, 'room', arg, 'roomUntil', ARGV[4]) end
end
local connected = false
local last = 0
for k, v in pairs(f) do
  if string.sub(k, 1, 2) == 'c:' then
    local u = tonumber(v)
    if u > now then connected = true; if u > last then last = u end
    else redis.call('HDEL', key, k) end
  end
end
local room = f['room']
if room ~= nil then
  local u = tonumber(f['roomUntil'])
  if u <= now then room = nil; redis.call('HDEL', key, 'room', 'roomUntil')
  elseif u > last then last = u end
end
local state = 'offline'
if room ~= nil then state = 'in-match' elseif connected then state = f['chosen'] or 'online' end
local seq = tonumber(f['seq'] or '0')
local at = tonumber(f['at'] or '0')
local changed = 0
if state ~= (f['state'] or 'offline') or (room or '') ~= (f['shownRoom'] or '') then
  seq = math.max(seq + 1, now)
  at = now
  changed = 1
  redis.call('HSET', key, 'state', state, 'shownRoom', room or '', 'seq', seq, 'at', at)
end
if last > now then redis.call('PEXPIREAT', key, last) else redis.call('PEXPIRE', key, keepMs) end
return {changed, state, room or '', tostring(seq), tostring(at)}
`;

const STATES = new Set<PresenceState>(['online', 'away', 'in-match', 'offline']);

export class RedisPresenceStore implements PresenceStore {
  constructor(
    private readonly redis: GamerRedis,
    /** This backend's lease name. */
    private readonly backendId: string,
    /** How long an offline record keeps its sequence number, ms. */
    private readonly keepMs: number,
  ) {}

  private key(accountId: string): string {
    return `${this.redis.prefix}presence:${accountId}`;
  }

  async apply(
    accountId: string,
    op: PresenceOp,
    nowMs: number,
  ): Promise<{ view: PresenceView; changed: boolean }> {
    const arg = op.kind === 'choose' ? op.state : op.kind === 'match' ? (op.roomId ?? '') : '';
    const untilMs = op.kind === 'connect' || op.kind === 'match' ? op.untilMs : 0;
    const answer = (await this.redis.commands.eval(
      APPLY,
      1,
      this.key(accountId),
      String(Math.floor(nowMs)),
      op.kind,
      arg,
      String(Math.floor(untilMs)),
      this.backendId,
      String(this.keepMs),
    )) as [number, string, string, string, string];
    return { changed: answer[0] === 1, view: view(answer[1], answer[2], answer[3], answer[4]) };
  }

  async read(accountIds: readonly string[], _nowMs: number): Promise<PresenceView[]> {
    if (accountIds.length === 0) return [];
    const pipeline = this.redis.commands.pipeline();
    for (const id of accountIds) pipeline.hmget(this.key(id), 'state', 'shownRoom', 'seq', 'at');
    const answers = (await pipeline.exec()) ?? [];
    return accountIds.map((_, i) => {
      const [error, fields] = answers[i] ?? [null, null];
      if (error !== null) throw error;
      const [state, room, seq, at] = (fields ?? []) as (string | null)[];
      return state == null ? OFFLINE : view(state, room ?? '', seq ?? '0', at ?? '0');
    });
  }

  async close(): Promise<void> {}
}

function view(state: string, room: string, seq: string, at: string): PresenceView {
  return {
    state: STATES.has(state as PresenceState) ? (state as PresenceState) : 'offline',
    roomId: room === '' ? null : room,
    seq: Number(seq),
    at: Number(at),
  };
}
