-- Reads a cached credential and, when it is active, records its use and counts it against the rate limit.
-- KEYS[1] credential cache entry   KEYS[2] last-used hash (API keys)   KEYS[3] rate-limit counter
-- ARGV[1] now (ms)   ARGV[2] rate limit per window (0 = off)   ARGV[3] window length (s)
-- Returns nil on a cache miss, else { entry, count } where count is the window's request count (0 when off).
local entry = redis.call('GET', KEYS[1])
if not entry then return nil end
local count = 0
-- entry: a|<kind>|<userId>|<credentialId>|<userState>|<expiresAtMs>
local kind, credentialId = string.match(entry, '^a|(%a)|[^|]+|([^|]+)|')
if kind then
  if kind == 'k' then
    local previous = tonumber(redis.call('HGET', KEYS[2], credentialId) or '0')
    if tonumber(ARGV[1]) > previous then redis.call('HSET', KEYS[2], credentialId, ARGV[1]) end
  end
  if ARGV[2] ~= '0' then
    count = redis.call('INCR', KEYS[3])
    if count == 1 then redis.call('EXPIRE', KEYS[3], ARGV[3]) end
  end
end
return { entry, count }
