-- The hottest request in one round trip: authenticate the credential, then heartbeat the lease of
-- the session it names, but only when the credential is one the API accepts for this write
-- (active entry of the expected owner, writable account, unexpired, within its rate limit), so a
-- rejected request never refreshes a lease. The caller re-checks the entry and answers as usual.
-- One Redis only (a cluster runs authenticate.lua, then lease-heartbeat.lua): the last-used hash,
-- the rate counter and the dirty set are named here from the two keys they share hash tags with,
-- exactly as shared/store/redis/keys.ts names them, and the expected owner is the lease key's user id,
-- so the command carries half the bytes (what the client spends most of its CPU on).
-- KEYS[1] credential entry ({c:n} … :auth:<kind>:<hash>)   KEYS[2] lease hash ({t:n} … :lease:<userId>:…)
-- ARGV[1] now (ms)   ARGV[2] rate limit (0 = off)   ARGV[3] window (s)
-- ARGV[4] lease (ms)   ARGV[5] key TTL (ms)   ARGV[6] '1' when an excerpt is sent   ARGV[7] excerpt
-- Returns nil on a credential cache miss; { entry, count } when the lease was not touched;
-- { 1, run, epoch, seen } when it refreshed a live lease (the hot path: the caller needs nothing of
-- the entry it accepted, so the entry is not sent); { entry, count, status, … } with
-- heartbeatLease's answer when the lease is missing or stale (the caller goes on to Postgres).
-- Plain finds, not patterns: measured cheaper in Redis (the prefix never holds '}').
local entryKey, leaseKey = KEYS[1], KEYS[2]
local at = string.find(entryKey, '}:auth:', 1, true)
local credentialPart = string.sub(entryKey, 1, at)
local rateKey = false
if ARGV[2] ~= '0' then
  local window = math.floor(tonumber(ARGV[1]) / (tonumber(ARGV[3]) * 1000))
  rateKey = credentialPart .. ':rl:' .. string.sub(entryKey, at + 7, at + 7)
    .. string.sub(entryKey, at + 9, at + 40) .. ':' .. string.format('%d', window)
end
local tenantEnd = string.find(leaseKey, '}:lease:', 1, true)
local ownerId = string.sub(leaseKey, tenantEnd + 8, string.find(leaseKey, ':', tenantEnd + 8, true) - 1)
local auth = authenticate(entryKey, credentialPart .. ':auth:last-used', rateKey, ARGV[1], ARGV[2], ARGV[3])
if not auth then return nil end
local _, owner, _, state, expires = parseCredentialEntry(auth[1])
local limit = tonumber(ARGV[2])
if owner ~= ownerId or state ~= 'active'
  or (expires ~= '0' and tonumber(expires) <= tonumber(ARGV[1]))
  or (limit > 0 and auth[2] > limit) then
  return auth
end
local lease = heartbeatLease(leaseKey, string.sub(leaseKey, 1, tenantEnd) .. ':lease:dirty', ARGV[1], ARGV[4], ARGV[5], ARGV[6], ARGV[7])
if lease[1] == 1 then return lease end
return { auth[1], auth[2], lease[1], lease[2], lease[3], lease[4] }
