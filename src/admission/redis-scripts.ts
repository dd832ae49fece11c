// Lua sources for the Redis admission store; each script is one atomic step of store.ts's semantics.
//
// Per key K (hash tag {K} keeps a key's data in one cluster slot):
//   <p>{K}:s  HASH  period spentN spentT resN resT win rpm tpm inflight
//   <p>{K}:r  HASH  reservationId -> "nanos tokens period window"
//   <p>{K}:e  ZSET  reservationId scored by expiry (unix ms), for reclaim inside admit
//   <p>{K}:u  HASH  <instance tag>n / <instance tag>t -> spend an instance settled whose usage rows it has
//                   not written yet (a replica that dies loses those rows: its share is taken back out)
// Time is Redis's own (TIME) unless the caller passes its clock: replicas whose clocks disagree must
// still agree on the minute a request counts in and on when a reservation has expired, or one fast
// clock would free the reservations of every other replica's requests still running.
// Redis Lua turns numbers into strings with %.14g, which would garble nano-USD amounts above 1e14,
// so every number written back goes through fmt() (%d on a 64-bit long).

const COMMON = `
local function fmt(x) return string.format('%d', x) end
local function num(v) return tonumber(v) or 0 end
local function load(key)
  local f = redis.call('HMGET', key, 'period', 'spentN', 'spentT', 'resN', 'resT', 'win', 'rpm', 'tpm', 'inflight')
  return { period = num(f[1]), spentN = num(f[2]), spentT = num(f[3]), resN = num(f[4]), resT = num(f[5]),
           win = num(f[6]), rpm = num(f[7]), tpm = num(f[8]), inflight = num(f[9]) }
end
local function save(key, s)
  redis.call('HSET', key, 'period', fmt(s.period), 'spentN', fmt(s.spentN), 'spentT', fmt(s.spentT),
    'resN', fmt(s.resN), 'resT', fmt(s.resT), 'win', fmt(s.win), 'rpm', fmt(s.rpm), 'tpm', fmt(s.tpm),
    'inflight', fmt(s.inflight))
end
local function parse(entry)
  local n, t, p, w = string.match(entry, '^(%d+) (%d+) (%d+) (%d+)$')
  return { nanos = tonumber(n), tokens = tonumber(t), period = tonumber(p), win = tonumber(w) }
end
-- undo one reservation's hold on budget, TPM and its slot; the RPM count stays
local function drop(s, r)
  s.inflight = math.max(0, s.inflight - 1)
  if r.period == s.period then
    s.resN = math.max(0, s.resN - r.nanos)
    s.resT = math.max(0, s.resT - r.tokens)
  end
  if r.win == s.win then s.tpm = math.max(0, s.tpm - r.tokens) end
end
-- a new budget period: nothing spent or reserved, and no instance owes rows for it yet
local function roll(s, periodStart, ukey)
  s.period = periodStart; s.spentN = 0; s.spentT = 0; s.resN = 0; s.resT = 0
  redis.call('DEL', ukey)
end
local function snap(s)
  return { s.spentN, s.resN, s.spentT, s.resT, s.rpm, s.tpm, s.inflight, s.win }
end
`;

/**
 * KEYS: state, reservations, expiries, unwritten spend per instance.
 * ARGV: now (-1 = Redis's own clock), periodStart, reserveNanos, reserveTokens, rpm, tpm,
 *       maxConcurrency, budgetNanos, tokenBudget (each limit -1 = none), reservationId, ttlMs, windowMs,
 *       needsSeed ('1' | '0'), inFlightShare in millionths (-1 = none).
 * Returns { status, reason, ...snap, now }: status 1 admitted, 0 refused, 2 the key's state is gone (Redis
 * restarted without persistence, or was flushed): a budget must be loaded from the database again
 * before anything is admitted, or the key would get its whole budget a second time.
 */
export const ADMIT_LUA = `${COMMON}
if ARGV[13] == '1' and redis.call('EXISTS', KEYS[1]) == 0 then return { 2, 'unseeded' } end
local now, periodStart = tonumber(ARGV[1]), tonumber(ARGV[2])
if now < 0 then
  -- Allowed before writes since Redis 5 (scripts replicate their effects, not themselves).
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local needN, needT = tonumber(ARGV[3]), tonumber(ARGV[4])
local rpm, tpm, conc = tonumber(ARGV[5]), tonumber(ARGV[6]), tonumber(ARGV[7])
local budgetN, budgetT = tonumber(ARGV[8]), tonumber(ARGV[9])
local windowMs = tonumber(ARGV[12])
local share = tonumber(ARGV[14] or '-1')
local s = load(KEYS[1])

local expired = redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', now)
for _, id in ipairs(expired) do
  local entry = redis.call('HGET', KEYS[2], id)
  if entry then drop(s, parse(entry)) end
  redis.call('HDEL', KEYS[2], id)
  redis.call('ZREM', KEYS[3], id)
end

if periodStart > s.period then roll(s, periodStart, KEYS[4]) end
local win = math.floor(now / windowMs) * windowMs
if win > s.win then s.win = win; s.rpm = 0; s.tpm = 0 end

local reason = ''
if budgetN >= 0 and s.spentN + s.resN + needN > budgetN then reason = 'budget'
elseif budgetT >= 0 and s.spentT + s.resT + needT > budgetT then reason = 'token_budget'
elseif share >= 0 and s.inflight > 0 and budgetN >= 0 and (s.resN + needN) * 1000000 > share * (budgetN - s.spentN) then reason = 'in_flight'
elseif share >= 0 and s.inflight > 0 and budgetT >= 0 and (s.resT + needT) * 1000000 > share * (budgetT - s.spentT) then reason = 'in_flight'
elseif rpm >= 0 and s.rpm + 1 > rpm then reason = 'rpm'
elseif tpm >= 0 and s.tpm + needT > tpm then reason = 'tpm'
elseif conc >= 0 and s.inflight + 1 > conc then reason = 'concurrency'
end

if reason == '' then
  s.rpm = s.rpm + 1; s.tpm = s.tpm + needT; s.inflight = s.inflight + 1
  s.resN = s.resN + needN; s.resT = s.resT + needT
  redis.call('HSET', KEYS[2], ARGV[10], ARGV[3] .. ' ' .. ARGV[4] .. ' ' .. fmt(s.period) .. ' ' .. fmt(s.win))
  redis.call('ZADD', KEYS[3], fmt(now + tonumber(ARGV[11])), ARGV[10])
end
save(KEYS[1], s)
local out = snap(s)
table.insert(out, 1, reason)
table.insert(out, 1, reason == '' and 1 or 0)
table.insert(out, fmt(now))
return out
`;

/**
 * KEYS: state, reservations, expiries, unwritten spend. ARGV: reservationId, nanos, tokens, settle (1) or
 * release (0). A settle also counts its amounts as unwritten by the instance the id's tag names (its first
 * 9 characters) until that instance reports its rows written (DURABLE_LUA). Returns [1, period] or [0].
 */
export const FINISH_LUA = `${COMMON}
local entry = redis.call('HGET', KEYS[2], ARGV[1])
if not entry then return { 0 } end
redis.call('HDEL', KEYS[2], ARGV[1])
redis.call('ZREM', KEYS[3], ARGV[1])
local s = load(KEYS[1])
local r = parse(entry)
drop(s, r)
if ARGV[4] == '1' then
  if r.period == s.period then
    s.spentN = s.spentN + tonumber(ARGV[2]); s.spentT = s.spentT + tonumber(ARGV[3])
    local tag = string.sub(ARGV[1], 1, 9)
    redis.call('HINCRBY', KEYS[4], tag .. 'n', ARGV[2])
    redis.call('HINCRBY', KEYS[4], tag .. 't', ARGV[3])
  end
  if r.win == s.win then s.tpm = s.tpm + tonumber(ARGV[3]) end
end
save(KEYS[1], s)
return { 1, fmt(r.period) }
`;

/**
 * KEYS: state, unwritten spend. ARGV: periodStart, spentNanos, spentTokens, mode ('max' | 'replace'),
 * periodEnd (-1: not given; an older period that ends after the current start contains it and only raises
 * spent).
 */
export const SEED_LUA = `${COMMON}
local periodStart = tonumber(ARGV[1])
local s = load(KEYS[1])
local periodEnd = tonumber(ARGV[5])
local contains = periodStart < s.period and periodEnd > s.period
if periodStart < s.period and not contains then return 0 end
if periodStart > s.period then roll(s, periodStart, KEYS[2]) end
if ARGV[4] == 'replace' and not contains then
  s.spentN = tonumber(ARGV[2]); s.spentT = tonumber(ARGV[3])
else
  s.spentN = math.max(s.spentN, tonumber(ARGV[2])); s.spentT = math.max(s.spentT, tonumber(ARGV[3]))
end
save(KEYS[1], s)
return 1
`;

/**
 * KEYS: state, reservations, expiries, unwritten spend. ARGV: reservation-id prefix (tag) of one gateway
 * instance, which died. Drops every reservation with that prefix, and takes the spend it settled but
 * never wrote rows for back out of spent (those rows died with it: the database, which is the truth, has
 * no record of them). Returns { reservations freed, nanos taken out }.
 */
export const RECLAIM_LUA = `${COMMON}
local prefix = ARGV[1]
local ids = redis.call('ZRANGE', KEYS[3], 0, -1)
local s = load(KEYS[1])
local freed = 0
for _, id in ipairs(ids) do
  if string.sub(id, 1, #prefix) == prefix then
    local entry = redis.call('HGET', KEYS[2], id)
    if entry then drop(s, parse(entry)) end
    redis.call('HDEL', KEYS[2], id)
    redis.call('ZREM', KEYS[3], id)
    freed = freed + 1
  end
end
local owedN = num(redis.call('HGET', KEYS[4], prefix .. 'n'))
local owedT = num(redis.call('HGET', KEYS[4], prefix .. 't'))
if owedN > 0 or owedT > 0 then
  s.spentN = math.max(0, s.spentN - owedN); s.spentT = math.max(0, s.spentT - owedT)
end
redis.call('HDEL', KEYS[4], prefix .. 'n', prefix .. 't')
if freed > 0 or owedN > 0 or owedT > 0 then save(KEYS[1], s) end
return { freed, fmt(owedN) }
`;

/**
 * KEYS: unwritten spend. ARGV: instance tag, nanos, tokens now in the database. What the instance owes is
 * lowered, never below zero (a row whose settle never reached Redis was not counted there).
 */
export const DURABLE_LUA = `${COMMON}
local tag = ARGV[1]
local n = num(redis.call('HGET', KEYS[1], tag .. 'n')) - tonumber(ARGV[2])
local t = num(redis.call('HGET', KEYS[1], tag .. 't')) - tonumber(ARGV[3])
if n > 0 then redis.call('HSET', KEYS[1], tag .. 'n', fmt(n)) else redis.call('HDEL', KEYS[1], tag .. 'n') end
if t > 0 then redis.call('HSET', KEYS[1], tag .. 't', fmt(t)) else redis.call('HDEL', KEYS[1], tag .. 't') end
return 1
`;

/**
 * KEYS: the replicas' heartbeat ZSET. ARGV: this instance's tag, timeout ms. Marks this instance alive
 * (Redis's clock) and claims the instances silent for longer than the timeout: each lost one is removed
 * here, atomically, so exactly one replica reconciles for it. Returns their tags.
 */
export const PEERS_LUA = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZADD', KEYS[1], now, ARGV[1])
local lost = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now - tonumber(ARGV[2]))
for _, tag in ipairs(lost) do redis.call('ZREM', KEYS[1], tag) end
return lost
`;
