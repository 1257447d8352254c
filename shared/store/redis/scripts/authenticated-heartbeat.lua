-- The hottest request in one round trip: authenticate the credential, then heartbeat the lease of
-- the session it names, but only when the credential is one the API accepts for this write
-- (active entry of the expected owner, writable account, unexpired, within its rate limit), so a
-- rejected request never refreshes a lease. The caller re-checks the entry and answers as usual.
-- KEYS[1] credential entry   KEYS[2] last-used hash   KEYS[3] rate counter   KEYS[4] lease hash   KEYS[5] dirty set
-- ARGV[1] now (ms)   ARGV[2] rate limit (0 = off)   ARGV[3] window (s)   ARGV[4] expected owner (user id)
-- ARGV[5] lease (ms)   ARGV[6] key TTL (ms)   ARGV[7] '1' when an excerpt is sent   ARGV[8] excerpt
-- Returns nil on a credential cache miss; { entry, count } when the lease was not touched;
-- { 1, run, epoch, seen } when it refreshed a live lease (the hot path: the caller needs nothing of
-- the entry it accepted, so the entry is not sent); { entry, count, status, … } with
-- heartbeatLease's answer when the lease is missing or stale (the caller goes on to Postgres).
local auth = authenticate(KEYS[1], KEYS[2], KEYS[3], ARGV[1], ARGV[2], ARGV[3])
if not auth then return nil end
local _, owner, _, state, expires = parseCredentialEntry(auth[1])
local limit = tonumber(ARGV[2])
if owner ~= ARGV[4] or state ~= 'active'
  or (expires ~= '0' and tonumber(expires) <= tonumber(ARGV[1]))
  or (limit > 0 and auth[2] > limit) then
  return auth
end
local lease = heartbeatLease(KEYS[4], KEYS[5], ARGV[1], ARGV[5], ARGV[6], ARGV[7], ARGV[8])
if lease[1] == 1 then return lease end
return { auth[1], auth[2], lease[1], lease[2], lease[3], lease[4] }
