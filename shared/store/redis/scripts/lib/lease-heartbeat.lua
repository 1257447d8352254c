-- Heartbeat check-and-refresh of one session lease.
-- leaseKey: lease hash   dirtyKey: dirty set (score = when the hash was first dirtied since its last flush)
-- now (ms), lease (ms), key TTL (ms), hasExcerpt ('1' when an excerpt is sent), excerpt
-- Returns {0} when the lease is not cached; {2, run, epoch, seen} when closed or lease-expired
-- (the caller resurrects in Postgres); {1, run, epoch, seen} after refreshing a live lease.
local function heartbeatLease(leaseKey, dirtyKey, now, leaseMs, ttlMs, hasExcerpt, excerpt)
  local state = redis.call('HMGET', leaseKey, 'run', 'epoch', 'seen', 'closed')
  if not state[1] then return { 0 } end
  local nowMs = tonumber(now)
  local seen = tonumber(state[3])
  if state[4] ~= '0' or nowMs - seen >= tonumber(leaseMs) then
    return { 2, state[1], state[2], state[3] }
  end
  -- The key's TTL is renewed on the first beat of each minute (by `seen`), not on every beat:
  -- whenever `seen` is written the key outlives the start of seen's minute by ttlMs (lease-fill.lua
  -- renews it from now), so it still outlives the lease by ttlMs - lease - 1 min. One command less
  -- on almost every beat (issue 20 item 4).
  local renew = math.floor(nowMs / 60000) ~= math.floor(seen / 60000)
  if nowMs > seen then
    seen = nowMs
    redis.call('HSET', leaseKey, 'seen', now)
  end
  if hasExcerpt == '1' then redis.call('HSET', leaseKey, 'ex', excerpt, 'exAt', now) end
  -- The version lets the flusher's ack tell whether the hash changed after it was read; the dirty
  -- set keeps the first-dirtied time (NX), so the flusher drains the longest-waiting leases first.
  redis.call('HINCRBY', leaseKey, 'v', 1)
  redis.call('ZADD', dirtyKey, 'NX', now, leaseKey)
  if renew then redis.call('PEXPIRE', leaseKey, ttlMs) end
  return { 1, state[1], state[2], tostring(seen) }
end
