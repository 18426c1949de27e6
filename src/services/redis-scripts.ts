/**
 * The Lua scripts behind RedisDirectory's atomic operations. Redis runs a script alone, so each is
 * one indivisible step for every client of the server; time comes from the server (`TIME`) so that
 * machines with skewed clocks agree on what has expired. Every script takes the key prefix as
 * ARGV[1] and builds its keys from it (the layout is in redis-directory.ts), which ties the
 * directory to one redis-server (not Redis Cluster, where a script must name its keys up front).
 */
import { PROCESS_GONE } from './directory.js';

/**
 * How long a lapsed reservation's record outlives its expiry, so that a late consume hears
 * 'expired' rather than 'unknown seat' (the seat no longer counts against the room meanwhile).
 */
export const LAPSED_SEAT_KEPT_MS = 60_000;

/** How long a cancelled ticket's status stays readable (as the embedded directory keeps it). */
export const CANCELLED_KEPT_MS = 60_000;

const PRELUDE = `
local P = ARGV[1]
local function nowMs()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local function seatLive(state, expiresAt, now)
  if state == 'taken' or expiresAt == 'inf' then return true end
  local e = tonumber(expiresAt)
  return e ~= nil and e > now
end
`;

/** Helpers for the scripts that remove rooms and processes (left out of the others: less to load per call). */
const DROPPING = `
local function dropRoom(roomId)
  local key = P .. 'room:' .. roomId
  local pid = redis.call('HGET', key, 'processId')
  for _, seatId in ipairs(redis.call('ZRANGE', key .. ':seats', 0, -1)) do
    local skey = P .. 'seat:' .. seatId
    local s = redis.call('HMGET', skey, 'roomId', 'userId')
    if s[1] == roomId then
      if s[2] then redis.call('SREM', P .. 'user:' .. s[2] .. ':seats', seatId) end
      redis.call('DEL', skey)
    end
  end
  redis.call('DEL', key, key .. ':seats')
  redis.call('SREM', P .. 'rooms', roomId)
  if pid then redis.call('SREM', P .. 'proc:' .. pid .. ':rooms', roomId) end
end
local function dropProcess(pid, reason)
  local roomIds = redis.call('SMEMBERS', P .. 'proc:' .. pid .. ':rooms')
  local quoted = {}
  for i, roomId in ipairs(roomIds) do
    dropRoom(roomId)
    quoted[i] = cjson.encode(roomId)
  end
  redis.call('DEL', P .. 'proc:' .. pid, P .. 'proc:' .. pid .. ':rooms')
  redis.call('SREM', P .. 'procs', pid)
  redis.call('PUBLISH', P .. ${JSON.stringify(PROCESS_GONE)}, '{"processId":' .. cjson.encode(pid) ..
    ',"roomIds":[' .. table.concat(quoted, ',') .. '],"reason":"' .. reason .. '"}')
end
`;

/** Scripts by ioredis command name: each is defined with 0 keys and called with the prefix first. */
export const DIRECTORY_SCRIPTS = {
  // pid, machine, addresses json, state, maxRooms, load json, ttl
  gwRegisterProcess: `
local pid = ARGV[2]
local key = P .. 'proc:' .. pid
if redis.call('EXISTS', key) == 0 and redis.call('SISMEMBER', P .. 'procs', pid) == 1 then
  dropProcess(pid, 'lapsed')
end
redis.call('HSET', key, 'machine', ARGV[3], 'addresses', ARGV[4], 'state', ARGV[5],
  'maxRooms', ARGV[6], 'load', ARGV[7], 'heartbeatAt', nowMs())
redis.call('PEXPIRE', key, ARGV[8])
redis.call('SADD', P .. 'procs', pid)
return 1`,

  // pid, state, load json, ttl → 1 renewed, 0 lapsed
  gwHeartbeat: `
local key = P .. 'proc:' .. ARGV[2]
if redis.call('EXISTS', key) == 0 then return 0 end
redis.call('HSET', key, 'state', ARGV[3], 'load', ARGV[4], 'heartbeatAt', nowMs())
redis.call('PEXPIRE', key, ARGV[5])
return 1`,

  // → { {pid, flat hash}, ... } of the live processes
  gwListProcesses: `
local out = {}
for _, pid in ipairs(redis.call('SMEMBERS', P .. 'procs')) do
  local fields = redis.call('HGETALL', P .. 'proc:' .. pid)
  if #fields > 0 then out[#out + 1] = { pid, fields } end
end
return out`,

  // pid → 1 when there was something to remove
  gwRemoveProcess: `
local pid = ARGV[2]
if redis.call('SISMEMBER', P .. 'procs', pid) == 0 and redis.call('EXISTS', P .. 'proc:' .. pid) == 0 then
  return 0
end
dropProcess(pid, 'removed')
return 1`,

  // → ids of the processes whose record lapsed, each removed (and announced) here, once
  gwSweep: `
local lapsed = {}
for _, pid in ipairs(redis.call('SMEMBERS', P .. 'procs')) do
  if redis.call('EXISTS', P .. 'proc:' .. pid) == 0 then
    dropProcess(pid, 'lapsed')
    lapsed[#lapsed + 1] = pid
  end
end
return lapsed`,

  // roomId, name, pid, maxClients, locked, private, metadata json
  gwCreateRoom: `
local roomId, pid = ARGV[2], ARGV[4]
local key = P .. 'room:' .. roomId
if redis.call('EXISTS', P .. 'proc:' .. pid) == 0 or redis.call('EXISTS', key) == 1 then return 0 end
redis.call('HSET', key, 'name', ARGV[3], 'processId', pid, 'maxClients', ARGV[5], 'locked', ARGV[6],
  'private', ARGV[7], 'metadata', ARGV[8], 'createdAt', nowMs())
redis.call('SADD', P .. 'rooms', roomId)
redis.call('SADD', P .. 'proc:' .. pid .. ':rooms', roomId)
return 1`,

  // roomId, then field, value pairs
  gwUpdateRoom: `
local key = P .. 'room:' .. ARGV[2]
if redis.call('EXISTS', key) == 0 then return 0 end
for i = 3, #ARGV, 2 do redis.call('HSET', key, ARGV[i], ARGV[i + 1]) end
return 1`,

  // roomId
  gwRemoveRoom: `
if redis.call('EXISTS', P .. 'room:' .. ARGV[2]) == 1 then dropRoom(ARGV[2]) end
return 1`,

  // roomIds... → { {roomId, flat hash, live seats}, ... } of those that exist
  gwGetRooms: `
local now = nowMs()
local out = {}
for i = 2, #ARGV do
  local key = P .. 'room:' .. ARGV[i]
  local fields = redis.call('HGETALL', key)
  if #fields > 0 then
    out[#out + 1] = { ARGV[i], fields, redis.call('ZCOUNT', key .. ':seats', '(' .. now, '+inf') }
  end
end
return out`,

  // name ('' for any), pid ('' for any) → as gwGetRooms
  gwFindRooms: `
local now = nowMs()
local name, pid = ARGV[2], ARGV[3]
local ids = pid == '' and redis.call('SMEMBERS', P .. 'rooms') or redis.call('SMEMBERS', P .. 'proc:' .. pid .. ':rooms')
local out = {}
for _, roomId in ipairs(ids) do
  local key = P .. 'room:' .. roomId
  if name == '' or redis.call('HGET', key, 'name') == name then
    local fields = redis.call('HGETALL', key)
    if #fields > 0 then
      out[#out + 1] = { roomId, fields, redis.call('ZCOUNT', key .. ':seats', '(' .. now, '+inf') }
    end
  end
end
return out`,

  // roomId, seatId, userId, clientId, ttl, options json, auth json ('' for none), seats per user in
  // the room, seats per user in all ('' for no limit) → {'ok', pid, expiresAt} or {reason}.
  // user:<id>:seats may name seats gone since (lapsed, their room removed): each is checked and
  // dropped here, so the set holds at most the limit plus what lapsed since the user's last call.
  gwReserveSeat: `
local now = nowMs()
local roomId, seatId, ttl = ARGV[2], ARGV[3], tonumber(ARGV[6])
local rkey = P .. 'room:' .. roomId
local room = redis.call('HMGET', rkey, 'processId', 'maxClients', 'locked')
if not room[1] or redis.call('EXISTS', P .. 'proc:' .. room[1]) == 0 then return { 'no such room' } end
local skey = P .. 'seat:' .. seatId
if redis.call('EXISTS', skey) == 1 then return { 'seat exists' } end
if room[3] == '1' then return { 'locked' } end
redis.call('ZREMRANGEBYSCORE', rkey .. ':seats', '-inf', now)
if redis.call('ZCARD', rkey .. ':seats') >= (tonumber(room[2]) or 0) then return { 'full' } end
local ukey = P .. 'user:' .. ARGV[4] .. ':seats'
local perRoom, perUser = tonumber(ARGV[9]), tonumber(ARGV[10])
if perRoom and perUser then
  local inRoom, total = 0, 0
  for _, held in ipairs(redis.call('SMEMBERS', ukey)) do
    local h = redis.call('HMGET', P .. 'seat:' .. held, 'roomId', 'userId', 'state', 'expiresAt')
    if h[2] ~= ARGV[4] or not seatLive(h[3], h[4], now) then
      redis.call('SREM', ukey, held)
    else
      total = total + 1
      if h[1] == roomId then inRoom = inRoom + 1 end
    end
  end
  if total >= perUser then return { 'user limit' } end
  if inRoom >= perRoom then return { 'user limit in room' } end
end
local expiresAt = now + ttl
redis.call('HSET', skey, 'roomId', roomId, 'processId', room[1], 'userId', ARGV[4], 'clientId', ARGV[5],
  'state', 'reserved', 'expiresAt', string.format('%.0f', expiresAt))
if ARGV[7] and ARGV[7] ~= '' then redis.call('HSET', skey, 'options', ARGV[7]) end
if ARGV[8] and ARGV[8] ~= '' then redis.call('HSET', skey, 'auth', ARGV[8]) end
redis.call('PEXPIRE', skey, ttl + ${LAPSED_SEAT_KEPT_MS})
redis.call('ZADD', rkey .. ':seats', expiresAt, seatId)
-- The set lives as long as its longest-lived reservation's record, forever while a seat is taken.
local left = redis.call('PTTL', ukey)
redis.call('SADD', ukey, seatId)
if left == -2 or (left >= 0 and left < ttl + ${LAPSED_SEAT_KEPT_MS}) then
  redis.call('PEXPIRE', ukey, ttl + ${LAPSED_SEAT_KEPT_MS})
end
return { 'ok', room[1], expiresAt }`,

  // seatId, roomId → {'ok', flat hash} or {reason}
  gwConsumeSeat: `
local now = nowMs()
local seatId = ARGV[2]
local skey = P .. 'seat:' .. seatId
local s = redis.call('HMGET', skey, 'roomId', 'state', 'expiresAt')
if not s[1] then return { 'unknown seat' } end
if s[1] ~= ARGV[3] then return { 'wrong room' } end
if s[2] == 'taken' then return { 'already used' } end
if not seatLive(s[2], s[3], now) then
  redis.call('DEL', skey)
  redis.call('ZREM', P .. 'room:' .. s[1] .. ':seats', seatId)
  return { 'expired' }
end
redis.call('HSET', skey, 'state', 'taken', 'expiresAt', 'inf')
redis.call('PERSIST', skey)
local userId = redis.call('HGET', skey, 'userId')
if userId then redis.call('PERSIST', P .. 'user:' .. userId .. ':seats') end
redis.call('ZADD', P .. 'room:' .. s[1] .. ':seats', '+inf', seatId)
return { 'ok', redis.call('HGETALL', skey) }`,

  // seatId, ttl → 1 held, 0 not taken
  gwHoldSeat: `
local now = nowMs()
local seatId, ttl = ARGV[2], tonumber(ARGV[3])
local skey = P .. 'seat:' .. seatId
local s = redis.call('HMGET', skey, 'roomId', 'state')
if s[2] ~= 'taken' then return 0 end
local expiresAt = now + ttl
redis.call('HSET', skey, 'state', 'held', 'expiresAt', string.format('%.0f', expiresAt))
redis.call('PEXPIRE', skey, ttl + ${LAPSED_SEAT_KEPT_MS})
redis.call('ZADD', P .. 'room:' .. s[1] .. ':seats', expiresAt, seatId)
return 1`,

  // seatId → flat hash of a live seat, or an empty list
  gwGetSeat: `
local s = redis.call('HGETALL', P .. 'seat:' .. ARGV[2])
local state, expiresAt
for i = 1, #s, 2 do
  if s[i] == 'state' then state = s[i + 1] elseif s[i] == 'expiresAt' then expiresAt = s[i + 1] end
end
if #s == 0 or not seatLive(state, expiresAt, nowMs()) then return {} end
return s`,

  // seatId
  gwReleaseSeat: `
local skey = P .. 'seat:' .. ARGV[2]
local roomId, userId = unpack(redis.call('HMGET', skey, 'roomId', 'userId'))
if userId then redis.call('SREM', P .. 'user:' .. userId .. ':seats', ARGV[2]) end
redis.call('DEL', skey)
if roomId then redis.call('ZREM', P .. 'room:' .. roomId .. ':seats', ARGV[2]) end
return 1`,

  // seatId, roomId, pid, userId, clientId, state, expiresAt ('inf' or ms), options json, auth json
  // ('' for none) → 1, or 0 if the room is gone
  gwRestoreSeat: `
local now = nowMs()
local seatId, roomId, expiresAt = ARGV[2], ARGV[3], ARGV[8]
if redis.call('HGET', P .. 'room:' .. roomId, 'processId') ~= ARGV[4] then return 0 end
local skey = P .. 'seat:' .. seatId
local old = redis.call('HGET', skey, 'roomId')
if old then redis.call('ZREM', P .. 'room:' .. old .. ':seats', seatId) end
redis.call('DEL', skey)
redis.call('HSET', skey, 'roomId', roomId, 'processId', ARGV[4], 'userId', ARGV[5], 'clientId', ARGV[6],
  'state', ARGV[7], 'expiresAt', expiresAt)
redis.call('SADD', P .. 'user:' .. ARGV[5] .. ':seats', seatId)
redis.call('PERSIST', P .. 'user:' .. ARGV[5] .. ':seats')
if ARGV[9] and ARGV[9] ~= '' then redis.call('HSET', skey, 'options', ARGV[9]) end
if ARGV[10] and ARGV[10] ~= '' then redis.call('HSET', skey, 'auth', ARGV[10]) end
if expiresAt == 'inf' then
  redis.call('ZADD', P .. 'room:' .. roomId .. ':seats', '+inf', seatId)
else
  local e = tonumber(expiresAt)
  redis.call('PEXPIRE', skey, math.max(e - now, 1) + ${LAPSED_SEAT_KEPT_MS})
  redis.call('ZADD', P .. 'room:' .. roomId .. ':seats', e, seatId)
end
return 1`,

  // ticketId, pool, ticket json → 1 added, 0 the id is taken
  gwAddTicket: `
local id, pool = ARGV[2], ARGV[3]
if redis.call('HEXISTS', P .. 'tickets', id) == 1 or redis.call('EXISTS', P .. 'ticket-result:' .. id) == 1 then
  return 0
end
redis.call('HSET', P .. 'tickets', id, ARGV[4])
redis.call('HSET', P .. 'ticket-pool', id, pool)
redis.call('SADD', P .. 'pool:' .. pool, id)
return 1`,

  // ticketId → 1 cancelled, 0 not queued
  gwCancelTicket: `
local id = ARGV[2]
local json = redis.call('HGET', P .. 'tickets', id)
if not json then return 0 end
redis.call('HDEL', P .. 'tickets', id)
local users = {}
for _, user in ipairs(cjson.decode(json).userIds) do users[#users + 1] = cjson.encode(user) end
local pool = redis.call('HGET', P .. 'ticket-pool', id)
redis.call('HDEL', P .. 'ticket-pool', id)
if pool then redis.call('SREM', P .. 'pool:' .. pool, id) end
redis.call('SET', P .. 'ticket-result:' .. id, '{"state":"cancelled","userIds":[' ..
  table.concat(users, ',') .. ']}', 'PX', ${CANCELLED_KEPT_MS})
return 1`,

  // pool → the queued tickets' json
  gwListPool: `
local out = {}
for _, id in ipairs(redis.call('SMEMBERS', P .. 'pool:' .. ARGV[2])) do
  local json = redis.call('HGET', P .. 'tickets', id)
  if json then out[#out + 1] = json end
end
return out`,

  // matchId, roomId, resultTtl, ticketIds... → 1 all claimed, 0 none (one was not queued)
  gwClaimTickets: `
local matchId, roomId, ttl = ARGV[2], ARGV[3], ARGV[4]
local quoted, users = {}, {}
for i = 5, #ARGV do
  local json = redis.call('HGET', P .. 'tickets', ARGV[i])
  if not json then return 0 end
  quoted[#quoted + 1] = cjson.encode(ARGV[i])
  for _, user in ipairs(cjson.decode(json).userIds) do users[#users + 1] = cjson.encode(user) end
end
local result = '{"state":"matched","matchId":' .. cjson.encode(matchId) .. ',"roomId":' ..
  cjson.encode(roomId) .. ',"ticketIds":[' .. table.concat(quoted, ',') .. '],"userIds":[' ..
  table.concat(users, ',') .. '],"matchedAt":' ..
  string.format('%.0f', nowMs()) .. '}'
for i = 5, #ARGV do
  local id = ARGV[i]
  local pool = redis.call('HGET', P .. 'ticket-pool', id)
  redis.call('HDEL', P .. 'tickets', id)
  redis.call('HDEL', P .. 'ticket-pool', id)
  if pool then redis.call('SREM', P .. 'pool:' .. pool, id) end
  redis.call('SET', P .. 'ticket-result:' .. id, result, 'PX', ttl)
end
return 1`,

  // ticketId → {'queued', json} or {'result', json} or {}
  gwTicketStatus: `
local json = redis.call('HGET', P .. 'tickets', ARGV[2])
if json then return { 'queued', json } end
json = redis.call('GET', P .. 'ticket-result:' .. ARGV[2])
if json then return { 'result', json } end
return {}`,

  // sessionId, maxPeers, userId, ttl, maxPerUser ('inf': none) → 1 created, 0 the id is taken,
  // -1 the user has maxPerUser live. Fields: n, g (generation), c (creator), and slot → user.
  // peer-sessions-of:<user> holds the ids of the sessions it created under a cap, pruned here of
  // those that ended (or whose id another since took), so the cap costs a look at at most
  // maxPerUser of them. A session counts while it lives, its creator in it or not.
  gwCreatePeerSession: `
local key = P .. 'peer-session:' .. ARGV[2]
if redis.call('EXISTS', key) == 1 then return 0 end
local mine = P .. 'peer-sessions-of:' .. ARGV[4]
local capped = ARGV[6] ~= 'inf'
for _, id in ipairs(capped and redis.call('SMEMBERS', mine) or {}) do
  if redis.call('HGET', P .. 'peer-session:' .. id, 'c') ~= ARGV[4] then redis.call('SREM', mine, id) end
end
if capped and redis.call('SCARD', mine) >= tonumber(ARGV[6]) then return -1 end
redis.call('HSET', key, 'n', ARGV[3], 'g', 1, 'c', ARGV[4], '0', ARGV[4])
redis.call('PEXPIRE', key, ARGV[5])
if capped then
  redis.call('SADD', mine, ARGV[2])
  if redis.call('PTTL', mine) < tonumber(ARGV[5]) then redis.call('PEXPIRE', mine, ARGV[5]) end
end
return 1`,

  // sessionId, userId, ttl → {slot, generation, holder of each slot ('' free)…}, {-1} no session, {-2} full
  gwTakePeerSlot: `
local key = P .. 'peer-session:' .. ARGV[2]
local n = tonumber(redis.call('HGET', key, 'n'))
if not n then return { -1 } end
local slot = -1
for i = 0, n - 1 do
  if redis.call('HGET', key, tostring(i)) == ARGV[3] then slot = i break end
end
if slot < 0 then
  for i = 0, n - 1 do
    if redis.call('HSETNX', key, tostring(i), ARGV[3]) == 1 then slot = i break end
  end
end
if slot < 0 then return { -2 } end
redis.call('PEXPIRE', key, ARGV[4])
-- The creator's index must outlive every session it counts.
local mine = P .. 'peer-sessions-of:' .. (redis.call('HGET', key, 'c') or '')
if redis.call('PTTL', mine) >= 0 and redis.call('PTTL', mine) < tonumber(ARGV[4]) then
  redis.call('PEXPIRE', mine, ARGV[4])
end
local out = { slot, redis.call('HINCRBY', key, 'g', 1) }
for i = 0, n - 1 do out[#out + 1] = redis.call('HGET', key, tostring(i)) or '' end
return out`,

  // sessionId, userId, emptyTtl → 1 its slot freed (the session, left empty, lapses within
  // emptyTtl), 0 it held none
  gwLeavePeerSession: `
local key = P .. 'peer-session:' .. ARGV[2]
local n = tonumber(redis.call('HGET', key, 'n'))
if not n then return 0 end
local freed = false
local empty = true
for i = 0, n - 1 do
  local holder = redis.call('HGET', key, tostring(i))
  if not freed and holder == ARGV[3] then
    redis.call('HDEL', key, tostring(i))
    freed = true
  elseif holder then
    empty = false
  end
end
if not freed then return 0 end
if empty and redis.call('PTTL', key) > tonumber(ARGV[4]) then redis.call('PEXPIRE', key, ARGV[4]) end
return 1`,
} as const;

export type DirectoryScriptName = keyof typeof DIRECTORY_SCRIPTS;

/** The full source of a script: the shared helpers, then its body. */
export function scriptSource(name: DirectoryScriptName): string {
  const body = DIRECTORY_SCRIPTS[name];
  return PRELUDE + (/drop(Room|Process)\(/.test(body) ? DROPPING : '') + body;
}
