-- After the flusher has written lease hashes to Postgres: drops each from the dirty set unless it was
-- refreshed meanwhile, and drops its excerpt unless a newer one arrived.
-- KEYS[1] dirty set   KEYS[2..n] the flushed lease hashes
-- ARGV[2i-1] the version flushed for KEYS[i+1]   ARGV[2i] the excerpt time flushed ('' = none)
-- A hash that no longer exists (expired, purged) has nothing left to flush: its member is dropped
-- too, or such orphans would pile up at the head of the set and starve every later pass.
for i = 2, #KEYS do
  local version, excerptAt = ARGV[2 * (i - 1) - 1], ARGV[2 * (i - 1)]
  if version == '' or redis.call('ZSCORE', KEYS[1], KEYS[i]) == version then redis.call('ZREM', KEYS[1], KEYS[i]) end
  if excerptAt ~= '' and redis.call('HGET', KEYS[i], 'exAt') == excerptAt then
    redis.call('HDEL', KEYS[i], 'ex', 'exAt')
  end
end
return #KEYS - 1
