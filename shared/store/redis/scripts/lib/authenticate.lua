-- Reads a cached credential and, when it is active, records its use and counts it against the rate limit.
-- entryKey: credential cache entry   lastUsedKey: last-used hash (API keys)   rateKey: rate-limit counter
-- now (ms), limit per window (0 = off), window length (s)
-- Returns nil on a cache miss, else { entry, count } where count is the window's request count (0 when off).
local function authenticate(entryKey, lastUsedKey, rateKey, now, limit, windowSeconds)
  local entry = redis.call('GET', entryKey)
  if not entry then return nil end
  local count = 0
  local kind, _, credentialId = parseCredentialEntry(entry)
  if kind then
    if kind == 'k' then
      local previous = tonumber(redis.call('HGET', lastUsedKey, credentialId) or '0')
      if tonumber(now) > previous then redis.call('HSET', lastUsedKey, credentialId, now) end
    end
    if limit ~= '0' then count = countRequest(rateKey, windowSeconds) end
  end
  return { entry, count }
end
