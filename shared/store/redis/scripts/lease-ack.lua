-- After the flusher has written lease hashes to Postgres: drops each from the dirty set unless it was
-- refreshed after the flusher read it, and drops its excerpt unless a newer one arrived.
-- KEYS[1] dirty set   KEYS[2..n] the flushed lease hashes
-- ARGV[1] now (ms)   ARGV[2i] the version read for KEYS[i+1] ('' = none)   ARGV[2i+1] the excerpt time read ('' = none)
-- A refreshed hash stays dirty, re-scored to now: what it holds beyond the version read is younger
-- than the read, and the next batch must move on to other leases rather than meet it at the head again.
-- A hash that no longer exists (expired, purged) has nothing left to flush: its member is dropped
-- too, or such orphans would pile up at the head of the set and starve every later pass.
-- Returns how many members were dropped.
local dropped = 0
for i = 2, #KEYS do
  local version, excerptAt = ARGV[2 * (i - 1)], ARGV[2 * (i - 1) + 1]
  if (redis.call('HGET', KEYS[i], 'v') or '') == version then
    dropped = dropped + redis.call('ZREM', KEYS[1], KEYS[i])
  else
    redis.call('ZADD', KEYS[1], 'XX', ARGV[1], KEYS[i])
  end
  if excerptAt ~= '' and redis.call('HGET', KEYS[i], 'exAt') == excerptAt then
    redis.call('HDEL', KEYS[i], 'ex', 'exAt')
  end
end
return dropped
