/**
 * The Lua scripts behind RedisZoneStore, one per method. Redis runs a script alone, so each call
 * checks its fence and writes as one indivisible step for every process of the world; time is the
 * server's (`TIME`), so machines with skewed clocks agree on which lease is live. Every script takes
 * the key prefix as ARGV[1] and a clock offset in ms as ARGV[2] ('0' except in tests, which use it
 * to let lease time pass without waiting), then its own arguments; keys are built from the prefix
 * (the layout is in redis-zone-store.ts), which ties the store to one redis-server, not a Cluster.
 *
 * Numbers travel as decimal strings: epochs, cursors and expiry times are compared with tonumber
 * (exact below 2^53) and written back with '%.0f', never with Lua's default '%.14g' formatting.
 */

/** The consumer group of every inbox; the consumer within it is the zone's index. */
export const INBOX_GROUP = 'zone';

const PRELUDE = `
local P = ARGV[1]
local function nowMs()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) + tonumber(ARGV[2])
end
local function num(x) return string.format('%.0f', x) end
local function zoneKey(z, what) return P .. 'zone:' .. z .. ':' .. what end
-- True when epoch (a string) is the zone's lease and the lease has not lapsed.
local function live(z, epoch, now)
  local l = redis.call('HMGET', zoneKey(z, 'lease'), 'epoch', 'expiresAt')
  local e, x = tonumber(l[1]), tonumber(l[2])
  return e ~= nil and x ~= nil and e == tonumber(epoch) and now < x
end
`;

/** Scripts by ioredis command name: each is defined with 0 keys and called with prefix and offset first. */
export const ZONE_SCRIPTS = {
  // zone, processId, ttl, force ('1'/'0') → {epoch, expiresAt}, or nil while another lease is live
  zsAcquireLease: `
local z = ARGV[3]
local key = zoneKey(z, 'lease')
local now = nowMs()
local x = tonumber(redis.call('HGET', key, 'expiresAt'))
if ARGV[6] ~= '1' and x ~= nil and now < x then return false end
local epoch = redis.call('INCR', zoneKey(z, 'epoch'))
local expiresAt = now + tonumber(ARGV[5])
redis.call('HSET', key, 'processId', ARGV[4], 'epoch', num(epoch), 'expiresAt', num(expiresAt))
return { epoch, expiresAt }`,

  // zone, epoch, ttl → 1 renewed, 0 stale. A lapsed lease is renewed while its epoch is still the
  // zone's (no acquire since: an acquire rewrites the hash with a new epoch, a release deletes it).
  zsRenewLease: `
local z = ARGV[3]
local key = zoneKey(z, 'lease')
local e = tonumber(redis.call('HGET', key, 'epoch'))
if e == nil or e ~= tonumber(ARGV[4]) then return 0 end
redis.call('HSET', key, 'expiresAt', num(nowMs() + tonumber(ARGV[5])))
return 1`,

  // zone, epoch → 1 released, 0 stale (the epoch counter stays: the next acquire bumps it)
  zsReleaseLease: `
local z = ARGV[3]
if not live(z, ARGV[4], nowMs()) then return 0 end
redis.call('DEL', zoneKey(z, 'lease'))
return 1`,

  // zone → {processId, epoch, expiresAt} of the live lease, or nil
  zsLease: `
local l = redis.call('HMGET', zoneKey(ARGV[3], 'lease'), 'processId', 'epoch', 'expiresAt')
local x = tonumber(l[3])
if not l[1] or x == nil or nowMs() >= x then return false end
return { l[1], l[2], l[3] }`,

  // worldId, from, fromEpoch, to, hseq, tick, payload, maxInboxEntries, maxOwnerRecords
  //   → 'ok' | 'stale' | 'duplicate' | 'not-owner' | 'inbox-full' | 'owners-full'
  // The owner record is "zone:hseq:from"; an entity without one belongs to its world id's top 8
  // bits at hseq 0. The inbox entry's stream id is "<cursor>-0", the cursor from a per-zone counter.
  zsCommitHandoff: `
local w, from, to = ARGV[3], ARGV[4], ARGV[6]
local hseq = tonumber(ARGV[7])
if not live(from, ARGV[5], nowMs()) then return 'stale' end
local owners = P .. 'owners'
local record = redis.call('HGET', owners, w)
local oz, oh, of
if record then
  local a, b, c = string.match(record, '^(%d+):(%d+):(%d+)$')
  oz, oh, of = tonumber(a), tonumber(b), tonumber(c)
else
  oz, oh = math.floor(tonumber(w) / 16777216), 0
end
if record and oh == hseq and oz == tonumber(to) and of == tonumber(from) then return 'duplicate' end
if oz ~= tonumber(from) or oh == nil or oh + 1 ~= hseq then return 'not-owner' end
local inbox = zoneKey(to, 'inbox')
if redis.call('XLEN', inbox) >= tonumber(ARGV[10]) then return 'inbox-full' end
if not record and redis.call('HLEN', owners) >= tonumber(ARGV[11]) then return 'owners-full' end
redis.call('HSET', owners, w, to .. ':' .. ARGV[7] .. ':' .. from)
-- Creates the stream and its group on the first commit to the zone; an error only says they exist.
redis.pcall('XGROUP', 'CREATE', inbox, '${INBOX_GROUP}', '0', 'MKSTREAM')
local cursor = redis.call('INCR', zoneKey(to, 'inbox-cursor'))
redis.call('XADD', inbox, num(cursor) .. '-0', 'w', w, 'f', from, 'h', ARGV[7], 't', ARGV[8], 'p', ARGV[9])
return 'ok'`,

  // zone, epoch, 'new' | 'pending', after, max → {'stale'} or {'ok', {id, fields}...}
  // 'new' is XREADGROUP '>' (the entries become pending under consumer <zone>); 'pending' reads that
  // consumer's history above the cursor. No BLOCK: a script cannot wait, so reads return at once.
  zsReadInbox: `
local z = ARGV[3]
if not live(z, ARGV[4], nowMs()) then return { 'stale' } end
local inbox = zoneKey(z, 'inbox')
if redis.call('EXISTS', inbox) == 0 then return { 'ok' } end
local id = '>'
if ARGV[5] == 'pending' then id = ARGV[6] .. '-0' end
local reply = redis.call('XREADGROUP', 'GROUP', '${INBOX_GROUP}', z, 'COUNT', ARGV[7], 'STREAMS', inbox, id)
local out = { 'ok' }
if reply and reply[1] then
  for _, entry in ipairs(reply[1][2]) do out[#out + 1] = entry end
end
return out`,

  // zone, epoch, tick, inboxCursor, bytes → 1 written, 0 stale
  // Acks (and deletes) only the consumer's pending entries up to the cursor: one never read stays.
  zsWriteSnapshot: `
local z = ARGV[3]
if not live(z, ARGV[4], nowMs()) then return 0 end
redis.call('HSET', zoneKey(z, 'snapshot'), 'epoch', ARGV[4], 'tick', ARGV[5], 'cursor', ARGV[6], 'bytes', ARGV[7])
local inbox = zoneKey(z, 'inbox')
if redis.call('EXISTS', inbox) == 0 then return 1 end
while true do
  local pending = redis.call('XPENDING', inbox, '${INBOX_GROUP}', '-', ARGV[6] .. '-0', 500, z)
  if #pending == 0 then break end
  local ids = {}
  for i, p in ipairs(pending) do ids[i] = p[1] end
  redis.call('XACK', inbox, '${INBOX_GROUP}', unpack(ids))
  redis.call('XDEL', inbox, unpack(ids))
  if #pending < 500 then break end
end
return 1`,

  // zone → {epoch, tick, cursor, bytes} (nil fields when there is none)
  zsReadSnapshot: `
return redis.call('HMGET', zoneKey(ARGV[3], 'snapshot'), 'epoch', 'tick', 'cursor', 'bytes')`,

  // originMs, fingerprint → {originMs, fingerprint} kept under the prefix: the first claim's
  zsClaimWorld: `
local key = P .. 'world'
if redis.call('EXISTS', key) == 0 then
  redis.call('HSET', key, 'origin', ARGV[3], 'fingerprint', ARGV[4])
end
return redis.call('HMGET', key, 'origin', 'fingerprint')`,

  // processId, ttl → {gateway, epoch} of the lowest gateway index with no live lease, or nil
  zsClaimGateway: `
local now = nowMs()
for g = 0, 255 do
  local key = P .. 'gateway:' .. g
  local x = tonumber(redis.call('HGET', key, 'expiresAt'))
  if x == nil or now >= x then
    local epoch = redis.call('INCR', P .. 'gateway-epoch')
    redis.call('HSET', key, 'processId', ARGV[3], 'epoch', num(epoch), 'expiresAt', num(now + tonumber(ARGV[4])))
    return { g, epoch }
  end
end
return false`,

  // gateway, epoch, ttl → 1 renewed (a lapsed lease too, while no claim took it since), 0 stale
  zsRenewGateway: `
local key = P .. 'gateway:' .. ARGV[3]
if tonumber(redis.call('HGET', key, 'epoch')) ~= tonumber(ARGV[4]) then return 0 end
redis.call('HSET', key, 'expiresAt', num(nowMs() + tonumber(ARGV[5])))
return 1`,

  // gateway, epoch → 1 released, 0 stale
  zsReleaseGateway: `
local key = P .. 'gateway:' .. ARGV[3]
if tonumber(redis.call('HGET', key, 'epoch')) ~= tonumber(ARGV[4]) then return 0 end
redis.call('DEL', key)
return 1`,

  // worldId... → the owner record of each, or nil (one HGET each: no unpack limit on the batch)
  zsOwners: `
local out = {}
for i = 3, #ARGV do out[#out + 1] = redis.call('HGET', P .. 'owners', ARGV[i]) end
return out`,
} as const;

export type ZoneScriptName = keyof typeof ZONE_SCRIPTS;

/** The full source of a script: the shared helpers, then its body. */
export function zoneScriptSource(name: ZoneScriptName): string {
  return PRELUDE + ZONE_SCRIPTS[name];
}
